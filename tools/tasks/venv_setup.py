"""Each task's set-up: .venv holding the lock the task needs, installed hash-checked.

It says each phase and how much it installs, and runs again only when a requirements file
changed, or a task needs the tools that .venv lacks (`STAMP` records what it installed).
"""

from __future__ import annotations

import hashlib
import sys
import time
import venv

from tools.tasks.checkout import BIN, ROOT, VENV, run
from tools.tasks.locks import DEV_LOCK, LOCKS, REQUIREMENTS, RUNTIME_LOCK, locked_packages

STAMP = VENV / ".requirements.sha256"
# What each lock's packages take on disk once installed: the sizes of the files their RECORDs
# list, measured on Linux x86_64 with Python 3.11 (pulumi-oci alone is ~330 MB of it). Only a
# figure for the set-up to announce; tests/test_tasks_setup.py re-measures it in .venv.
INSTALLED_MB = {RUNTIME_LOCK: 470, DEV_LOCK: 680}


def _digest() -> str:
    data = b"".join((ROOT / name).read_bytes() for name in REQUIREMENTS)
    return hashlib.sha256(data).hexdigest()


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
