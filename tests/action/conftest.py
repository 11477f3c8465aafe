"""Fixtures for the gpu-cluster action's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.components.host.sandbox import Sandbox

from .action_sandbox import ActionSandbox
from .configure_in_process import Job


@pytest.fixture
def runner(tmp_path: Path) -> ActionSandbox:
    return ActionSandbox(Sandbox(tmp_path))


@pytest.fixture
def job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Job:
    """The configure step, called in this process (configure_in_process.py)."""
    return Job(tmp_path, monkeypatch, capsys)
