"""Each example stack file's header gives a plan command that works on a fresh machine, and
`python -m stacks` run outside the virtualenv says what to run instead of a traceback."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
STACK_FILES = sorted(REPO.glob("Pulumi.*.yaml"))
PLAN_COMMAND = re.compile(r"python3? (?:-m stacks|tasks\.py) plan (?P<stack>[\w.-]+)")


@pytest.mark.parametrize("path", STACK_FILES, ids=lambda p: p.name)
def test_header_plans_its_own_stack_through_tasks_py(path: Path) -> None:
    header = [line for line in path.read_text().splitlines() if line.startswith("#")]
    commands = [m for line in header for m in PLAN_COMMAND.finditer(line)]
    stack = path.name.removeprefix("Pulumi.").removesuffix(".yaml")
    assert [m.group(0) for m in commands] == [f"python3 tasks.py plan {stack}"]


def test_bare_module_outside_the_venv_names_the_command() -> None:
    # -S: no site-packages, as a system Python without the locked dependencies sees it.
    done = subprocess.run(
        [sys.executable, "-S", "-m", "stacks", "plan", "dev"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        "gpu-ci: `python -m stacks` needs the project's virtualenv, and this Python lacks "
        "'pulumi'. Run `python3 tasks.py plan [STACK]` (it creates .venv with the locked "
        "dependencies and plans), then `.venv/bin/python -m stacks ...` for the other "
        "commands.\n"
    )
    assert "Traceback" not in done.stderr
