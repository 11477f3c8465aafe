"""The offline plan's cost against the Pulumi SDK's own floor, and how it scales.

For each stack: the program planned in-process under the recording mocks (median of N
runs, imports already loaded), then the SDK floor (`sdk_replay.replay`): a program with no
gpu-ci code that makes the same invokes, creates the same resources through the provider
SDKs' classes (types, names, parents, dependencies, provider, options, inputs, secrets) and
exports the same values, through the same mocks. plan / floor is what gpu-ci itself adds:
config validation, script rendering, recipe resolution, Output plumbing and its deeper call
stacks. The untyped column replays the same requests without the provider classes, a bound
below what any program using the provider SDKs pays. Every replay run is checked to have
registered, invoked and exported exactly what the plan did.

The generated stacks (`generated_stacks.py`: vm-5, vm-50, arc-10, arc-100, recipe-30) show how
both grow with the fleet. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.generated_stacks import write_stacks  # noqa: E402
from bench.sdk_replay import check_same, replay, untyped_replay  # noqa: E402
from stacks.offline.engine.mocks import run_program  # noqa: E402
from stacks.offline.engine.records import ProgramRun  # noqa: E402
from stacks.offline.stack_file.read import read_stack_file  # noqa: E402
from stacks.program import main as gpu_ci_program  # noqa: E402

PROJECT = "gpu-ci"
LARGE_STACKS = [("vm", 5), ("vm", 50), ("arc", 10), ("arc", 100), ("recipe", 30)]


def timed(runs: int, once: Callable[[], ProgramRun]) -> tuple[float, list[ProgramRun]]:
    """Median seconds of `runs` calls, and their results. Each call starts on a collected
    heap: a full collection walks every object of the imported SDKs (~0.12 s), and would
    otherwise land in some runs and not others, plan or floor alike."""
    times, results = [], []
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        results.append(once())
        times.append(time.perf_counter() - start)
    return statistics.median(times), results


def plan(name: str, config: dict[str, str], secrets: set[str], runs: int) -> dict[str, Any]:
    # The program alone, as `pulumi preview` runs it: not `stacks.offline.plan.plan_run`, which
    # validates the config once more to plan referenced stacks first.
    def program_run() -> ProgramRun:
        return run_program(
            gpu_ci_program, project=PROJECT, stack=name, config=config, secret_keys=secrets
        )

    def replayed(make: Callable[[ProgramRun], Callable[[], None]]) -> float:
        """Median seconds of a replay of the plan, each run checked to be the same."""
        seconds, replays = timed(
            runs, lambda: run_program(make(run), project=PROJECT, stack=name, config={})
        )
        for each in replays:
            check_same(run, each)
        return seconds

    program_run()  # untimed: the first run imports the provider modules the stack uses
    plan_s, (run, *_) = timed(runs, program_run)
    floor_s, untyped_s = replayed(replay), replayed(untyped_replay)
    return {
        "stack": name,
        "resources": len(run.registrations),
        "plan_s": plan_s,
        "floor_s": floor_s,
        "ratio": plan_s / floor_s,
        "untyped_s": untyped_s,
        "untyped_ratio": plan_s / untyped_s,
    }


def stack_config(root: Path, stack: str) -> tuple[dict[str, str], set[str]]:
    file = read_stack_file(root, stack)
    return dict(file.config), set(file.secret_keys)


def import_seconds(runs: int) -> float:
    """Median wall time of a fresh interpreter importing the program (no plan)."""
    code = (
        "import time; t = time.perf_counter(); import stacks.program; "
        "print(time.perf_counter() - t)"
    )
    times = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(runs)
    ]
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="example stacks only (CI smoke)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cases = [(REPO, name) for name in ("dev", "workstation", "gpu-dev", "arc")]
        if not args.quick:
            generated = write_stacks(Path(tmp), LARGE_STACKS)
            cases += [(Path(tmp), name) for name in generated]
        print(
            f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
            f"median of {args.runs} in-process runs"
        )
        print(f"import stacks.program: {import_seconds(args.runs):.3f} s (fresh interpreter)")
        print(
            f"{'stack':<12} {'resources':>9} {'plan (s)':>9} {'floor (s)':>10} "
            f"{'plan/floor':>11} {'untyped (s)':>12} {'plan/untyped':>13}"
        )
        for root, name in cases:
            row = plan(name, *stack_config(root, name), args.runs)
            print(
                f"{row['stack']:<12} {row['resources']:>9} {row['plan_s']:>9.3f} "
                f"{row['floor_s']:>10.3f} {row['ratio']:>11.2f} "
                f"{row['untyped_s']:>12.3f} {row['untyped_ratio']:>13.2f}"
            )
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)  # skip the SDK's noisy event-loop teardown, as `python -m stacks` does
