"""The diagnostics collector's sources, each bounded in time and never fatal.

A source is one command (or one file read) whose output lands in the raw staging folder.
Each runs in its own session with stdout and stderr in files, so a source that hangs, or
leaves a child holding its output open, is ended by its process group (SIGTERM, then
SIGKILL five seconds later) at its time bound, and the collector goes on: every source
ends as one `Record` (ok, failed, timed out, skipped, absent) for the summary. A command
run as root goes through `sudo -n` when the collector is not root, and sudo relays the
SIGTERM to it (sudo(8), "Signal handling").

The collector is stdlib-only: it also runs on a self-managed GPU host, where the program
and its virtualenv are not (docs/ci-integration.md#diagnostics-on-a-self-managed-host).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

OK, FAILED, TIMED_OUT, SKIPPED, ABSENT = "ok", "failed", "timed out", "skipped", "absent"
GRACE_S = 5.0
"""After SIGTERM, how long a source's process group has before SIGKILL."""
MAX_PARSED = 64 << 20
"""The most bytes of one JSON answer the collector parses (a larger one is a failure)."""


@dataclass
class Record:
    """What became of one source: shown in SUMMARY.md and collect.log."""

    name: str
    status: str
    path: str = ""
    detail: str = ""


@dataclass
class Done:
    """A finished command: its exit code (None: timed out or not run) and stdout's file."""

    ok: bool
    stdout: Path | None

    def text(self) -> str:
        if self.stdout is None or not self.stdout.is_file():
            return ""
        return self.stdout.read_bytes()[:MAX_PARSED].decode("utf-8", "replace")


@dataclass
class Runner:
    """Runs the sources into `staging`: `ship/` (what the bundle gets, before redaction)
    and `scratch/` (JSON answers and stderr, never shipped)."""

    staging: Path
    source_timeout: float
    budget: float
    sudo: bool
    env: dict[str, str] = field(default_factory=dict)
    records: list[Record] = field(default_factory=list)
    _count: int = 0
    _deadline: float = 0.0

    def __post_init__(self) -> None:
        self._deadline = time.monotonic() + self.budget
        (self.staging / "ship").mkdir(parents=True, exist_ok=True)
        (self.staging / "scratch").mkdir(parents=True, exist_ok=True)

    @property
    def ship(self) -> Path:
        return self.staging / "ship"

    def as_root(self, argv: list[str]) -> list[str]:
        return ["sudo", "-n", *argv] if self.sudo and os.geteuid() != 0 else argv

    def run(
        self,
        name: str,
        argv: list[str],
        rel: str = "",
        *,
        factor: float = 1.0,
        root: bool = False,
        record: bool = True,
    ) -> Done:
        """`argv`, bounded by `factor` times the source timeout (and the time left); its
        stdout in ship/`rel` (or scratch, when `rel` is empty)."""
        self._count += 1
        left = self._deadline - time.monotonic()
        if left <= 0:
            return self._end(name, rel, SKIPPED, "the collect's time budget was spent", record)
        bound = min(self.source_timeout * factor, left)
        out = self.ship / rel if rel else self.staging / "scratch" / f"{self._count}.out"
        err = self.staging / "scratch" / f"{self._count}.err"
        out.parent.mkdir(parents=True, exist_ok=True)
        command = self.as_root(argv) if root else argv
        try:
            with out.open("wb") as stdout, err.open("wb") as stderr:
                proc = subprocess.Popen(
                    command,
                    stdin=subprocess.DEVNULL,
                    stdout=stdout,
                    stderr=stderr,
                    start_new_session=True,
                    env={**os.environ, **self.env},
                )
        except OSError as error:
            return self._end(name, rel, FAILED, f"{argv[0]}: {error.strerror}", record)
        try:
            code = proc.wait(timeout=bound)
        except subprocess.TimeoutExpired:
            _stop(proc)
            return self._end(name, rel, TIMED_OUT, f"after {bound:.0f} s", record, out)
        if code != 0:
            detail = f"exit {code}: {_last_line(err)}"
            return self._end(name, rel, FAILED, detail, record, out)
        if record:
            self.records.append(Record(name, OK, rel))
        return Done(True, out)

    def _end(
        self, name: str, rel: str, status: str, detail: str, record: bool, out: Path | None = None
    ) -> Done:
        if record:
            self.records.append(Record(name, status, rel, detail))
        return Done(False, out)

    def note(self, name: str, status: str, rel: str = "", detail: str = "") -> None:
        self.records.append(Record(name, status, rel, detail))

    def copy(self, name: str, source: Path, rel: str) -> None:
        """One host file into ship/`rel`; through `sudo -n cat` when it is not readable."""
        if not source.exists():
            self.note(name, ABSENT, rel, f"no {source}")
            return
        target = self.ship / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            with source.open("rb") as src, target.open("wb") as dst:
                dst.write(src.read(MAX_PARSED))
        except PermissionError:
            self.run(name, ["cat", "--", str(source)], rel, root=True)
            return
        except OSError as error:
            self.note(name, FAILED, rel, f"{source}: {error.strerror}")
            return
        self.note(name, OK, rel)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """End the source's whole process group: SIGTERM, then SIGKILL after GRACE_S."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=GRACE_S)
            return
        except subprocess.TimeoutExpired:
            continue


def _last_line(path: Path) -> str:
    lines = [line for line in path.read_bytes()[-4096:].decode("utf-8", "replace").splitlines()]
    lines = [line.strip() for line in lines if line.strip()]
    return lines[-1][:300] if lines else "(nothing on stderr)"


def parsed(done: Done) -> Any:
    """A source's JSON answer; None when it failed or is not JSON."""
    if not done.ok:
        return None
    try:
        return json.loads(done.text())
    except (ValueError, RecursionError):
        return None


def parsed_file(path: Path) -> Any:
    """The action's own JSON files (plan.json, versions.json); None when absent or bad."""
    try:
        if path.is_file() and path.stat().st_size <= MAX_PARSED:
            return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        pass
    return None
