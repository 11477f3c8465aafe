"""Shared fixtures: where the upstream reference data lives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _upstream_dir() -> Path:
    return Path(os.environ.get("GPU_CI_UPSTREAM", REPO.parent / "shared" / "upstream"))


@pytest.fixture(scope="session")
def upstream() -> Path:
    """`../shared/upstream`: real upstream catalogs, CRDs and chart values.

    Skipped on a machine without it, except where GPU_CI_REQUIRE_UPSTREAM=1 (`.ci/run`
    sets it: the project's CI has the data beside the checkout), where its absence fails.
    A public clone (GitHub's `test` workflow) has no `shared/`, so those tests skip there.
    """
    path = _upstream_dir()
    if not path.is_dir():
        if os.environ.get("GPU_CI_REQUIRE_UPSTREAM") == "1":
            pytest.fail(f"upstream reference data not found at {path} (set GPU_CI_UPSTREAM)")
        pytest.skip(f"upstream reference data not found at {path}")
    return path
