"""Wall time and peak memory of the offline plan, as a user runs it.

Each run is a fresh `python -m stacks plan STACK --quiet` process, so interpreter start
and imports are included. Prints the median of N runs; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


_MEASURE = """
import resource, subprocess, sys, time
start = time.perf_counter()
subprocess.run([sys.executable, "-m", "stacks", "plan", sys.argv[1], "--quiet"], check=True)
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def one_run(stack: str) -> tuple[float, int]:
    """Seconds and peak RSS (KiB) of one plan process.

    A fresh parent per run: RUSAGE_CHILDREN's peak only ever grows within one process,
    so measuring every run from here would report the largest stack's peak for all.
    """
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, stack],
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return float(out[-2]), int(out[-1])


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
