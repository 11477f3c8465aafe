"""Every stack in one process against one stack alone: `plan --all` vs `plan dev`.

Side by side, interleaved (dev, all, dev, all, ...) so both see the same machine load:
`python -m stacks plan dev --quiet` and `python -m stacks plan --all --json-dir TMP`, each
a fresh process (interpreter start and imports included), measured from a fresh parent
(`resource.getrusage(RUSAGE_CHILDREN)`'s peak only grows within one process). Prints the
median, min and max wall and the peak RSS of each, their ratios against the targets of
issue #26 (all five stacks <= 1.6x the wall of dev alone, peak RSS <= 1.5x), and the load
average before and after. `--runs 1` is the CI smoke run. Nothing here asserts a time; it
fails only if `plan --all` did not write a snapshot for every stack.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.plan_wall import measure  # noqa: E402

WALL_TARGET = 1.6
RSS_TARGET = 1.5


def _load() -> str:
    if not hasattr(os, "getloadavg"):
        return "n/a"
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5, help="runs of each (median; 1: smoke)")
    parser.add_argument("--stack", default="dev", help="the one stack to compare against")
    args = parser.parse_args(argv)
    stacks = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in REPO.glob("Pulumi.?*.yaml"))
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    print(f"load average before: {_load()}")
    cases = {
        f"plan {args.stack}": ["plan", args.stack, "--quiet"],
        f"plan --all ({len(stacks)})": [],
    }
    results: dict[str, list[tuple[float, int]]] = {name: [] for name in cases}
    with tempfile.TemporaryDirectory() as tmp:
        cases[f"plan --all ({len(stacks)})"] = ["plan", "--all", "--json-dir", tmp]
        for _ in range(args.runs):
            for name, argv_ in cases.items():
                results[name].append(measure(argv_))
        written = sorted(p.stem for p in Path(tmp).glob("*.json"))
    if written != stacks:
        print(f"error: plan --all wrote {written}, not a snapshot per stack {stacks}")
        return 1
    print(f"load average after:  {_load()}")
    print(f"{'':<18} {'median wall (s)':>16} {'min':>7} {'max':>7} {'peak RSS (MiB)':>15}")
    medians, peaks = [], []
    for name, runs in results.items():
        times = [t for t, _ in runs]
        medians.append(statistics.median(times))
        peaks.append(max(r for _, r in runs) / 1024)
        print(
            f"{name:<18} {medians[-1]:>16.3f} {min(times):>7.3f} {max(times):>7.3f} "
            f"{peaks[-1]:>15.1f}"
        )
    wall, rss = medians[1] / medians[0], peaks[1] / peaks[0]
    print(
        f"all / {args.stack}: wall {wall:.2f}x (target <= {WALL_TARGET}x), "
        f"peak RSS {rss:.2f}x (target <= {RSS_TARGET}x), over {args.runs} run(s) each"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
