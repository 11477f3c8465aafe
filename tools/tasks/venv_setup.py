"""Each task's set-up: .venv holding the lock the task needs, installed hash-checked.

It says each phase and how much it installs, and runs again only when a requirements file
changed, or a task needs the tools that .venv lacks (`STAMP` records what it installed).

The lock is installed by uv (`uv pip install --require-hashes`) where it can be had: on a
fresh 2-core machine that is seconds where pip takes over a minute, mostly compiling the
bytecode of all of pulumi-oci's 3,811 modules, of which the dev plan imports 602 (uv
leaves each to its first import, unless PYTHONDONTWRITEBYTECODE forbids caching it then;
bench/setup_first_command.py, docs/benchmarks.md). uv is
installed first by .venv's own pip, at the dev lock's pin with its hashes, so the set-up
still needs nothing but Python. GPU_CI_INSTALLER=pip installs with pip; a uv that cannot be
installed, or that fails, leaves the install to pip, with a line saying so.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
import venv
from pathlib import Path

from tools.tasks.checkout import BIN, ROOT, VENV, attempt, run
from tools.tasks.locks import (
    DEV_LOCK,
    LOCKS,
    REQUIREMENTS,
    RUNTIME_LOCK,
    locked_entry,
    locked_packages,
)

STAMP = VENV / ".requirements.sha256"
# What each lock's packages take on disk once installed: the sizes of the files their RECORDs
# list, bytecode left out (pip compiles about as much again at install; uv leaves it to each
# module's first import), measured on Linux x86_64 with Python 3.11 (pulumi-oci alone is
# ~150 MB of it). Only a figure for the set-up to announce; tests/test_tasks_setup.py
# re-measures it in .venv, whichever installer made it.
INSTALLED_MB = {RUNTIME_LOCK: 235, DEV_LOCK: 415}


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


INSTALLER = "GPU_CI_INSTALLER"
"""The environment variable that picks the installer: uv (the default) or pip."""
NO_BYTECODE = "PYTHONDONTWRITEBYTECODE"
UV_REQUIREMENT = ".uv-requirement.txt"
"""In .venv: the dev lock's uv entry (pin and hashes), what pip installs uv from."""


def chosen_installer() -> str:
    """uv unless GPU_CI_INSTALLER says pip; any other value stops the set-up, named."""
    value = os.environ.get(INSTALLER, "") or "uv"
    if value not in ("uv", "pip"):
        sys.exit(f"tasks.py: {INSTALLER}={value!r}: give uv (the default) or pip")
    return value


def say(line: str) -> None:
    """A line of the set-up's own, before pip's (flushed, so it never lands after them)."""
    print(f"tasks.py: {line}", flush=True)


