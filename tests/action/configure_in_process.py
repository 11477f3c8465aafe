"""The action's configure step (scripts/configure.py) called in this process.

configure.py is a script beside the action, not a package module: run as a script, its
folder goes first on sys.path and it imports the modules it is split into by their bare
names (`from given_inputs import ...`). Here each of them is imported by that bare name
too (`load_script`), by a finder for its folder (the collector's modules have their own,
`scripts/collect/`), but runs under the dotted name of its path from the repository root
(`.github.actions.gpu-cluster.scripts.configure`): the name mutmut gives its mutants, so
that `python3 tasks.py mutate` reaches them in this process (its trampolines switch on the
function's `__module__`). `Job` gives the
step what the prepare step and action.yml give it in a job (the folder with `env`, the
INPUT_* variables, GITHUB_OUTPUT) and runs `configure(work)`, which plans the stack with
the program's CLI as in a job, catching its `sys.exit`.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import os
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from .action_sandbox import DEFAULT_INPUTS, REPO, SCRIPTS

STACK = "gpu-cluster-kind"


def dotted_name(file: Path) -> str:
    """A script's module name as mutmut gives it: its path from the root, dotted."""
    return ".".join(file.relative_to(REPO).with_suffix("").parts)


class _Loader(importlib.machinery.SourceFileLoader):
    """Runs a script module under its dotted name (its functions' `__module__`), also
    registered in sys.modules (dataclasses look their module up there)."""

    def exec_module(self, module: ModuleType) -> None:
        code = self.get_code(self.name)
        assert code is not None
        module.__name__ = dotted_name(Path(self.path))
        sys.modules[module.__name__] = module
        exec(code, module.__dict__)


class _ScriptFinder(importlib.abc.MetaPathFinder):
    """The action's scripts of one folder by their bare names, as they import one another."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        file = self.folder / f"{fullname}.py"
        if "." in fullname or not file.is_file():
            return None
        return importlib.util.spec_from_file_location(
            fullname, file, loader=_Loader(fullname, str(file))
        )


def load_script(name: str, folder: Path = SCRIPTS) -> ModuleType:
    """The action's module `name` (`configure`, `input_origins`, ...) from its scripts (or
    from another of its folders)."""
    if not any(isinstance(f, _ScriptFinder) and f.folder == folder for f in sys.meta_path):
        sys.meta_path.insert(0, _ScriptFinder(folder))
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
    """A job's configure step: its folder ($RUNNER_TEMP/gpu-ci/kind, as the step checks),
    the project, the workspace and the inputs."""

    def __init__(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        self.module = load_configure()
        self.monkeypatch, self.capsys = monkeypatch, capsys
        self.temp = tmp_path / "runner-temp"
        self.work = self.temp / "gpu-ci" / "kind"
        self.project = tmp_path / "project"
        self.workspace = tmp_path / "workspace"
        for folder in (self.work, self.project, self.workspace):
            folder.mkdir(parents=True)
        shutil.copy(REPO / "Pulumi.yaml", self.project / "Pulumi.yaml")
        (self.work / "env").write_text(
            "# Written by the gpu-cluster action's prepare step; read by its later steps.\n\n"
            f"GPU_CI_PROGRAM={REPO}\nGPU_CI_PROJECT={self.project}\nGPU_CI_STACK={STACK}\n"
        )
        for name in os.environ:
            if name.startswith(("INPUT_", "PYTHON")) or name == "GPU_CI_ALIASES":
                monkeypatch.delenv(name)
        for name, value in DEFAULT_INPUTS.items():
            monkeypatch.setenv(name, value)
        self.output = tmp_path / "github-output"
        monkeypatch.setenv("GITHUB_OUTPUT", str(self.output))
        monkeypatch.setenv("GITHUB_WORKSPACE", str(self.workspace))
        monkeypatch.setenv("RUNNER_TEMP", str(self.temp))
        monkeypatch.setenv("GPU_CI_WORK", str(self.work))

    def set(self, **inputs: str) -> None:
        for key, value in inputs.items():
            self.monkeypatch.setenv(f"INPUT_{key.upper()}", value)

    def run(self, call: Callable[[], object]) -> Outcome:
        """`call()`, what it printed and its exit code (0 when it returns)."""
        self.capsys.readouterr()
        try:
            call()
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 1
        out = self.capsys.readouterr()
        return Outcome(code, out.out, out.err)

    def configure(self, **inputs: str) -> Outcome:
        self.set(**inputs)
        return self.run(lambda: self.module.configure(self.work))

    def main(self, *argv: str) -> Outcome:
        """configure.py's entry point, as `configure.py ARGV...` runs it."""
        return self.run(lambda: self.module.main(list(argv)))

    @property
    def planned(self) -> bool:
        return (self.work / "plan.json").exists()
