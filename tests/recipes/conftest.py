"""Fixtures for recipe tests: the shared AICR catalog, and tiny catalogs written to tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest

from recipes import Catalog, load_catalog
from tests.recipes.aicr_overlays import AICR_2026
from tests.recipes.recipe_helpers import WriteCatalog, write_files

AICR = "aicr-v0.11.1/recipes"


@pytest.fixture(scope="session")
def aicr_dir(upstream: Path) -> Path:
    """The unmodified AICR v0.11.1 catalog."""
    return upstream / AICR


@pytest.fixture(scope="session")
def aicr(aicr_dir: Path) -> Catalog:
    """The AICR catalog, loaded once."""
    return load_catalog([aicr_dir])


@pytest.fixture
def write_catalog(tmp_path: Path) -> WriteCatalog:
    """Write {relative path: document or raw text} under a fresh directory; return it."""
    counter = iter(range(1000))

    def write(files: dict[str, object]) -> Path:
        return write_files(tmp_path / f"catalog{next(counter)}", files)

    return write


@pytest.fixture(scope="session")
def aicr2026_dir(upstream: Path) -> Path:
    """The unmodified AICR catalog of July 2026 (upstream main with PR #1695)."""
    return upstream / AICR_2026


@pytest.fixture(scope="session")
def aicr2026(aicr2026_dir: Path) -> Catalog:
    """The 2026 AICR catalog, loaded once."""
    return load_catalog([aicr2026_dir])
