"""What the charts receive: every values key exists upstream, and the AutoscalingRunnerSet
the scale-set chart renders from them validates against the upstream CRD.

The choice (components/arc/scale_set_values.py): the project deploys the upstream chart and
checks its values, rather than building the custom resource; `render_runner_set` (the oracle
tests/oracles/arc_runner_set.py) reproduces the chart's rendering of the fields it sets, and
that is what meets the CRD here.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from components.arc.scale_set_values import HOOK_FILE
from stacks.offline.records import ProgramRun
from tests.components.arc.arc_helpers import (
    CONFIG_MAP,
    arc_releases,
    arc_stack,
    documented_values,
    gpu_pod,
    launcher,
    release,
    run_arc,
    scale_set_releases,
)
from tests.oracles.arc_runner_set import render_runner_set
from tests.oracles.chart_values import unknown_keys
from tests.oracles.crd_schema import at, crd_schema, validate, validate_object

SCALE_SETS = ("oracle-vm-gpu-a10-1", "oracle-vm-gpu-a10-2", "oke-gpu-a10-pod")
POD_TEMPLATES = ("template", "listenerTemplate")
"""Copied by the chart into the resource: checked against the CRD, not values.yaml."""


def rendered(run: ProgramRun, name: str) -> dict[str, Any]:
    inputs = release(run, name).inputs
    return render_runner_set(
        inputs["values"], release=inputs["name"], namespace=inputs["namespace"]
    )


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


def test_example_scale_sets_validate_against_the_crd(
    example: ProgramRun, runner_set_crd: dict[str, Any]
) -> None:
    for name in SCALE_SETS:
        obj = rendered(example, name)
        assert validate_object(runner_set_crd, obj) == [], name
        assert obj["metadata"] == {"name": name, "namespace": "arc-runners"}


def test_every_variant_validates_against_the_crd(
    variants: ProgramRun, runner_set_crd: dict[str, Any]
) -> None:
    names = sorted(r.inputs["name"] for r in scale_set_releases(variants))
    assert names == ["dind-a10", "kube-a10", "oracle-vm-gpu-a10-1"]
    for name in names:
        assert validate_object(runner_set_crd, rendered(variants, name)) == [], name


def test_the_crd_check_catches_a_bad_pod_template(
    example: ProgramRun, runner_set_crd: dict[str, Any]
) -> None:
    values = copy.deepcopy(release(example, "oke-gpu-a10-pod").inputs["values"])
    values["template"]["spec"]["tolerations"][0]["efect"] = "NoSchedule"
    values["template"]["spec"]["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": True}}
    values["maxRunners"] = -1
    problems = validate_object(
        runner_set_crd, render_runner_set(values, release="x", namespace="arc-runners")
    )
    assert "spec.template.spec.tolerations[0].efect: unknown field" in problems
    assert any(p.startswith("spec.template.spec.containers[0].resources.limits") for p in problems)
    assert "spec.maxRunners: -1 < minimum 0" in problems


def test_hook_templates_are_pod_templates(
    example: ProgramRun, variants: ProgramRun, runner_set_crd: dict[str, Any]
) -> None:
    pod_template = at(crd_schema(runner_set_crd, "v1alpha1"), "spec.template")
    found = [
        r
        for run in (example, variants)
        for r in run.by_type(CONFIG_MAP)
        if r.name.endswith("-hook-template")
    ]
    assert len(found) == 2
    for config_map in found:
        template = yaml.safe_load(config_map.inputs["data"][HOOK_FILE])
        assert validate(template, pod_template) == [], config_map.name


def _outside_pod_templates(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if k not in POD_TEMPLATES}


def test_scale_set_values_exist_upstream(
    example: ProgramRun, variants: ProgramRun, scale_set_defaults: dict[str, Any]
) -> None:
    for run in (example, variants):
        for reg in scale_set_releases(run):
            values = _outside_pod_templates(reg.inputs["values"])
            assert list(unknown_keys(values, scale_set_defaults)) == [], reg.name


def test_controller_values_exist_upstream(
    example: ProgramRun, variants: ProgramRun, controller_defaults: dict[str, Any]
) -> None:
    for run in (example, variants):
        values = release(run, "arc").inputs["values"]
        assert list(unknown_keys(values, controller_defaults)) == []
    assert "metrics" in release(example, "arc").inputs["values"]
    assert release(variants, "arc").inputs["values"]["nodeSelector"] == {"pool": "system"}


def test_a_misspelt_values_key_is_caught(scale_set_defaults: dict[str, Any]) -> None:
    values = {
        "minRunner": 0,
        "containerMode": {"type": "kubernetes", "kubernetesModeWorkVolume": {}},
    }
    assert list(unknown_keys(values, scale_set_defaults)) == [
        "minRunner",
        "containerMode.kubernetesModeWorkVolume",
    ]


def test_documented_keys_come_from_the_commented_examples(upstream: Path) -> None:
    path = upstream / "charts" / "gha-runner-scale-set" / "values.yaml"
    plain = yaml.safe_load(path.read_text(encoding="utf-8"))
    documented = documented_values(path)
    commented = sorted(set(documented) - set(plain))
    for key in ("controllerServiceAccount", "minRunners", "maxRunners", "runnerGroup"):
        assert key in commented
    assert documented["containerMode"]["kubernetesModeWorkVolumeClaim"]["accessModes"] == [
        "ReadWriteOnce"
    ]
    assert documented["githubConfigSecret"]["github_token"] == ""  # real defaults kept


@pytest.mark.parametrize("chart", ["gha-runner-scale-set", "gha-runner-scale-set-controller"])
def test_pinned_chart_version_is_upstream_chart_version(
    example: ProgramRun, upstream: Path, chart: str
) -> None:
    meta = yaml.safe_load((upstream / "charts" / chart / "Chart.yaml").read_text(encoding="utf-8"))
    versions = {r.inputs["version"] for r in arc_releases(example)}
    assert versions == {str(meta["version"])}
