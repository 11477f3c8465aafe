"""Every Helm values key a release receives exists in the chart's default values.

tests/recipes/test_recipe_chart_keys.py checks the catalog's values files and overrides;
this checks what RecipeReleases actually hands each `helm.v3.Release` (hydrated values plus
stack-config overrides), with the same walker and the same free-form-map rule.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from components.platform.overrides import PlatformOverrides
from recipes import Catalog, RecipeResult
from stacks.offline.records import ProgramRun
from tests.components.platform.platform_helpers import RELEASE, run_platform
from tests.oracles.chart_values import CHARTS, unknown_keys


def _defaults(upstream: Path, component: str) -> dict[str, Any]:
    path = upstream / "charts" / CHARTS[component] / "values.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _release_values(run: ProgramRun) -> dict[str, dict[str, Any]]:
    return {r.inputs["name"]: r.inputs["values"] for r in run.by_type(RELEASE)}


def test_release_values_exist_upstream(patched: ProgramRun, upstream: Path) -> None:
    found = _release_values(patched)
    assert set(found) == set(CHARTS)
    for component, values in found.items():
        assert list(unknown_keys(values, _defaults(upstream, component))) == [], component


def test_a_misspelt_override_key_is_caught(
    catalog: Catalog, recipe: RecipeResult, upstream: Path
) -> None:
    overrides = PlatformOverrides.parse(
        ["gpu-operator:devicePlugin.config.nmae=x", "gpu-operator:operator.resources.limits.cpu=1"]
    )
    run = run_platform(catalog, recipe, overrides=overrides, deployment_checks=False)
    values = _release_values(run)["gpu-operator"]
    # resources: {} is documented free-form upstream; `nmae` is a typo.
    assert list(unknown_keys(values, _defaults(upstream, "gpu-operator"))) == [
        "devicePlugin.config.nmae"
    ]


@pytest.mark.parametrize("component", sorted(CHARTS))
def test_chart_version_matches_upstream_where_upstream_is_a_release(
    patched: ProgramRun, upstream: Path, component: str
) -> None:
    chart = yaml.safe_load(
        (upstream / "charts" / CHARTS[component] / "Chart.yaml").read_text(encoding="utf-8")
    )
    release = next(r for r in patched.by_type(RELEASE) if r.inputs["name"] == component)
    if "devel" in str(chart["version"]):
        pytest.skip(f"upstream {component} Chart.yaml is a development build ({chart['version']})")
    assert release.inputs["version"].lstrip("v") == str(chart["version"]).lstrip("v")
