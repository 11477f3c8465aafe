"""The action's configure step (scripts/configure.py) called in this process.

configure.py is a script beside the action, not a package module: as when it runs as a
script, its folder goes first on sys.path, and it and the modules it is split into (each
by its name, `load_script`) are imported from there. `Job` gives it what the prepare step
and action.yml give it in a job (the folder with `env`, the INPUT_* variables,
GITHUB_OUTPUT) and runs `configure(work)`, which plans the stack with the program's CLI
as in a job, catching its `sys.exit`.
"""

from __future__ import annotations

import importlib
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from .action_sandbox import DEFAULT_INPUTS, REPO, SCRIPTS

STACK = "gpu-cluster-kind"


def load_script(name: str) -> ModuleType:
    """The action's module `name` (`configure`, `input_origins`, ...) from its scripts."""
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    return importlib.import_module(name)


def load_configure() -> ModuleType:
    return load_script("configure")


@dataclass(frozen=True)
class Outcome:
    """What one configure run printed, and its exit code."""

    code: int
    stdout: str
    stderr: str

    @property
    def annotations(self) -> list[str]:
        return [line for line in self.stdout.splitlines() if line.startswith("::")]

    @property
    def printed(self) -> str:
        return self.stdout + self.stderr


class Job:
    """A job's configure step: its folder, the project, the workspace and the inputs."""

    def __init__(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        self.module = load_configure()
        self.monkeypatch, self.capsys = monkeypatch, capsys
        self.work = tmp_path / "work"
        self.project = tmp_path / "project"
        self.workspace = tmp_path / "workspace"
        for folder in (self.work, self.project, self.workspace):
            folder.mkdir()
        shutil.copy(REPO / "Pulumi.yaml", self.project / "Pulumi.yaml")
        (self.work / "env").write_text(
            f"GPU_CI_PROGRAM={REPO}\nGPU_CI_PROJECT={self.project}\nGPU_CI_STACK={STACK}\n"
        )
        for name in os.environ:
            if name.startswith("INPUT_") or name == "GPU_CI_ALIASES":
                monkeypatch.delenv(name)
        for name, value in DEFAULT_INPUTS.items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "github-output"))
        monkeypatch.setenv("GITHUB_WORKSPACE", str(self.workspace))

    def set(self, **inputs: str) -> None:
        for key, value in inputs.items():
            self.monkeypatch.setenv(f"INPUT_{key.upper()}", value)

    def configure(self, **inputs: str) -> Outcome:
        self.set(**inputs)
        self.capsys.readouterr()
        try:
            self.module.configure(self.work)
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 1
        out = self.capsys.readouterr()
        return Outcome(code, out.out, out.err)

    @property
    def planned(self) -> bool:
        return (self.work / "plan.json").exists()
