"""`python -m stacks`: the offline plan and the plan diff (`stacks.offline.cli`)."""

from stacks.offline.cli import entry_point

if __name__ == "__main__":
    entry_point()
