"""The collector's parts called in this process, against collect_sandbox's stand-ins.

test_collect_step.py runs the collect step as the job does (collect.sh, then collect.py in
a process of its own), which no mutant of the collector's modules reaches: mutmut's
mutants run only in the test's process (collect_modules.py). Here the same stand-ins
(kubectl, kind, helm, nvidia-smi, docker, journalctl, dmesg answering from files) are on
this process's PATH, so a `Runner` of collect_run, and the modules built on it, run
their commands against them; `main` runs collect.py's entry point with the arguments
collect.sh gives it on a runner that never ran `up`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ..action_sandbox import ActionSandbox
from .collect_modules import module
from .collect_sandbox import CollectRig

collect_run = module("collect_run")


@dataclass
class InProcess:
    """One runner's stand-ins, on this process's PATH."""

    rig: CollectRig
    staging: Path

    @property
    def sandbox(self) -> Any:
        return self.rig.runner.sandbox

    def runner(self, *, timeout: float = 10.0, budget: float = 120.0, sudo: bool = False) -> Any:
        """A collect_run Runner staging into a fresh folder."""
        return collect_run.Runner(self.staging, timeout, budget, sudo)

    def calls(self) -> list[str]:
        """What the stand-ins were asked, in order (`NAME ARGS`)."""
        log = self.sandbox.base / "calls.log"
        return [line for line in log.read_text().splitlines() if line] if log.exists() else []

    def shipped(self) -> dict[str, str]:
        """Every file staged to be shipped, by its path under ship/."""
        ship = self.staging / "ship"
        return {
            p.relative_to(ship).as_posix(): p.read_text(encoding="utf-8", errors="replace")
            for p in sorted(ship.rglob("*"))
            if p.is_file()
        }

    def main(self, *extra: str, work: bool = True) -> int:
        """collect.py's main with collect.sh's arguments (no plan.env: no `up` ran here)."""
        runner = self.rig.runner
        args = [
            "--out",
            str(self.rig.bundle),
            "--cluster",
            "kind",
            "--root",
            str(self.sandbox.root),
            "--result",
            str(runner.work / "collect.result"),
        ]
        runner.work.mkdir(parents=True, exist_ok=True)  # collect.sh makes it first
        if work:
            args += ["--work", str(runner.work), "--redact-file", str(runner.work / "passphrase")]
        code: int = module("collect").main([*args, *extra])
        return code

    def result(self) -> dict[str, str]:
        lines = (self.rig.runner.work / "collect.result").read_text().splitlines()
        return dict(line.split("=", 1) for line in lines)


def in_process(runner: ActionSandbox, monkeypatch: pytest.MonkeyPatch) -> InProcess:
    """The stand-ins of a CollectRig on PATH, as Sandbox.run_file gives a step its own."""
    rig = CollectRig(runner)
    sandbox = runner.sandbox
    monkeypatch.setenv("PATH", str(sandbox.bin))
    monkeypatch.setenv("SANDBOX", str(sandbox.base))
    monkeypatch.setenv("HOME", str(sandbox.base))
    monkeypatch.setenv("LC_ALL", "C")
    for name in os.environ:
        if name.startswith("KUBECONFIG"):
            monkeypatch.delenv(name)
    return InProcess(rig, sandbox.base / "staging")
