"""`python -m stacks`: the offline plan and the plan diff (`stacks.offline.cli`).

Run by a Python without the project's dependencies (outside `.venv`), the CLI's first
third-party import fails; that ends in one line saying what to run, not a traceback.
"""

import sys

_OUTSIDE_VENV = (
    "gpu-ci: `python -m stacks` needs the project's virtualenv, and this Python lacks {name!r}. "
    "Run `python3 tasks.py plan [STACK]` (it creates .venv with the locked dependencies and "
    "plans), then `.venv/bin/python -m stacks ...` for the other commands."
)

try:
    from stacks.offline.cli import entry_point
except ModuleNotFoundError as missing:
    # Only a dependency outside this repository means "not in the venv"; a missing module
    # of our own is a bug and keeps its traceback.
    if missing.name is None or missing.name.split(".")[0] in {"core", "stacks", "components"}:
        raise
    print(_OUTSIDE_VENV.format(name=missing.name.split(".")[0]), file=sys.stderr)
    sys.exit(2)

if __name__ == "__main__":
    entry_point()
