"""Fixtures for the gpu-cluster action's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.components.host.sandbox import Sandbox

from .action_sandbox import ActionSandbox


@pytest.fixture
def runner(tmp_path: Path) -> ActionSandbox:
    return ActionSandbox(Sandbox(tmp_path))