def setup(wanted: str = DEV_LOCK) -> None:
    """Make .venv hold the lock `wanted` (or the dev lock, which holds the runtime one).

    Says each phase and how much it installs; the installer's own output follows (a line per
    package; pip's collected and downloaded, then what it installed), with progress bars on a
    terminal and none in a log (pip: `--progress-bar off` when stdout is not a terminal; uv
    draws none there by itself).
    """
    stamp = installed_lock()
    digest = _digest()
    if stamp and stamp[0] == digest and _covers(stamp[1], wanted):
        return
    if sys.version_info < (3, 11):  # noqa: UP036  (a newcomer may run an older python3)
        sys.exit(f"gpu-ci needs Python 3.11 or newer, not {sys.version.split()[0]}")
    installer = chosen_installer()
    started = time.monotonic()
    # A .venv that had the dev lock keeps all of it: a changed lock updates every tool too.
    lock_file = DEV_LOCK if stamp and _covers(stamp[1], DEV_LOCK) else wanted
    packages = locked_packages(lock_file)
    if not (BIN / "python").exists():  # an existing one is updated in place
        say(f"creating the virtualenv .venv (Python {sys.version.split()[0]}, with pip)")
        venv.EnvBuilder(with_pip=True).create(VENV)
    elif stamp and stamp[0] != digest:
        say(f"a requirements file changed since .venv was set up ({stamp[1]}): updating it")
    elif not stamp:
        say("installing into the existing .venv (tasks.py has not set it up before)")
    if installer == "uv" and not _have_uv():
        installer = "pip"
    some = sum(packages.values())
    say(
        f"installing {len(packages)} packages from {lock_file} "
        f"({f'{some} of them only on some platforms or Pythons; ' if some else ''}"
        f"about {INSTALLED_MB[lock_file]} MB before bytecode, as measured on Linux x86_64), "
        f"each file hash-checked: {COMMAND[installer]}"
    )
    if stamp and stamp[1] != lock_file:
        added = len(packages.keys() - locked_packages(stamp[1]).keys())
        more_mb = INSTALLED_MB[lock_file] - INSTALLED_MB[stamp[1]]
        say(
            f".venv has {stamp[1]} already: {added} of them are new (about {more_mb} MB), "
            f"and {installer} skips those that are current"
        )
    _install(lock_file, installer)
    # The dev lock's stamp is the digest alone, as older versions of tasks.py wrote it: each
    # version reads the other's stamps right (to an older one, a runtime stamp is stale).
    STAMP.write_text(digest if lock_file == DEV_LOCK else f"{digest} {lock_file}")
    more = f"; `python3 tasks.py test` adds {DEV_LOCK}" if lock_file == RUNTIME_LOCK else ""
    say(f".venv is set up with {lock_file} in {time.monotonic() - started:.0f} s{more}")


COMMAND = {"uv": "uv pip install --require-hashes", "pip": "pip install --require-hashes"}


def uv_path() -> Path:
    """Where .venv's uv is (or will be, once pip has installed it)."""
    return BIN / ("uv.exe" if sys.platform == "win32" else "uv")


def _pip_install(*args: object) -> tuple[object, ...]:
    """.venv's pip installing `args`, every file hash-checked, its output left on (bars
    only on a terminal: `--progress-bar off` in a log)."""
    bars = () if sys.stdout.isatty() else ("--progress-bar", "off")
    pip = (BIN / "python", "-m", "pip", "install", "--disable-pip-version-check")
    return (*pip, *bars, "--require-hashes", *args)


def _install(lock_file: str, installer: str) -> None:
    """The lock into .venv by `installer`; a uv that fails leaves it to pip, said."""
    if installer == "uv":
        # Python caches a module's bytecode at its first import, so uv leaves it to then;
        # where Python is told not to (PYTHONDONTWRITEBYTECODE), every plan would compile
        # pulumi-oci's modules again (4-7 s a plan here): uv compiles all at install, as pip does.
        compiled = ("--compile-bytecode",) if os.environ.get(NO_BYTECODE) else ()
        if compiled:
            say(
                f"{NO_BYTECODE} is set: uv compiles every module now (half a minute), not each plan"
            )
        python = ("--python", BIN / "python", *compiled)
        failed = attempt(uv_path(), "pip", "install", "--require-hashes", "-r", lock_file, *python)
        if not failed:
            return
        say(f"uv pip install failed (exit {failed}): pip installs {lock_file} instead")
    run(*_pip_install("-r", lock_file))


def _have_uv() -> bool:
    """.venv's uv, installed first by pip where it is not there (the dev lock's pin, every
    file hash-checked); False, said, where it cannot be."""
    if uv_path().exists():
        return True
    entry = locked_entry(DEV_LOCK, "uv")
    if not entry:
        say(f"{DEV_LOCK} pins no uv: pip installs the lock")
        return False
    version = entry.partition("==")[2].split()[0]
    say(
        f"installing uv {version} first, with pip ({DEV_LOCK}'s pin, hash-checked): "
        "it installs the lock in seconds, where pip takes a minute or more"
    )
    requirement = VENV / UV_REQUIREMENT
    requirement.write_text(entry)
    failed = attempt(*_pip_install("-r", requirement))
    requirement.unlink()
    if failed:
        say(f"pip could not install uv (exit {failed}): pip installs the lock instead")
    return not failed
