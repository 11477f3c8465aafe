"""The lock files pin exactly the closure of the direct pins, with hashes, and are what installs.

`requirements.in` and `requirements-dev.in` are the direct pins people edit; `python3 tasks.py
lock` turns each into a lock (`requirements.txt`, `requirements-dev.txt`): every transitive
dependency pinned with `==` and the SHA-256 of each of its files. tasks.py's set-up and .ci/run
install the dev lock with `uv pip install --require-hashes` (uv itself from the dev lock's pin,
by pip, hash-checked; or pip's own `--require-hashes`); Pulumi's pip toolchain installs
`requirements.txt`, where pip's hash-checking mode turns on by itself (a requirement has a hash).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import venv
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name

import tasks
from tools.tasks import checkout, locks, venv_setup

ROOT = Path(tasks.__file__).resolve().parent
RUNTIME_LOCK, DEV_LOCK = "requirements.txt", "requirements-dev.txt"
_HASH = re.compile(r"--hash=sha256:([0-9a-f]{64})")
# `-r FILE`, `-r "$side/FILE"`: what a pip install line installs.
_INSTALLED_FILE = re.compile(r"""-r\s+["']?(?:\$\w+/)?([\w./-]*requirements[\w.-]*)""")
_VIA = re.compile(r"^via\b\s*")


@dataclass(frozen=True)
class Locked:
    name: NormalizedName
    version: str
    marker: str
    hashes: frozenset[str]
    via: tuple[str, ...]  # uv's `# via` notes: the packages that need it, `-r FILE`, `-c FILE`

    def applies_here(self) -> bool:
        return Marker(self.marker).evaluate() if self.marker else True


def read_lock(name: str) -> dict[NormalizedName, Locked]:
    """Each entry of a lock with its `# via` notes; refuses what a lock must not hold."""
    found: list[tuple[str, list[str]]] = []  # (the entry's joined lines, its notes)
    joined = ""
    for raw in (ROOT / name).read_text().splitlines():
        line = raw.strip()
        if joined:  # a continuation (`\\` ended the line before)
            joined += " " + line.rstrip("\\").strip()
        elif line.startswith("#"):
            note = _VIA.sub("", line.lstrip("#").strip())
            if found and raw.startswith("    #") and note:
                found[-1][1].append(note)
            continue
        elif line:
            assert not line.startswith("-"), f"{name}: an option line, not a pin: {line}"
            joined = line.rstrip("\\").strip()
        if joined and not line.endswith("\\"):
            found.append((joined, []))
            joined = ""
    entries: dict[NormalizedName, Locked] = {}
    for text, notes in found:
        requirement = Requirement(text.partition(" --hash=")[0].strip())
        specs = list(requirement.specifier)
        assert len(specs) == 1 and specs[0].operator == "==", f"{name}: {text[:60]} not pinned"
        key = canonicalize_name(requirement.name)
        hashes = frozenset(_HASH.findall(text))
        assert hashes, f"{name}: {key} has no --hash=sha256:"
        assert key not in entries, f"{name}: {key} twice"
        marker = str(requirement.marker or "")
        entries[key] = Locked(key, specs[0].version, marker, hashes, tuple(notes))
    return entries


def included_files(name: str) -> list[str]:
    """A requirements .in file and those it includes with `-r`, in order."""
    files = [name]
    for line in (ROOT / name).read_text().splitlines():
        if line.startswith("-r "):
            files += included_files(line.removeprefix("-r ").strip())
    return files


def direct_pins(name: str) -> dict[NormalizedName, str]:
    """The `==` pins of a requirements .in file, with those of the files it includes (`-r`)."""
    pins: dict[NormalizedName, str] = {}
    for raw in (ROOT / name).read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("-r "):
            pins.update(direct_pins(line.removeprefix("-r ").strip()))
            continue
        requirement = Requirement(line)
        specs = list(requirement.specifier)
        assert len(specs) == 1 and specs[0].operator == "==", f"{name}: {line} is not an == pin"
        pins[canonicalize_name(requirement.name)] = specs[0].version
    return pins


@pytest.mark.parametrize(("lock", "direct"), sorted(locks.LOCKS.items()))
def test_every_direct_pin_is_locked_at_its_version(lock: str, direct: str) -> None:
    locked, pins = read_lock(lock), direct_pins(direct)
    stale = {
        name: (version, locked[name].version if name in locked else None)
        for name, version in pins.items()
        if name not in locked or locked[name].version != version
    }
    assert not stale, f"{direct} and {lock} disagree (pin, lock): {stale}; python3 tasks.py lock"


