"""RecipePlatform as a Python program constructs it, deploying onto a cluster stack whose
exports are given here (`CLUSTER_EXPORT`, the contract a GpuCluster's stack exports), so
the component registers in about a second: its children, the options it is given, its
outputs once its releases deploy, and its refusals at its own name. Through the provider,
on the apps-dev stack, it is test_construct.py's."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest

from gpu_ci_package.build import InputsError
from gpu_ci_package.platform import RecipePlatform, RecipePlatformArgs
from stacks.offline.engine.fakes import FakeCloud, StackExports
from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import ProgramRun, Registration
from tests.stacks.stack_helpers import CLUSTER_EXPORT

PLATFORM = "gpu-ci:index:RecipePlatform"
STACK = "urn:pulumi:test::gpu-ci::pulumi:pulumi:Stack::gpu-ci-test"
CLUSTER_STACK = "kubeflow/gpu-ci/gpu-dev"
A10: RecipePlatformArgs = {"clusterStack": CLUSTER_STACK, "accelerator": "a10"}


def deployed(
    args: RecipePlatformArgs, opts: pulumi.ResourceOptions | None = None
) -> tuple[Registration, ProgramRun]:
    """The component after an update (its outputs known) and every registration."""
    exports = StackExports(
        {"cluster": CLUSTER_EXPORT, "kubeconfig": "k"}, frozenset({"kubeconfig"})
    )

    def build() -> None:
        RecipePlatform("apps", args, opts)

    ran = run_program(
        build,
        project="gpu-ci",
        stack="test",
        config={},
        cloud=FakeCloud({}, {CLUSTER_STACK: exports}),
        preview=False,
    )
    (platform,) = [r for r in ran.registrations if r.type == PLATFORM]
    return platform, ran


def children(ran: ProgramRun, parent: Registration) -> dict[str, str]:
    """Name to type of each resource registered directly under `parent`."""
    return {r.name: r.type for r in ran.registrations if r.parent == parent.urn}


def test_the_layers_register_under_the_component_with_the_options_given() -> None:
    platform, ran = deployed(A10, pulumi.ResourceOptions(protect=True))
    assert (platform.name, platform.parent, platform.custom) == ("apps", STACK, False)
    assert platform.options["protect"] is True
    assert children(ran, platform) == {
        "cluster": "gpu-ci:cluster:ClusterReference",
        "monitoring": "gpu-ci:observability:Monitoring",
        "platform": "gpu-ci:platform:RecipeReleases",
    }
    (reference,) = [r for r in ran.registrations if r.type == "pulumi:pulumi:StackReference"]
    assert reference.inputs["name"] == CLUSTER_STACK


def test_the_outputs_are_the_platform_export_and_its_parts() -> None:
    platform, _ = deployed(A10)
    outputs = platform.outputs
    assert set(outputs) == {"releases", "checks", "appliedOverlays", "platform"}
    export = outputs["platform"]
    assert export["contractVersion"] == 1
    assert export["criteria"]["accelerator"] == "a10"
    assert outputs["releases"] == export["deploymentOrder"]
    assert outputs["releases"] == ["gpu-time-slicing", "gpu-operator", "kubeflow-trainer"]
    assert outputs["appliedOverlays"] == export["appliedOverlays"]
    assert outputs["appliedOverlays"] == ["kind-a10", "kind-a10-training-kubeflow"]
    # the checks' names, sorted: the export keeps them in the order they were planned
    assert outputs["checks"] == sorted(export["checks"])
    assert outputs["checks"] != list(export["checks"])
    assert "check-nvidia-smi" in outputs["checks"]


def test_the_criteria_and_switches_reach_the_recipe() -> None:
    args: RecipePlatformArgs = {
        **A10,
        "intent": "inference",
        "deploymentChecks": False,
        "metrics": False,
    }
    platform, ran = deployed(args)
    export = platform.outputs["platform"]
    assert export["criteria"]["intent"] == "inference"
    assert all("training" not in overlay for overlay in platform.outputs["appliedOverlays"])
    assert platform.outputs["checks"] == []
    assert "monitoring" not in children(ran, platform)  # metrics off: no Monitoring layer


@pytest.mark.parametrize(
    "args",
    [
        {**A10, "acelerator": "a10"},  # not an input: refused before any config is made
        {**A10, "intent": "zz"},  # an input the stack config refuses
    ],
    ids=["unknown-input", "invalid-value"],
)
def test_a_refusal_names_the_component(args: Any) -> None:
    with pytest.raises(InputsError) as err:
        deployed(args)
    assert str(err.value).splitlines()[0] == f"{PLATFORM} 'apps': invalid inputs (1 problem):"
