"""Where the checkout and its .venv are, and how a task runs a command in the checkout."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if sys.platform == "win32" else "bin")


def attempt(*argv: object) -> int:
    """Run a command at the checkout's root, its output left to it; its exit code (127 when
    it cannot be started), for a caller that has another way if it fails."""
    try:
        return subprocess.run([str(a) for a in argv], cwd=ROOT, check=False).returncode
    except OSError as err:
        print(f"tasks.py: cannot run {argv[0]}: {err.strerror}", flush=True)
        return 127


def run(*argv: object) -> None:
    """Run a command at the checkout's root, its output left to it; exit with its code if
    it fails."""
    done = subprocess.run([str(a) for a in argv], cwd=ROOT, check=False)
    if done.returncode != 0:
        sys.exit(done.returncode)
