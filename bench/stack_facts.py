"""What docs/benchmarks.md states about the tree, computed: its "stacks today" tables.

The page's timings are measurements of a day; the stacks they are about are facts of the
tree that change with every resource added. This computes them, so the page can be
regenerated and tests/test_benchmarks_page.py can fail a stale page:

- the example stacks (one per `Pulumi.<stack>.yaml`) and the generated ones the tables
  measure (`bench/generated_stacks.py`), each with its plan's resource count (as
  `python -m stacks plan STACK --quiet` prints it);
- the provider SDKs `python -m stacks plan STACK` imports, read from `sys.modules` of a
  fresh process after the plan: what a user's command pays for, the CLI's own imports
  included (the program's alone: tests/stacks/test_imports.py).

    .venv/bin/python bench/stack_facts.py     # prints both tables, as the page has them
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.generated_stacks import write_stacks  # noqa: E402
from stacks.offline.plan import PlanCache, plan_run  # noqa: E402
from stacks.offline.snapshot.recorded import snapshot_of  # noqa: E402
from stacks.offline.stack_file.read import stacks_here  # noqa: E402

GENERATED = [("vm", 5), ("vm", 50), ("arc", 10), ("arc", 100), ("recipe", 30)]
WHAT = {
    "vm": "{n} GPU VMs, each bootstrapped + runner (dev without cluster and platform)",
    "arc": "the arc example with {n} scale sets",
    "recipe": "dev deploying a generated {n}-component recipe",
}
SDKS = ("pulumi_command", "pulumi_kubernetes", "pulumi_oci", "pulumi_random")
EXAMPLE_HEADER = "| stack | resources | provider SDKs `python -m stacks plan STACK` imports |"
GENERATED_HEADER = "| generated stack | what | resources |"

_IMPORTS = """
import contextlib, io, json, sys
from stacks.offline.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(["plan", sys.argv[1], "--quiet"])
loaded = {m.split(".")[0] for m in sys.modules}
print(json.dumps([code, sorted(loaded & set(json.loads(sys.argv[2])))]))
"""


def resource_counts(
    root: Path, stacks: list[str], cache: PlanCache | None = None
) -> dict[str, int]:
    """Each stack's resources, as `plan STACK --quiet` counts them (one cache: a referenced
    stack is planned once)."""
    runs: PlanCache = {} if cache is None else cache
    return {s: len(snapshot_of(plan_run(s, root, cache=runs))["resources"]) for s in stacks}


def generated_counts() -> dict[str, int]:
    with tempfile.TemporaryDirectory() as folder:
        names = write_stacks(Path(folder), GENERATED)
        return resource_counts(Path(folder), names)


def imported_sdks(stack: str) -> list[str]:
    """The provider SDK distributions a fresh `python -m stacks plan STACK` has imported."""
    done = subprocess.run(
        [sys.executable, "-c", _IMPORTS, stack, json.dumps(SDKS)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    code, modules = json.loads(done.stdout.splitlines()[-1])
    if code != 0:
        raise RuntimeError(f"plan {stack} exited {code}: {done.stderr.strip()[-500:]}")
    return [module.replace("_", "-") for module in modules]


def example_table(counts: dict[str, int], sdks: dict[str, list[str]]) -> str:
    rows = [EXAMPLE_HEADER, "|---|---|---|"]
    for stack in sorted(counts):
        names = ", ".join(sdks[stack])
        rows.append(f"| {stack} | {counts[stack]} | {names} |")
    return "\n".join(rows) + "\n"


def generated_table(counts: dict[str, int]) -> str:
    rows = [GENERATED_HEADER, "|---|---|---|"]
    for kind, n in GENERATED:
        rows.append(f"| {kind}-{n} | {WHAT[kind].format(n=n)} | {counts[f'{kind}-{n}']} |")
    return "\n".join(rows) + "\n"


def main() -> int:
    examples = stacks_here(REPO)
    counts = resource_counts(REPO, examples)
    sdks = {stack: imported_sdks(stack) for stack in examples}
    print(f"{len(examples)} example stacks\n")
    print(example_table(counts, sdks))
    print(generated_table(generated_counts()), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
