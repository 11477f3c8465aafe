"""The replays of `bench/plan_floor.py` register exactly what the plan did (the floor through
the provider SDKs' own classes), so neither is cheaper by registering less."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pulumi_command
import pulumi_kubernetes
import pulumi_oci
import pytest

from bench.sdk_replay import check_same, replay, sdk_class, untyped_replay
from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import ProgramRun
from stacks.offline.engine.values import Secret
from stacks.offline.plan import plan_run as plan


def floor(run: ProgramRun, make: Callable[[ProgramRun], Callable[[], None]] = replay) -> ProgramRun:
    return run_program(make(run), project=run.project, stack=run.stack, config={})


@pytest.mark.parametrize("make", [replay, untyped_replay])
@pytest.mark.parametrize("stack", ["dev", "workstation", "gpu-dev", "arc"])
def test_a_replay_registers_invokes_and_exports_what_the_plan_did(
    stack: str, make: Callable[[ProgramRun], Callable[[], None]]
) -> None:
    run = plan(stack)
    check_same(run, floor(run, make))


def test_the_floor_keeps_secrets_secret_and_unknowns_unknown() -> None:
    run = plan("dev")
    replayed = floor(run)
    provider = next(r for r in replayed.registrations if r.type == "pulumi:providers:kubernetes")
    assert isinstance(provider.inputs["kubeconfig"], Secret)
    assert replayed.exports["kubeconfig"] == run.exports["kubeconfig"]
    assert isinstance(replayed.exports["kubeconfig"], Secret)


def test_a_difference_in_what_was_registered_is_named() -> None:
    run = plan("workstation")
    replayed = floor(run)
    changed = copy.deepcopy(replayed)
    step = next(r for r in changed.registrations if r.name.endswith("-verify"))
    step.inputs["create"] = "true"
    with pytest.raises(AssertionError, match=r"::host-verify: inputs differs: \['create'\]$"):
        check_same(run, changed)
    missing = copy.deepcopy(replayed)
    missing.registrations.pop()
    with pytest.raises(AssertionError, match="URNs differ"):
        check_same(run, missing)


def test_a_secret_of_another_value_or_a_lost_property_dependency_is_named() -> None:
    run = plan("dev")
    replayed = floor(run)
    changed = copy.deepcopy(replayed)
    provider = next(r for r in changed.registrations if r.type == "pulumi:providers:kubernetes")
    provider.inputs["kubeconfig"] = Secret("another kubeconfig")
    with pytest.raises(AssertionError, match=r"::cluster-k8s: inputs differs: \['kubeconfig'\]"):
        check_same(run, changed)
    changed = copy.deepcopy(replayed)
    provider = next(r for r in changed.registrations if r.type == "pulumi:providers:kubernetes")
    provider.property_dependencies["kubeconfig"] = []
    with pytest.raises(AssertionError, match=r"::cluster-k8s: property_dependencies differs"):
        check_same(run, changed)


def test_a_read_resource_is_refused_not_skipped() -> None:
    run = plan("workstation")
    run.registrations[-1].read = True
    with pytest.raises(ValueError, match="read"):
        replay(run)


def test_types_resolve_to_the_provider_sdks_own_classes() -> None:
    assert sdk_class("oci:Core/instance:Instance") is pulumi_oci.core.Instance
    assert sdk_class("command:remote:Command") is pulumi_command.remote.Command
    assert sdk_class("kubernetes:helm.sh/v3:Release") is pulumi_kubernetes.helm.v3.Release
    assert sdk_class("pulumi:providers:kubernetes") is pulumi_kubernetes.Provider
    assert (
        sdk_class("kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntimePatch")
        is pulumi_kubernetes.apiextensions.CustomResourcePatch
    )
    with pytest.raises(LookupError, match="no SDK registers the resource type gpu-ci:x:Y"):
        sdk_class("gpu-ci:x:Y")
