"""Fixtures the offline engine's folder tests share."""

from __future__ import annotations

from pathlib import Path

import pytest

from stacks.offline.plan import REPO
from stacks.offline.plan_all import write_all


@pytest.fixture(scope="module")
def planned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`python -m stacks plan --all --json-dir DIR` of the example stacks (read only: a
    test that edits one copies it first)."""
    out = tmp_path_factory.mktemp("planned")
    assert write_all(REPO, out) == 0
    return out
