"""tasks.py's set-up installs the lock with uv, itself installed first by pip from the dev
lock's pin with its hashes; pip where uv cannot be had or fails, or is not chosen (issue 41).

The commands are recorded by tests.test_tasks_setup's Machine; the last test runs them as
checkout.run and checkout.attempt do, against stand-ins for .venv's python and uv.
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest
from packaging.utils import canonicalize_name

from tests.test_dependency_lock import read_lock
from tests.test_tasks_setup import DEV, RUNTIME, UV_LINE, Machine, _done, installing
from tools.tasks import locks, venv_setup


def test_a_fresh_plan_installs_uv_then_the_lock_with_it_each_phase_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    machine = Machine(tmp_path, monkeypatch, terminal=False)
    venv_setup.setup(RUNTIME)
    python = str(machine.venv / "bin" / "python")
    requirement = str(machine.venv / venv_setup.UV_REQUIREMENT)
    pip = (python, "-m", "pip", "install", "--disable-pip-version-check")
    uv = str(machine.venv / "bin" / "uv")
    assert machine.log[:6] == [
        f"tasks.py: creating the virtualenv .venv (Python {sys.version.split()[0]}, with pip)",
        ("venv", str(machine.venv)),
        UV_LINE,
        (*pip, "--progress-bar", "off", "--require-hashes", "-r", requirement),
        installing(RUNTIME),
        (uv, "pip", "install", "--require-hashes", "-r", RUNTIME, "--python", python),
    ]
    _done(machine.log[-1])
    assert len(machine.log) == 7
    # uv comes from the dev lock's own entry: its pin and every hash, pip checking each file
    entry = read_lock(DEV)[canonicalize_name("uv")]
    assert machine.uv_requirement.startswith(f"uv=={entry.version} \\\n")
    assert set(re.findall(r"--hash=sha256:(\w+)", machine.uv_requirement)) == entry.hashes
    assert not (machine.venv / venv_setup.UV_REQUIREMENT).exists()  # removed after
    assert venv_setup.STAMP.read_text() == f"{venv_setup._digest()} {RUNTIME}"


def test_a_uv_that_pip_cannot_install_leaves_the_lock_to_pip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    machine = Machine(tmp_path, monkeypatch, terminal=False, faults={"pip": 1})
    venv_setup.setup(RUNTIME)
    assert machine.log[2:6] == [
        UV_LINE,
        machine.uv_bootstrap(),
        "tasks.py: pip could not install uv (exit 1): pip installs the lock instead",
        installing(RUNTIME, "pip"),
    ]
    assert machine.log[6:7] == [machine.pip()] and "--require-hashes" in machine.pip()
    _done(machine.log[-1])
    assert len(machine.log) == 8


def test_a_uv_that_fails_leaves_the_lock_to_pip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A uv that cannot reach the index pip is configured for (pip.conf), say."""
    machine = Machine(tmp_path, monkeypatch, terminal=False, faults={"uv": 2})
    venv_setup.setup(RUNTIME)
    assert machine.log[4:8] == [
        installing(RUNTIME),
        machine.uv(),
        f"tasks.py: uv pip install failed (exit 2): pip installs {RUNTIME} instead",
        machine.pip(),
    ]
    assert "--require-hashes" in machine.pip()
    _done(machine.log[-1])
    assert len(machine.log) == 9


@pytest.mark.parametrize("value", ["1", ""])
def test_uv_compiles_bytecode_only_where_python_will_not_cache_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    """PYTHONDONTWRITEBYTECODE (a non-empty value, as Python reads it) would make every plan
    compile the SDKs' modules again: then uv compiles them at install, as pip always does."""
    machine = Machine(tmp_path, monkeypatch, terminal=False)
    monkeypatch.setenv(venv_setup.NO_BYTECODE, value)
    venv_setup.setup(RUNTIME)
    python = str(machine.venv / "bin" / "python")
    tail = ("-r", RUNTIME, "--python", python, *(["--compile-bytecode"] if value else []))
    assert machine.uv()[4:] == tail
    said = (
        "tasks.py: PYTHONDONTWRITEBYTECODE is set: uv compiles every module now (half a "
        "minute), not each plan"
    )
    before = machine.log[machine.log.index(machine.uv()) - 1]
    assert (before == said) == bool(value)  # said just before uv runs, and only then
    assert (said in machine.lines()) == bool(value)


