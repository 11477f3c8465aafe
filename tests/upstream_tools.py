"""The pinned upstream tools (tools/tasks/upstream_tools.py) as the tests' oracles.

`tasks.py test` builds them into their cache first. A test that needs one and finds it
missing fails where CI runs (`CI` or `GPU_CI_REQUIRE_UPSTREAM=1` set) and skips, saying
why, elsewhere.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tools.tasks.upstream_tools import BY_NAME, binary, is_current, required


@functools.cache
def _found(name: str) -> Path | str:
    """The tool's path, or why it is not usable."""
    tool = BY_NAME[name]
    path = binary(tool)
    go = shutil.which("go")
    if not path.is_file():
        return f"{name} {tool.version} not built at {path}: run `python3 tasks.py test` (needs Go)"
    if go is not None and not is_current(tool, go):
        return f"{path} is not {tool.module} {tool.version}: run `python3 tasks.py test`"
    return path


def tool(name: str) -> Path:
    """The path of the pinned upstream tool `name`, or the test fails (CI) or skips."""
    found = _found(name)
    if isinstance(found, Path):
        return found
    if required():
        pytest.fail(found)
    pytest.skip(found)


def run_tool(
    name: str,
    *args: str | Path,
    cwd: Path | None = None,
    timeout: int = 300,
    stdin: str = "",
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run the pinned tool `name` with `args` (`env` added to this environment); the
    finished process (not checked)."""
    return subprocess.run(
        [str(tool(name)), *map(str, args)],
        cwd=cwd,
        input=stdin,
        env={**os.environ, **env} if env else None,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
