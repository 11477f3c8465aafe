"""The `mutate` task: mutmut over each module of MUTATION_TESTS, in a scratch copy of the
tree, against only that module's tests; its scores by mutant verdict."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tools.tasks.checkout import BIN, ROOT
from tools.tasks.mutation_tests import MUTATION_TESTS

MUTATE_DIR = ROOT / "out" / "mutate"
# What a module's scratch copy of the tree leaves out (mutmut writes its mutants/ there).
_NOT_COPIED = {".git", ".venv", "out", "mutants", "node_modules", "setup.cfg"}

MUTATE_HELP = (
    "python3 tasks.py mutate [MODULE...]\n"
    "  mutmut (requirements-dev.in) over each MODULE, a path such as policy/ingress.py\n"
    "  (default: every module of MUTATION_TESTS in tools/tasks/mutation_tests.py), in a\n"
    "  scratch copy of the tree (out/mutate/MODULE/), against only the tests MUTATION_TESTS\n"
    "  maps it to; prints and writes out/mutate/scores.md (mutants, killed, survived, not run,\n"
    "  score per module) and each module's survivors.txt and not-run.txt; exits 1 if any\n"
    "  mutant's tests did not run. Minutes per module on 2 cores: not part of `test` or CI"
)


def mutate(modules: list[str]) -> None:
    """mutmut over each module, in its own scratch copy of the tree (out/mutate/MODULE/).

    Only the module is mutated and only its tests of MUTATION_TESTS run (mutmut runs, for each
    mutant, those of them that reach the mutated function). Prints, and writes to
    out/mutate/scores.md, a table of mutants, killed, survived, not run and score per module;
    the survivors of each are listed under out/mutate/MODULE/survivors.txt and the mutants
    whose tests did not run under not-run.txt (`mutmut show NAME` there prints a mutant's
    diff). Exits 1 when any mutant's tests did not run: that module has no score.
    """
    unknown = [m for m in modules if m not in MUTATION_TESTS]
    if unknown:
        sys.exit(f"not in MUTATION_TESTS: {', '.join(unknown)}\n{MUTATE_HELP}")
    chosen = modules or list(MUTATION_TESTS)
    # Before any run, once for every selection (they share paths): a moving id spoils every
    # mutant whose tests include it.
    moved = moving_test_ids(selection_of(chosen))
    if moved:
        sys.exit(
            "mutmut could not select these tests by id, because pytest gives them another id "
            "when it collects twice in one process (an `ids=` id that pytest escapes, e.g. "
            "one with a newline); give them ids of printable ASCII without a backslash:\n"
            + "\n".join(f"  {test}" for test in moved)
        )
    rows = [_mutate_one(module) for module in chosen]
    table = [
        "| module | mutants | killed | survived | not run | score |",
        "|---|---:|---:|---:|---:|---:|",
        *(
            f"| `{r.module}` | {r.mutants} | {r.killed} | {r.survived} | {r.not_run} | {r.score} |"
            for r in rows
        ),
    ]
    (MUTATE_DIR / "scores.md").write_text("\n".join(table) + "\n")
    print("\n".join(table))
    if any(r.not_run for r in rows):
        sys.exit("some mutants' tests did not run (out/mutate/MODULE/not-run.txt): no score")


def selection_of(modules: list[str]) -> list[str]:
    """Every test path `MUTATION_TESTS` gives `modules`, once each, sorted."""
    return sorted({test for module in modules for test in MUTATION_TESTS[module]})


# What mutmut's exit codes mean for a score, under its fork server (`_mutate_one` sets it).
# There a test run that raised exits 255 (e.g. pytest's usage error 4 for a test id it cannot
# find), which `mutmut results` reports as "timeout", so it would count as killed; under
# mutmut's plain fork runner the same failure exits 1, a "kill" no exit code can tell apart.
# Only a real timeout counts here: SIGXCPU (24, -24 or 152 as mutmut records it; 36 is the
# code its table reserves for one). A -9 (the CPU limit's SIGKILL, or memory) or -11 has no
# verdict: its module has no score until the mutant is looked at (`mutmut show NAME`).
_KILLED_EXITS = {1, 3, 37}  # a test failed (3: pytest's internal error), the type check
_TIMEOUT_EXITS = {24, -24, 152, 36}
_SURVIVED_EXITS = {0, 5, 33}  # every test passed, or none reached the mutant


def verdict(exit_code: int | None) -> str:
    """'killed', 'survived' or 'not run' for a mutant's recorded exit code."""
    if exit_code in _KILLED_EXITS or exit_code in _TIMEOUT_EXITS:
        return "killed"
    if exit_code in _SURVIVED_EXITS:
        return "survived"
    return "not run"


