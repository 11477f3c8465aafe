"""Fixtures for the host-step tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from .sandbox import Sandbox


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    return Sandbox(tmp_path)
