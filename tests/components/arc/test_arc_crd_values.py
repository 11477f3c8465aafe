"""What the charts receive, and what Helm makes of it: the two ARC charts (0.14.2, vendored
whole) rendered by `helm template` with the values the plan records, every object valid
for Kubernetes by kubectl-validate against the upstream CRDs, and every value one that
changes what the chart renders.

The choice (components/arc/scale_set_values.py): the project deploys the upstream chart and
checks its values, rather than building the custom resource; Helm itself is the oracle of
what the chart builds from them.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from components.arc.scale_set_values import HOOK_FILE
from stacks.offline.charts.dead_values import dead_leaves
from stacks.offline.charts.keys import chart_keys
from stacks.offline.charts.render import RenderError
from stacks.offline.engine.records import ProgramRun, Registration
from stacks.offline.engine.values import reveal
from tests.components.arc.arc_helpers import (
    CONFIG_MAP,
    arc_releases,
    arc_stack,
    chart_of,
    gpu_pod,
    helm_render,
    launcher,
    release,
    run_arc,
    runner_set,
    scale_set_releases,
)
from tests.stacks.offline.charts.chart_helpers import problems_of
from tests.upstream_tools import tool

SCALE_SETS = ("oracle-vm-gpu-a10-1", "oracle-vm-gpu-a10-2", "oke-gpu-a10-pod")


@pytest.fixture(scope="module")
def variants() -> ProgramRun:
    """Both container modes, runtime class, labels, explicit placement, no OKE."""
    return run_arc(
        arc_stack(
            launcher(
                labels=["a10", "gpu"],
                resources={"requests": {"cpu": "100m", "memory": "64Mi"}},
                tolerations=[{"key": "ci/launchers", "operator": "Exists"}],
                nodeSelector={"pool": "launchers"},
            ),
            gpu_pod("dind-a10", containerMode="dind", runtimeClassName="nvidia", gpus=2),
            gpu_pod(
                "kube-a10", runtimeClassName="nvidia", workVolume={"storageClassName": "oci-bv"}
            ),
            controller={"nodeSelector": {"pool": "system"}},
        )
    )


def _objects(run: ProgramRun, upstream: Path) -> list[dict[str, Any]]:
    return [o for reg in arc_releases(run) for o in helm_render(reg, upstream).objects]


def test_example_scale_sets_render_and_validate(example: ProgramRun, upstream: Path) -> None:
    for name in SCALE_SETS:
        obj = runner_set(release(example, name), upstream)
        assert (obj["metadata"]["name"], obj["metadata"]["namespace"]) == (name, "arc-runners")
    objects = _objects(example, upstream)
    assert len(objects) > 15
    assert problems_of(objects, upstream, "1.33.1") == []  # the example's OKE version


def test_every_variant_renders_and_validates(variants: ProgramRun, upstream: Path) -> None:
    names = sorted(r.inputs["name"] for r in scale_set_releases(variants))
    assert names == ["dind-a10", "kube-a10", "oracle-vm-gpu-a10-1"]
    assert problems_of(_objects(variants, upstream), upstream) == []


def test_the_validator_catches_a_bad_pod_template(example: ProgramRun, upstream: Path) -> None:
    """As the API server does: an unknown field first (strict decoding), then the schema."""
    reg = release(example, "oke-gpu-a10-pod")
    values = copy.deepcopy(reveal(reg.inputs["values"]))
    values["template"]["spec"]["tolerations"][0]["efect"] = "NoSchedule"
    (problem,) = problems_of([runner_set(reg, upstream, values)], upstream)
    assert problem.startswith("test: AutoscalingRunnerSet arc-runners/oke-gpu-a10-pod: ")
    assert (
        "spec.template.spec.tolerations[0].efect: Invalid value: value provided for unknown"
        in problem
    )
    values = copy.deepcopy(reveal(reg.inputs["values"]))
    values["template"]["spec"]["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": True}}
    obj = runner_set(reg, upstream, values)
    obj["spec"]["maxRunners"] = -1  # the chart refuses it itself (below): past Helm, the CRD
    (problem,) = problems_of([obj], upstream)
    assert "spec.maxRunners in body should be greater than or equal to 0" in problem
    assert "resources.limits.nvidia.com/gpu in body must be of type integer" in problem


def test_the_chart_itself_refuses_max_below_min(example: ProgramRun, upstream: Path) -> None:
    """Some checks are the chart's own `fail`: Helm's message comes through whole."""
    reg = release(example, "oke-gpu-a10-pod")
    values = {**reveal(reg.inputs["values"]), "minRunners": 3, "maxRunners": 1}
    with pytest.raises(RenderError, match="maxRunners has to be greater or equal to minRunners"):
        runner_set(reg, upstream, values)


def test_hook_templates_are_pod_templates(
    example: ProgramRun, variants: ProgramRun, upstream: Path
) -> None:
    found = [
        r
        for run in (example, variants)
        for r in run.by_type(CONFIG_MAP)
        if r.name.endswith("-hook-template")
    ]
    assert len(found) == 2
    templates = [
        {
            "apiVersion": "v1",
            "kind": "PodTemplate",
            "metadata": {"name": config_map.name},
            "template": yaml.safe_load(config_map.inputs["data"][HOOK_FILE]),
        }
        for config_map in found
    ]
    assert problems_of(templates, upstream) == []
    templates[0]["template"]["spec"]["tolerations"] = [{"key": "x", "efect": "NoSchedule"}]
    (problem,) = problems_of(templates, upstream)
    assert "template.spec.tolerations[0].efect" in problem


def _dead(reg: Registration, upstream: Path, values: dict[str, Any] | None = None) -> list[str]:
    given = reveal(reg.inputs["values"]) if values is None else values
    return [
        ".".join(map(str, leaf.path))
        for leaf in dead_leaves(
            given,
            lambda v: helm_render(reg, upstream, v),
            helm_render(reg, upstream, given),
        )
    ]


def test_every_value_of_every_variant_changes_what_the_chart_renders(
    variants: ProgramRun, upstream: Path
) -> None:
    for reg in arc_releases(variants):
        assert _dead(reg, upstream) == [], reg.inputs["name"]


def test_a_misspelt_values_key_is_dead_and_named_with_a_guess(
    example: ProgramRun, upstream: Path
) -> None:
    reg = release(example, "oracle-vm-gpu-a10-1")
    values = {**reveal(reg.inputs["values"]), "minRunner": 2}
    values["containerMode"] = {"type": "kubernetes", "kubernetesModeWorkVolume": {"a": "b"}}
    assert _dead(reg, upstream, values) == [
        "minRunner",
        "containerMode.kubernetesModeWorkVolume.a",
    ]
    keys = chart_keys(tool("helm"), chart_of(reg, upstream))
    assert "(did you mean 'minRunners'?)" in (keys.miss(["minRunner"]) or "")
    miss = keys.miss(["containerMode", "kubernetesModeWorkVolume"]) or ""
    assert "(did you mean 'containerMode.kubernetesModeWorkVolumeClaim'?)" in miss


@pytest.mark.parametrize("chart", ["gha-runner-scale-set", "gha-runner-scale-set-controller"])
def test_pinned_chart_version_is_the_vendored_charts(
    example: ProgramRun, upstream: Path, chart: str
) -> None:
    versions = {str(r.inputs["version"]) for r in arc_releases(example)}
    (version,) = versions
    meta = (upstream / "helm-charts" / f"{chart}-{version}" / "Chart.yaml").read_text()
    assert f"\nversion: {version}\n" in f"\n{meta}"