def test_an_installer_that_is_neither_stops_naming_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    machine = Machine(tmp_path, monkeypatch, terminal=False, installer="poetry")
    with pytest.raises(SystemExit) as stopped:
        venv_setup.setup(RUNTIME)
    assert stopped.value.code == "tasks.py: GPU_CI_INSTALLER='poetry': give uv (the default) or pip"
    assert machine.log == []


def _stand_in(path: Path, record: Path, extra: str = "") -> None:
    """An executable that appends its argv (one line, NUL-separated) to `record`."""
    path.write_text(f"#!/bin/sh\nprintf '%s\\0' \"$@\" >> {record}\necho >> {record}\n{extra}")
    path.chmod(0o755)


@pytest.mark.parametrize("uv_exit", [0, 3])
def test_stand_ins_for_python_and_uv_record_the_real_commands(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    uv_exit: int,
) -> None:
    """The commands as checkout.run and checkout.attempt start them: a stand-in python
    (pip) that, given uv's requirement, keeps it and puts a stand-in uv in .venv/bin."""
    if sys.platform == "win32":
        pytest.skip("the stand-ins are shell scripts")
    bin_ = tmp_path / ".venv" / "bin"
    bin_.mkdir(parents=True)
    records = {name: tmp_path / f"{name}.argv" for name in ("python", "uv")}
    uv_script = (
        f"printf '%s\\0' \"$@\" >> {records['uv']}\necho >> {records['uv']}\nexit {uv_exit}\n"
    )
    _stand_in(
        bin_ / "python",
        records["python"],
        f'case "$*" in *{venv_setup.UV_REQUIREMENT}*)\n'
        f'  cp "$(eval echo \\${{$#}})" {tmp_path}/uv-requirement.txt\n'
        f"  printf '%s' {shlex.quote('#!/bin/sh' + chr(10) + uv_script)} > {bin_}/uv\n"
        f"  chmod +x {bin_}/uv;;\nesac\n",
    )
    monkeypatch.setattr(venv_setup, "VENV", tmp_path / ".venv")
    monkeypatch.setattr(venv_setup, "BIN", bin_)
    monkeypatch.setattr(venv_setup, "STAMP", tmp_path / ".venv" / ".requirements.sha256")
    monkeypatch.delenv(venv_setup.INSTALLER, raising=False)
    monkeypatch.delenv(venv_setup.NO_BYTECODE, raising=False)
    venv_setup.setup(RUNTIME)

    def calls(name: str) -> list[list[str]]:
        text = records[name].read_text() if records[name].exists() else ""
        return [line.split("\0")[:-1] for line in text.splitlines()]

    head = ["-m", "pip", "install", "--disable-pip-version-check", "--progress-bar", "off"]
    requirement = str(tmp_path / ".venv" / venv_setup.UV_REQUIREMENT)
    pip_calls = [[*head, "--require-hashes", "-r", requirement]]
    if uv_exit:
        pip_calls.append([*head, "--require-hashes", "-r", RUNTIME])
    assert calls("python") == pip_calls
    assert calls("uv") == [
        ["pip", "install", "--require-hashes", "-r", RUNTIME, "--python", str(bin_ / "python")]
    ]
    assert (tmp_path / "uv-requirement.txt").read_text() == locks.locked_entry(DEV, "uv")
    assert venv_setup.STAMP.read_text() == f"{venv_setup._digest()} {RUNTIME}"
    fallback = f"tasks.py: uv pip install failed (exit 3): pip installs {RUNTIME} instead"
    assert (fallback in capsys.readouterr().out.splitlines()) == bool(uv_exit)
