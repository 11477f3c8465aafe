"""What RecipeReleases hands each `helm.v3.Release`, rendered by Helm from the vendored chart:
every value changes what the chart renders, and a misspelt override does not, named with the
chart's own key. (The example stacks get the same check through `stacks check-charts`:
tests/stacks/offline/charts/.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from components.platform.releases.overrides import PlatformOverrides
from recipes import Catalog, RecipeResult
from stacks.offline.charts.dead_values import dead_leaves
from stacks.offline.charts.keys import chart_keys
from stacks.offline.engine.records import ProgramRun, Registration
from stacks.offline.engine.values import reveal
from tests.components.platform.platform_helpers import RELEASE, run_platform
from tests.stacks.offline.charts.chart_helpers import render_chart
from tests.upstream_tools import tool


def _chart(upstream: Path, reg: Registration) -> Path:
    name = str(reg.inputs["chart"]).rsplit("/", 1)[-1]
    return upstream / "helm-charts" / f"{name}-{reg.inputs['version']}"


def _dead(upstream: Path, reg: Registration) -> list[str]:
    chart, values = _chart(upstream, reg), reveal(reg.inputs["values"])

    def render(given: dict[str, Any]) -> Any:
        return render_chart(
            chart, given, name=reg.inputs["name"], namespace=reg.inputs["namespace"]
        )

    return [".".join(map(str, leaf.path)) for leaf in dead_leaves(values, render, render(values))]


def test_every_release_value_changes_what_helm_renders(patched: ProgramRun, upstream: Path) -> None:
    releases = patched.by_type(RELEASE)
    assert sorted(r.inputs["name"] for r in releases) == ["gpu-operator", "kubeflow-trainer"]
    for reg in releases:
        assert _dead(upstream, reg) == [], reg.inputs["name"]


def test_a_misspelt_override_renders_nothing_and_is_named(
    catalog: Catalog, recipe: RecipeResult, upstream: Path
) -> None:
    overrides = PlatformOverrides.parse(
        ["gpu-operator:devicePlugin.config.nmae=x", "gpu-operator:operator.resources.limits.cpu=1"]
    )
    run = run_platform(catalog, recipe, overrides=overrides, deployment_checks=False)
    (reg,) = [r for r in run.by_type(RELEASE) if r.inputs["name"] == "gpu-operator"]
    # operator.resources is passed to the Deployment as given: live; `nmae` is a typo.
    assert _dead(upstream, reg) == ["devicePlugin.config.nmae"]
    why = chart_keys(tool("helm"), _chart(upstream, reg)).miss(["devicePlugin", "config", "nmae"])
    assert why is not None and "(did you mean 'devicePlugin.config.name'?)" in why


@pytest.mark.parametrize("component", ["gpu-operator", "kubeflow-trainer"])
def test_the_vendored_chart_is_the_version_deployed(
    patched: ProgramRun, upstream: Path, component: str
) -> None:
    (reg,) = [r for r in patched.by_type(RELEASE) if r.inputs["name"] == component]
    meta = yaml.safe_load((_chart(upstream, reg) / "Chart.yaml").read_text(encoding="utf-8"))
    if "devel" in str(meta["version"]):  # gpu-operator's git Chart.yaml (shared/upstream README)
        assert reg.inputs["version"] == "v26.7.0"
        return
    assert str(reg.inputs["version"]).lstrip("v") == str(meta["version"]).lstrip("v")
