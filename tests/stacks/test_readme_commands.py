"""Every project command in the ```sh blocks of the docs (README.md and every docs/*.md)
runs, exactly as written, in order: each page's in a fresh copy of the checkout.

A command is a line that starts with `.venv/bin/python -m stacks`, `.venv/bin/python -m
recipes` or `python3 tasks.py plan`. Each runs in a copy of the checkout (so the files it
writes, such as `plan.json`, land in a temporary folder and nothing is rewritten), whose
`.venv` is this interpreter's virtualenv, already set up: `tasks.py plan` then skips the
install (which needs the network and minutes) and plans, as on a machine that ran it once.
Other lines (`pulumi ...`, `kubectl ...`, `curl ...`) need a cloud account, a cluster or the
network and are not run. The pages run in turn, README first, each page's commands in order.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from stacks.offline.plan import REPO
from tools.tasks import venv_setup

README = REPO / "README.md"
PAGES = [README, *sorted((REPO / "docs").glob("*.md"))]
PROJECT_COMMAND = re.compile(r"(\.venv/bin/python -m (stacks|recipes)|python3 tasks\.py plan)\b")
_SH_BLOCK = re.compile(r"^```sh\n(.*?)^```$", re.MULTILINE | re.DOTALL)
_NOT_COPIED = shutil.ignore_patterns(
    ".git",
    ".venv",
    "__pycache__",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".hypothesis",
    "node_modules",
    "out",
    "plan.json",
    "graph.mmd",
)


def page_commands(page: Path) -> list[str]:
    """The project commands of a page's sh blocks, in order, comments kept."""
    return [
        line.strip()
        for block in _SH_BLOCK.findall(page.read_text(encoding="utf-8"))
        for line in block.splitlines()
        if PROJECT_COMMAND.match(line.strip())
    ]


def docs_commands() -> list[tuple[str, str]]:
    """(page, command) for every page, README first."""
    return [
        (page.relative_to(REPO).as_posix(), command)
        for page in PAGES
        for command in page_commands(page)
    ]


def _expected_codes(argv: list[str]) -> set[int]:
    # `stacks diff` exits 1 when the plans differ: a diff with changes, not a failure.
    return {0, 1} if argv[1:4] == ["-m", "stacks", "diff"] else {0}


def _output_files(argv: list[str]) -> list[str]:
    return [argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg in ("--json", "--mermaid")]


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A copy of the checkout of its own, so a page's commands see only each other's files
    (whatever order, or worker, the tests run in)."""
    if sys.prefix == sys.base_prefix:
        pytest.skip("needs the tests to run in the project's virtualenv (.venv/bin/pytest)")
    root = tmp_path / "gpu-ci"
    shutil.copytree(REPO, root, ignore=_NOT_COPIED, symlinks=True)
    venv, ours = root / ".venv", Path(sys.prefix)
    (venv / "bin").mkdir(parents=True)
    shutil.copy(ours / "pyvenv.cfg", venv / "pyvenv.cfg")
    (venv / "bin" / "python").symlink_to(Path(sys.executable))
    (venv / "lib").symlink_to(ours / "lib", target_is_directory=True)
    (venv / ".requirements.sha256").write_text(venv_setup._digest())  # set up, for tasks.py
    return root


def test_the_readme_shows_exactly_the_two_first_commands() -> None:
    """A fresh machine needs these two and nothing else; the rest is on the docs pages."""
    first = _SH_BLOCK.findall(README.read_text(encoding="utf-8"))[0]
    assert [line.split("#")[0].strip() for line in first.splitlines()] == [
        "python3 tasks.py plan",
        "python3 tasks.py test",
    ]
    commands = [c for _, c in docs_commands()]
    assert any(c.startswith(".venv/bin/python -m stacks plan") for c in commands)
    assert any(c.startswith(".venv/bin/python -m stacks diff") for c in commands)
    assert any(c.startswith(".venv/bin/python -m recipes") for c in commands)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_no_line_runs_the_system_python_on_the_project(page: Path) -> None:
    """`python -m stacks` needs the virtualenv's Pulumi SDK: sh blocks say .venv/bin/python."""
    bare = [
        line
        for block in _SH_BLOCK.findall(page.read_text(encoding="utf-8"))
        for line in block.splitlines()
        if re.match(r"\s*python3? -m (stacks|recipes)\b", line)
    ]
    assert not bare


PAGES_WITH_COMMANDS = [page for page in PAGES if page_commands(page)]


@pytest.mark.parametrize("page", PAGES_WITH_COMMANDS, ids=lambda p: p.relative_to(REPO).as_posix())
def test_a_pages_commands_run_as_written_in_order(page: Path, checkout: Path) -> None:
    """A reader runs a page's commands top to bottom (`stacks diff plans plans` reads the
    folder `plan --all` wrote above it): in order, each page in a fresh checkout."""
    for command in page_commands(page):
        argv = shlex.split(command, comments=True)
        if argv[0] == "python3" and shutil.which("python3") is None:
            pytest.skip("no python3 on PATH")
        done = subprocess.run(
            argv, cwd=checkout, capture_output=True, text=True, check=False, timeout=300
        )
        where = f"{page.name}: {shlex.join(argv)}"
        assert done.returncode in _expected_codes(argv), f"{where}: {done.stderr[-3000:]}"
        assert "Traceback" not in done.stderr, where
        assert done.stdout.strip(), where  # it printed what it is for
        for name in _output_files(argv):
            assert (checkout / name).is_file(), f"{where}: wrote no {name}"


def test_every_docs_command_is_run_by_its_page() -> None:
    """The pages run are every page with a command: none is left out."""
    assert {page for page, _ in docs_commands()} == {
        p.relative_to(REPO).as_posix() for p in PAGES_WITH_COMMANDS
    }