@pytest.mark.parametrize(("lock", "direct"), sorted(locks.LOCKS.items()))
def test_what_the_lock_names_as_direct_is_exactly_the_direct_pins(lock: str, direct: str) -> None:
    """`# via -r FILE` marks a direct pin: one dropped from the .in file leaves the lock too."""
    by_pin = {f"-r {name}" for name in included_files(direct)}
    marked = {entry.name for entry in read_lock(lock).values() if by_pin & set(entry.via)}
    assert marked == set(direct_pins(direct)), "run python3 tasks.py lock"


@pytest.mark.parametrize("lock", sorted(locks.LOCKS))
def test_every_locked_package_is_wanted_by_another_or_by_a_pin(lock: str) -> None:
    locked = read_lock(lock)
    for entry in locked.values():
        assert entry.via, f"{lock}: nothing wants {entry.name}"
        for reason in entry.via:
            if reason.startswith(("-r ", "-c ")):
                assert (ROOT / reason[3:].strip()).is_file(), f"{lock}: {entry.name} via {reason}"
            else:
                assert canonicalize_name(reason) in locked, f"{lock}: {entry.name} via {reason}"


def test_the_dev_lock_holds_the_runtime_lock_unchanged() -> None:
    runtime, dev = read_lock(RUNTIME_LOCK), read_lock(DEV_LOCK)
    differ = {
        name: entry.version
        for name, entry in runtime.items()
        if name not in dev or (dev[name].version, dev[name].hashes) != (entry.version, entry.hashes)
    }
    assert not differ, f"the dev lock has other versions or files of {differ}"


def _installed_closure(roots: dict[NormalizedName, str]) -> tuple[set[NormalizedName], list[str]]:
    """The packages the roots need, read from the installed metadata (markers for this machine)."""
    reached: set[NormalizedName] = set()
    problems: list[str] = []
    queue: list[tuple[NormalizedName, frozenset[str]]] = [(n, frozenset()) for n in roots]
    seen: set[tuple[NormalizedName, frozenset[str]]] = set()
    while queue:
        name, extras = queue.pop()
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        reached.add(name)
        for text in metadata.distribution(name).requires or []:
            requirement = Requirement(text)
            marker = requirement.marker
            if marker and not any(marker.evaluate({"extra": e}) for e in (extras or {""})):
                continue
            dep = canonicalize_name(requirement.name)
            if not requirement.specifier.contains(metadata.version(dep), prereleases=True):
                problems.append(f"{name} needs {text}, installed {metadata.version(dep)}")
            queue.append((dep, frozenset(requirement.extras)))
    return reached, problems


