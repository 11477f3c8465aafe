"""Fixtures for platform tests: the project recipe, upstream CRDs and runtimes, mock runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from recipes import Catalog, RecipeResult
from stacks.offline.records import ProgramRun
from tests.components.platform.platform_helpers import project_catalog, project_recipe, run_platform
from tests.oracles.crd_schema import load_crd
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


@pytest.fixture(scope="session")
def runtime_crd(upstream: Path) -> dict[str, Any]:
    return load_crd(upstream, "trainer.kubeflow.org_clustertrainingruntimes.yaml")


@pytest.fixture(scope="session")
def policy_crd(upstream: Path) -> dict[str, Any]:
    return load_crd(upstream, "nvidia.com_clusterpolicies.yaml")


@pytest.fixture(scope="session")
def upstream_runtimes(upstream: Path) -> dict[str, dict[str, Any]]:
    """The real ClusterTrainingRuntime objects, by name."""
    found = {}
    for path in sorted((upstream / "kubeflow-trainer" / "runtimes").glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        found[doc["metadata"]["name"]] = doc
    return found


@pytest.fixture(scope="session")
def trainer_chart(upstream: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """(Chart.yaml, values.yaml) of the upstream Trainer chart."""
    root = upstream / "charts" / "kubeflow-trainer"
    chart = yaml.safe_load((root / "Chart.yaml").read_text(encoding="utf-8"))
    values = yaml.safe_load((root / "values.yaml").read_text(encoding="utf-8"))
    return chart, values
