"""Wall time and peak memory of the offline plan, as a user runs it.

Each run is a fresh `python -m stacks plan STACK --quiet` process, so interpreter start
and imports are included. Prints the median of N runs; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def one_run(stack: str) -> tuple[float, int]:
    """Seconds and peak RSS (KiB) of one plan process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "stacks", "plan", stack, "--quiet"], cwd=REPO, check=True)
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, max(peak, before)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("stacks", nargs="*", default=["dev"])
    args = parser.parse_args()
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    print(f"{'stack':<10} {'median wall (s)':>16} {'min':>7} {'max':>7} {'peak RSS (MiB)':>15}")
    for stack in args.stacks:
        runs = [one_run(stack) for _ in range(args.runs)]
        times = [t for t, _ in runs]
        rss = max(r for _, r in runs) / 1024
        print(
            f"{stack:<10} {statistics.median(times):>16.3f} {min(times):>7.3f} "
            f"{max(times):>7.3f} {rss:>15.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
