"""Every object Helm renders for an example stack is valid for its cluster's Kubernetes
version, by kubectl-validate (the API server's own validation, offline), custom resources
against the charts' own CRDs and the vendored upstream ones (`../shared/upstream/crds`)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from stacks.offline.charts.check import StackCharts
from stacks.offline.charts.validate import validate


@pytest.mark.parametrize("stack", ["apps-dev", "arc", "dev", "multi-gpu"])
def test_every_rendered_object_validates(
    stack: str, rendered: dict[str, StackCharts], validator: Path, upstream: Path
) -> None:
    found = rendered[stack]
    objects = [(r.release.label, o) for r in found.renders for o in r.rendered.objects]
    assert len(objects) > 20
    assert found.kube_version is not None
    assert validate(validator, objects, found.kube_version, [upstream / "crds"]) == []


def test_the_validator_names_an_invalid_object_and_its_field(
    rendered: dict[str, StackCharts], validator: Path, upstream: Path
) -> None:
    """The check bites: a misspelt field of the ClusterPolicy and a wrong type in a
    Deployment, each reported at its object and field."""
    (operator,) = [r for r in rendered["dev"].renders if r.release.name == "gpu-operator"]
    policy = copy.deepcopy(operator.rendered.find("ClusterPolicy")[0])
    policy["spec"]["devicePlugin"]["confg"] = {"name": "x"}
    deployment = copy.deepcopy(operator.rendered.find("Deployment")[0])
    deployment["spec"]["replicas"] = "two"
    problems = validate(
        validator, [("t", policy), ("t", deployment)], "v1.35.0", [upstream / "crds"]
    )
    assert len(problems) == 2, problems
    assert "ClusterPolicy cluster-policy" in problems[0]
    assert "spec.devicePlugin.confg" in problems[0]
    assert "Deployment gpu-operator/" in problems[1]
    assert "spec.replicas" in problems[1]