def test_the_lock_is_exactly_the_installed_closure_of_the_direct_pins() -> None:
    """Here (Linux, this Python) the dev lock is the closure its pins' metadata asks for."""
    locked = {n: e for n, e in read_lock(DEV_LOCK).items() if e.applies_here()}
    installed: dict[NormalizedName, str | None] = {}
    for name in locked:
        try:
            installed[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            installed[name] = None
    drift = {n: (e.version, installed[n]) for n, e in locked.items() if installed[n] != e.version}
    if drift:
        message = f"this environment is not {DEV_LOCK}'s (lock: installed): {drift}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message + "; python3 tasks.py test installs it first")
    reached, problems = _installed_closure(direct_pins("requirements-dev.in"))
    assert not problems
    assert reached == set(locked), (
        f"missing from the lock: {sorted(reached - set(locked))}; "
        f"locked but needed by nothing: {sorted(set(locked) - reached)}"
    )


def test_the_set_up_installs_the_dev_lock_hash_checked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    calls: list[tuple[str, ...]] = []

    class Builder:
        def __init__(self, **options: object) -> None:
            assert options == {"with_pip": True}

        def create(self, folder: Path) -> None:
            calls.append(("venv", str(folder)))
            folder.mkdir()

    monkeypatch.setattr(venv_setup, "STAMP", tmp_path / "stamp")
    monkeypatch.setattr(venv_setup, "VENV", tmp_path / ".venv")
    monkeypatch.setattr(venv_setup, "BIN", tmp_path / ".venv" / "bin")  # no python yet
    monkeypatch.setattr(venv, "EnvBuilder", Builder)
    monkeypatch.setattr(venv_setup, "run", lambda *argv: calls.append(tuple(map(str, argv))))
    monkeypatch.setattr(venv_setup, "attempt", lambda *argv: calls.append(tuple(map(str, argv))))
    monkeypatch.delenv(venv_setup.INSTALLER, raising=False)
    venv_setup.setup()
    assert calls.pop(0) == ("venv", str(tmp_path / ".venv"))
    bootstrap, argv = calls  # uv from the dev lock by pip, then the lock by uv; both checked
    assert bootstrap[1:4] == ("-m", "pip", "install") and "--require-hashes" in bootstrap
    assert argv[0] == str(tmp_path / ".venv" / "bin" / "uv") and argv[1:3] == ("pip", "install")
    assert "--require-hashes" in argv
    assert argv[argv.index("-r") + 1] == DEV_LOCK
    assert (tmp_path / "stamp").read_text() == venv_setup._digest()


def test_the_set_up_stamp_covers_the_locks_and_the_pins(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in locks.REQUIREMENTS:
        shutil.copy(ROOT / name, tmp_path / name)
    monkeypatch.setattr(venv_setup, "ROOT", tmp_path)
    before = venv_setup._digest()
    for name in (RUNTIME_LOCK, DEV_LOCK, *locks.LOCKS.values()):
        with (tmp_path / name).open("a") as file:
            file.write("# changed\n")
        after = venv_setup._digest()
        assert after != before, f"a change of {name} would not reinstall .venv"
        before = after


def test_ci_installs_through_the_readme_test_command() -> None:
    """CI runs `tasks.py test`, whose set-up installs the dev lock hash-checked (above);
    a second install of its own into the same .venv would only be another way to drift.
    The one other install is the OCI CLI, into a venv of its own outside the checkout."""
    script = (ROOT / ".ci" / "run").read_text()
    lines = [line.split("#", 1)[0] for line in script.splitlines()]
    installs = [line for line in lines if re.search(r"\bpip install\b|-m venv\b", line)]
    assert [line for line in installs if '"$oci_venv' not in line] == []
    assert ".venv" not in "".join(installs)
    assert any("python3 tasks.py test" in line for line in lines)


def test_setup_updates_an_existing_venv_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A venv that exists (made by `python3 -m venv`, or by an older lock) is installed
    into, not re-created: re-creating copies python over a symlink to itself, or over the
    running interpreter."""
    made: list[Path] = []
    calls: list[tuple[object, ...]] = []
    monkeypatch.setattr(venv_setup, "VENV", tmp_path / ".venv")
    monkeypatch.setattr(venv_setup, "BIN", tmp_path / ".venv" / "bin")
    monkeypatch.setattr(venv_setup, "STAMP", tmp_path / ".venv" / ".stamp")
    monkeypatch.setattr(venv.EnvBuilder, "create", lambda self, env: made.append(env))
    monkeypatch.setattr(venv_setup, "run", lambda *argv: calls.append(argv))
    monkeypatch.setenv(venv_setup.INSTALLER, "pip")
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "python").write_text("")
    venv_setup.setup()
    assert made == []
    assert calls and "--require-hashes" in calls[0]
    (tmp_path / ".venv" / "bin" / "python").unlink()
    (tmp_path / ".venv" / ".stamp").unlink()
    venv_setup.setup()
    assert made == [tmp_path / ".venv"]


def test_every_install_of_a_requirements_file_names_a_lock() -> None:
    """Workflows and scripts install locks, never the .in files (no hashes there)."""
    sources = [ROOT / ".ci" / "run", *sorted((ROOT / ".github").rglob("*.yml"))]
    named = [
        (path.name, match)
        for path in sources
        for match in _INSTALLED_FILE.findall(path.read_text())
    ]
    assert named
    assert all(Path(file).name in locks.LOCKS for _, file in named), named


def test_pulumi_installs_the_runtime_lock() -> None:
    """Pulumi's pip toolchain runs `pip install -r requirements.txt`, a name it does not let a
    project change: that file is the runtime lock, so pip checks every hash there too."""
    options = yaml.safe_load((ROOT / "Pulumi.yaml").read_text())["runtime"]["options"]
    assert options["toolchain"] == "pip" and options["virtualenv"] == ".venv"
    assert RUNTIME_LOCK in locks.LOCKS
    assert read_lock(RUNTIME_LOCK)


def test_the_lock_task_compiles_each_lock_with_hashes_for_python_3_11(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[list[str]] = []
    monkeypatch.setattr(locks, "run", lambda *argv: calls.append([str(a) for a in argv]))
    locks.lock(["--upgrade-package", "grpcio"])
    assert [argv[argv.index("--output-file") + 1] for argv in calls] == [RUNTIME_LOCK, DEV_LOCK]
    for argv, direct in zip(calls, locks.LOCKS.values(), strict=True):
        assert argv[0] == str(checkout.BIN / "uv") and argv[1:4] == ["pip", "compile", direct]
        assert {"--generate-hashes", "--universal"} <= set(argv)
        assert argv[argv.index("--python-version") + 1] == "3.11"
        assert argv[-2:] == ["--upgrade-package", "grpcio"]
    assert calls[1][calls[1].index("-c") + 1] == RUNTIME_LOCK
    assert "uv" in direct_pins("requirements-dev.in")  # the locker is locked too


def test_the_lock_task_explains_itself_without_running() -> None:
    done = subprocess.run(
        [sys.executable, "tasks.py", "lock", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout.startswith("python3 tasks.py lock [UV PIP COMPILE ARGS]\n")
    assert "--generate-hashes" in done.stdout
