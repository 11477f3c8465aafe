"""Wall time and peak memory of the offline plan, as a user runs it.

Each run is a fresh `python -m stacks plan STACK --quiet` process, so interpreter start
and imports are included. `--generated` adds the large stacks of `generated_stacks.py`
(50 VMs, 100 scale sets, a 30-component recipe), planned from their own stack files.
Prints the median of N runs; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.generated_stacks import write_stacks  # noqa: E402

LARGE_STACKS = [("vm", 50), ("arc", 100), ("recipe", 30)]


_MEASURE = """
import resource, subprocess, sys, time
start = time.perf_counter()
out = subprocess.DEVNULL
subprocess.run([sys.executable, "-m", "stacks", *sys.argv[1:]], check=True, stdout=out)
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def measure(args: list[str]) -> tuple[float, int]:
    """Seconds and peak RSS (KiB) of one `python -m stacks ARGS` process.

    A fresh parent per run: RUSAGE_CHILDREN's peak only ever grows within one process,
    so measuring every run from here would report the largest stack's peak for all.
    """
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, *args],
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return float(out[-2]), int(out[-1])


def one_run(stack: str, project_dir: Path) -> tuple[float, int]:
    """Seconds and peak RSS (KiB) of one plan process."""
    return measure(["plan", stack, "--quiet", "--project-dir", str(project_dir)])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("stacks", nargs="*", default=["dev"])
    parser.add_argument("--generated", action="store_true", help="also the large stacks")
    args = parser.parse_args()
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    print(f"{'stack':<12} {'median wall (s)':>16} {'min':>7} {'max':>7} {'peak RSS (MiB)':>15}")
    with tempfile.TemporaryDirectory() as tmp:
        cases = [(REPO, stack) for stack in args.stacks]
        if args.generated:
            cases += [(Path(tmp), name) for name in write_stacks(Path(tmp), LARGE_STACKS)]
        for root, stack in cases:
            runs = [one_run(stack, root) for _ in range(args.runs)]
            times = [t for t, _ in runs]
            rss = max(r for _, r in runs) / 1024
            print(
                f"{stack:<12} {statistics.median(times):>16.3f} {min(times):>7.3f} "
                f"{max(times):>7.3f} {rss:>15.1f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