@dataclass(frozen=True)
class Score:
    """One module's mutants by verdict; no score while any mutant's tests did not run."""

    module: str
    by_mutant: dict[str, str]

    def names(self, kind: str) -> list[str]:
        return sorted(name for name, v in self.by_mutant.items() if v == kind)

    @property
    def mutants(self) -> int:
        return len(self.by_mutant)

    @property
    def killed(self) -> int:
        return len(self.names("killed"))

    @property
    def survived(self) -> int:
        return len(self.names("survived"))

    @property
    def not_run(self) -> int:
        return len(self.names("not run"))

    @property
    def score(self) -> str:
        if self.not_run:
            return "none"
        return f"{100 * self.killed / self.mutants if self.mutants else 100:.0f}%"


def score_of(module: str, exit_codes: Mapping[str, int | None]) -> Score:
    """The module's mutants (mutmut's meta file: mutant name -> exit code) by verdict."""
    dotted = module.removesuffix(".py").replace("/", ".") + "."
    return Score(
        module,
        {name: verdict(code) for name, code in exit_codes.items() if name.startswith(dotted)},
    )


# Collects the given tests twice in one process, as mutmut does (its stats run records each
# test's id; each mutant's run then selects tests by those ids in a process that collected
# before), and writes the ids of the first collection that the second one lacks; it exits
# non-zero, writing nothing, unless both collections succeed and find tests.
_COLLECT_TWICE = """
import json, sys, pytest
class Ids:
    ids: list = []
    def pytest_collection_modifyitems(self, items):
        self.ids = [item.nodeid for item in items]
runs = []
args = ["-qq", "--collect-only", "-p", "no:cacheprovider", *sys.argv[2:]]
for _ in range(2):
    ids = Ids()
    code = pytest.main(args, plugins=[ids])
    if code != 0 or not ids.ids:
        sys.exit(int(code) or 5)
    runs.append(ids.ids)
json.dump(sorted(set(runs[0]) - set(runs[1])), open(sys.argv[1], "w"))
"""


def moving_test_ids(tests: tuple[str, ...] | list[str], cwd: Path = ROOT) -> list[str]:
    """The ids of `tests` that a second collection in the same process does not give again;
    exits naming the tests when they cannot be collected (or hold no test)."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "moved.json"
        done = subprocess.run(
            [str(BIN / "python"), "-c", _COLLECT_TWICE, str(out), *tests],
            cwd=cwd,
            check=False,
            capture_output=True,
        )
        if done.returncode != 0 or not out.exists():
            sys.exit(
                f"could not collect {' '.join(tests)} (pytest exit {done.returncode}; run "
                "pytest --collect-only on them)"
            )
        moved: list[str] = json.loads(out.read_text())
        return moved


def _ignored(folder: str, names: list[str]) -> set[str]:
    return {n for n in names if n in _NOT_COPIED or n.endswith("_cache")}


def _mutate_one(module: str) -> Score:
    """Run mutmut over one module in its scratch tree and read each mutant's exit code."""
    tree = MUTATE_DIR / module.removesuffix(".py").replace("/", ".")
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(ROOT, tree, ignore=_ignored)
    package = module.split("/", maxsplit=1)[0]
    others = sorted(p.name for p in tree.iterdir() if p.name != package)
    lines = [
        "[mutmut]",
        f"source_paths = {package}",
        f"only_mutate = {module}",
        "also_copy =",
        *(f"    {name}" for name in others),
        "pytest_add_cli_args_test_selection =",
        *(f"    {test}" for test in MUTATION_TESTS[module]),
        "pytest_add_cli_args =",
        "    -p",
        "    no:cacheprovider",
        "use_git_change_detection = false",
        # Each mutant in a process forked from a fresh server, not from the one that ran the
        # baseline: a fork inherits run_program's asyncio default thread pool without its
        # threads, so every test that registers a resource would wait for mutmut's timeout,
        # and a timeout counts as killed (scores then overstate the tests).
        "process_isolation = forkserver",
    ]
    (tree / "setup.cfg").write_text("\n".join(lines) + "\n")
    env = {**os.environ, "GPU_CI_UPSTREAM": str(ROOT.parent / "shared" / "upstream")}
    print(f"== mutmut: {module} against {len(MUTATION_TESTS[module])} test paths", flush=True)
    cores = str(os.cpu_count() or 2)
    with (tree / "mutmut.log").open("w") as log:  # its progress spinner: a log, not the terminal
        ran = subprocess.run(
            [str(BIN / "mutmut"), "run", "--max-children", cores],
            cwd=tree,
            env=env,
            check=False,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    meta = tree / "mutants" / f"{module}.meta"  # written even for a module with no mutants
    if ran.returncode != 0 or not meta.exists():
        sys.exit(f"{module}: mutmut failed (exit {ran.returncode}); see {tree / 'mutmut.log'}")
    exit_codes = json.loads(meta.read_text())["exit_code_by_key"]
    score = score_of(module, exit_codes)
    for kind, listing in (("survived", "survivors.txt"), ("not run", "not-run.txt")):
        codes = {name: exit_codes[name] for name in score.names(kind)}
        (tree / listing).write_text("".join(f"{n}: exit {c}\n" for n, c in codes.items()))
    return score
