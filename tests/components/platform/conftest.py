"""Fixtures for platform tests: the project recipe and mock runs."""

from __future__ import annotations

import pytest

from recipes import Catalog, RecipeResult
from stacks.offline.engine.records import ProgramRun
from tests.components.platform.platform_helpers import project_catalog, project_recipe, run_platform
from tests.recipes.conftest import write_catalog  # noqa: F401  (shared fixture)


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return project_catalog()


@pytest.fixture
def recipe(catalog: Catalog) -> RecipeResult:
    """The kind/a10/training/kubeflow recipe (a fresh copy per test)."""
    return project_recipe(catalog)


@pytest.fixture(scope="module")
def patched(catalog: Catalog) -> ProgramRun:
    """The project recipe deployed with the runtime patch (host config needs it)."""
    return run_platform(catalog, project_recipe(catalog), runtime_class_patch=True)
