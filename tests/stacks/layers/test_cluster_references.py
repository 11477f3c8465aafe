"""The cluster references of a stack: one per referenced stack, each key named in errors.

A stack with both `gpu-ci:arc.cluster.clusterStack` and `gpu-ci:platform.clusterStack`
once registered `ClusterReference::cluster` twice (a duplicate URN the engine refuses).
Keys naming one stack now share its reference and provider; two stacks get two references.
A stack with one reference keeps the URNs it always had, so a deployed one sees no change.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pulumi
import pytest

import stacks.offline.plan
from stacks.config import load_config, raw_from_flat
from stacks.offline.engine.fakes import FakeCloud, StackExports
from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import ProgramRun, Registration
from stacks.offline.plan import REPO, plan_run
from stacks.program import main
from tests.components.arc.arc_helpers import RELEASE, arc_stack, gpu_pod, launcher, release, secured
from tests.stacks.stack_helpers import flat, placeholder_of

REFERENCE = "gpu-ci:cluster:ClusterReference"
STACK_REFERENCE = "pulumi:pulumi:StackReference"
PROVIDER = "pulumi:providers:kubernetes"
ARC_KEY = "gpu-ci:arc.cluster.clusterStack"
PLATFORM_KEY = "gpu-ci:platform.clusterStack"
PLATFORM = {"service": "kind", "accelerator": "a10", "intent": "training", "platform": "kubeflow"}


def both(arc_stack_name: str, platform_stack_name: str) -> dict[str, Any]:
    """An arc stack on a referenced cluster, with the platform on a referenced cluster."""
    values = arc_stack(launcher(), gpu_pod(), cluster={"clusterStack": arc_stack_name})
    values["gpu-ci:platform"] = {"clusterStack": platform_stack_name, **PLATFORM}
    return values


def project(tmp: Path, stacks: dict[str, dict[str, Any] | str]) -> Path:
    """A project dir: Pulumi.yaml, and a stack file per entry (a dict, or a repo stack to
    copy)."""
    shutil.copy(REPO / "Pulumi.yaml", tmp / "Pulumi.yaml")
    for name, source in stacks.items():
        text = (
            (REPO / f"Pulumi.{source}.yaml").read_text()
            if isinstance(source, str)
            else json.dumps({"config": secured(source)})  # credentials set with --secret
        )
        (tmp / f"Pulumi.{name}.yaml").write_text(text)
    return tmp


def uses(reg: Registration, provider: Registration) -> bool:
    """Whether `reg` names `provider` as its provider (the reference is `URN::ID`)."""
    return str(reg.options.get("provider", "")).startswith(provider.urn + "::")


def kubernetes(run: ProgramRun) -> list[Registration]:
    return [r for r in run.registrations if r.custom and r.type.startswith("kubernetes:")]


def platform_resources(run: ProgramRun) -> list[Registration]:
    return [r for r in kubernetes(run) if r.name.startswith("platform")]


def arc_resources(run: ProgramRun) -> list[Registration]:
    return [r for r in kubernetes(run) if not r.name.startswith("platform")]


# -- one stack named by both keys ------------------------------------------------------------


def test_both_keys_naming_one_stack_share_one_reference_and_provider(tmp_path: Path) -> None:
    root = project(tmp_path, {"gpu-dev": "gpu-dev", "ci": both("gpu-dev", "gpu-dev")})
    run = plan_run("ci", root)
    reference = run.one(REFERENCE)
    assert reference.urn == "urn:pulumi:ci::gpu-ci::gpu-ci:cluster:ClusterReference::cluster"
    assert run.one(STACK_REFERENCE).inputs["name"] == "gpu-dev"
    provider = run.one(PROVIDER)
    assert provider.name == "cluster-k8s" and provider.parent == reference.urn
    arc, platform = arc_resources(run), platform_resources(run)
    assert release(run, "arc") in arc and len(platform) >= 2
    assert [r.urn for r in arc + platform if not uses(r, provider)] == []
    assert placeholder_of(provider) == "gpu-dev"


def test_both_keys_naming_one_stack_plan_it_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path, {"gpu-dev": "gpu-dev", "ci": both("gpu-dev", "gpu-dev")})
    planned = spy_on_plans(monkeypatch)
    plan_run("ci", root)
    assert planned == ["gpu-dev"]


# -- two stacks ------------------------------------------------------------------------------


def spy_on_plans(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The stacks `plan_run` plans for the stack it was called for, in order."""
    planned: list[str] = []
    real = stacks.offline.plan.plan_run

    def spy(stack: str, *args: Any, **kwargs: Any) -> ProgramRun:
        planned.append(stack)
        return real(stack, *args, **kwargs)

    monkeypatch.setattr(stacks.offline.plan, "plan_run", spy)
    return planned


@pytest.fixture
def two_clusters(tmp_path: Path) -> Path:
    """The ARC on `gpu-arc`, the platform on `gpu-dev`: two copies of the gpu-dev stack."""
    return project(
        tmp_path,
        {"gpu-dev": "gpu-dev", "gpu-arc": "gpu-dev", "ci": both("gpu-arc", "gpu-dev")},
    )


def test_two_stacks_get_two_references_with_distinct_urns(two_clusters: Path) -> None:
    run = plan_run("ci", two_clusters)
    by_name = {r.name: r for r in run.by_type(REFERENCE)}
    assert sorted(by_name) == ["arc-cluster", "cluster"]
    assert len({r.urn for r in run.registrations}) == len(run.registrations)
    stacks_read = {r.parent: r.inputs["name"] for r in run.by_type(STACK_REFERENCE)}
    assert stacks_read == {by_name["cluster"].urn: "gpu-dev", by_name["arc-cluster"].urn: "gpu-arc"}
    providers = {r.name: r for r in run.by_type(PROVIDER)}
    assert sorted(providers) == ["arc-cluster-k8s", "cluster-k8s"]
    arc_provider, platform_provider = providers["arc-cluster-k8s"], providers["cluster-k8s"]
    assert arc_provider.parent == by_name["arc-cluster"].urn
    # Each layer on its own cluster: the ARC on the ARC key's, the platform on its key's.
    assert [r.urn for r in arc_resources(run) if not uses(r, arc_provider)] == []
    assert [r.urn for r in platform_resources(run) if not uses(r, platform_provider)] == []
    assert release(run, "arc") in arc_resources(run) and platform_resources(run)
    # Both stacks were planned, each read through its own reference.
    assert placeholder_of(arc_provider) == "gpu-arc"
    assert placeholder_of(platform_provider) == "gpu-dev"


def test_two_stacks_are_both_planned(two_clusters: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    planned = spy_on_plans(monkeypatch)
    plan_run("ci", two_clusters)
    assert planned == ["gpu-dev", "gpu-arc"]


# -- stacks with one reference keep their URNs -----------------------------------------------

CLUSTER_URNS = {
    "gpu-ci:cluster:ClusterReference::cluster",
    "gpu-ci:cluster:ClusterReference$pulumi:pulumi:StackReference::cluster-stack",
    "gpu-ci:cluster:ClusterReference$pulumi:providers:kubernetes::cluster-k8s",
}
"""The reference's URNs (after `urn:pulumi:STACK::gpu-ci::`) before references were shared."""


def reference_urns(run: ProgramRun) -> set[str]:
    prefix = f"urn:pulumi:{run.stack}::{run.project}::"
    return {
        r.urn.removeprefix(prefix)
        for r in run.registrations
        if r.type == REFERENCE or r.parent.endswith(f"{REFERENCE}::cluster")
    }


def test_the_platform_example_stack_keeps_its_reference_urns() -> None:
    run = plan_run("apps-dev")
    assert reference_urns(run) == CLUSTER_URNS
    provider = run.one(PROVIDER)
    assert provider.urn.endswith("::cluster-k8s")
    assert platform_resources(run) and all(uses(r, provider) for r in platform_resources(run))


def test_an_arc_stack_on_a_referenced_cluster_keeps_its_reference_urns(tmp_path: Path) -> None:
    values = arc_stack(launcher(), gpu_pod(), cluster={"clusterStack": "gpu-dev"})
    run = plan_run("arc-on-kind", project(tmp_path, {"gpu-dev": "gpu-dev", "arc-on-kind": values}))
    assert reference_urns(run) == CLUSTER_URNS
    provider = run.one(PROVIDER)
    assert kubernetes(run) and all(uses(r, provider) for r in kubernetes(run))


def test_the_arc_example_stack_keeps_its_oke_provider() -> None:
    run = plan_run("arc")
    assert not run.by_type(REFERENCE)
    provider = run.one(PROVIDER)
    assert (
        provider.urn
        == "urn:pulumi:arc::gpu-ci::gpu-ci:arc:OkeCluster$pulumi:providers:kubernetes::oke-k8s"
    )
    assert all(uses(r, provider) for r in run.by_type(RELEASE))


# -- referenced_stacks -----------------------------------------------------------------------


def load(values: dict[str, Any]) -> Any:
    return load_config(raw_from_flat(flat(values), {"gpu-ci:arc"}), "test")


def test_referenced_stacks_lists_each_stack_once_platform_first() -> None:
    assert load(both("gpu-arc", "gpu-dev")).referenced_stacks() == ["gpu-dev", "gpu-arc"]
    assert load(both("gpu-dev", "gpu-dev")).referenced_stacks() == ["gpu-dev"]
    assert load(both("gpu-dev", "org/gpu-ci/gpu-dev")).cluster_stacks() == {
        PLATFORM_KEY: "org/gpu-ci/gpu-dev",
        ARC_KEY: "gpu-dev",
    }
    arc_only = arc_stack(launcher(), cluster={"clusterStack": "gpu-dev"})
    assert load(arc_only).referenced_stacks() == ["gpu-dev"]
    assert load(arc_stack(launcher())).referenced_stacks() == []


def test_stacks_spelled_two_ways_are_planned_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path, {"gpu-dev": "gpu-dev", "ci": both("gpu-dev", "org/gpu-ci/gpu-dev")})
    planned = spy_on_plans(monkeypatch)
    run = plan_run("ci", root)
    assert planned == ["gpu-dev"]
    assert sorted(r.name for r in run.by_type(REFERENCE)) == ["arc-cluster", "cluster"]


# -- errors name the key that named the stack ------------------------------------------------


def plan_failure(root: Path) -> str:
    registered: list[Registration] = []
    with pytest.raises(pulumi.RunError) as failure:
        plan_run("ci", root, registrations=registered)
    assert registered == []
    return str(failure.value)


EXPORTS_NO_CLUSTER = ": stack 'workstation' exports no `cluster`, `kubeconfig` (it exports: host)"


def test_an_arc_reference_without_a_cluster_names_the_arc_key(tmp_path: Path) -> None:
    values = arc_stack(launcher(), cluster={"clusterStack": "workstation"})
    message = plan_failure(project(tmp_path, {"workstation": "workstation", "ci": values}))
    assert message.startswith(ARC_KEY + EXPORTS_NO_CLUSTER), message
    assert PLATFORM_KEY not in message


def test_with_two_references_the_bad_one_is_named(tmp_path: Path) -> None:
    stacks = {"gpu-dev": "gpu-dev", "workstation": "workstation"}
    root = project(tmp_path, {**stacks, "ci": both("workstation", "gpu-dev")})
    message = plan_failure(root)
    assert message.startswith(ARC_KEY + EXPORTS_NO_CLUSTER) and PLATFORM_KEY not in message
    root = project(tmp_path, {**stacks, "ci": both("gpu-dev", "workstation")})
    message = plan_failure(root)
    assert message.startswith(PLATFORM_KEY + EXPORTS_NO_CLUSTER) and ARC_KEY not in message


def test_a_shared_reference_without_a_cluster_names_both_keys(tmp_path: Path) -> None:
    root = project(
        tmp_path, {"workstation": "workstation", "ci": both("workstation", "workstation")}
    )
    message = plan_failure(root)
    assert message.startswith(f"{PLATFORM_KEY} and {ARC_KEY}{EXPORTS_NO_CLUSTER}"), message


def read_failure(values: dict[str, Any], exports: StackExports) -> str:
    """What `pulumi up` reports when the reference itself is read (no offline check first)."""
    cloud = FakeCloud(flat(values), {"gpu-dev": exports})
    with pytest.raises(pulumi.RunError) as failure:
        run_program(
            main,
            project="gpu-ci",
            stack="ci",
            config=flat(values),
            secret_keys={"gpu-ci:arc"},
            cloud=cloud,
        )
    return str(failure.value)


NO_KUBECONFIG = (
    ": stack 'gpu-dev' exports no `kubeconfig`; point clusterStack at a stack that sets "
    "gpu-ci:cluster, deployed first"
)


def test_reading_an_arc_reference_without_a_kubeconfig_names_the_arc_key() -> None:
    values = arc_stack(launcher(), cluster={"clusterStack": "gpu-dev"})
    assert read_failure(values, StackExports({"cluster": {}})) == ARC_KEY + NO_KUBECONFIG


def test_reading_a_shared_reference_without_a_kubeconfig_names_both_keys() -> None:
    message = read_failure(both("gpu-dev", "gpu-dev"), StackExports({"cluster": {}}))
    assert message == f"{PLATFORM_KEY} and {ARC_KEY}{NO_KUBECONFIG}"


# -- only this stack's disposable cluster drops unreachable resources ------------------------


def test_no_provider_of_a_cluster_this_stack_did_not_make_disposable_deletes_unreachable(
    tmp_path: Path,
) -> None:
    root = project(
        tmp_path, {"gpu-dev": "gpu-dev", "gpu-arc": "gpu-dev", "ci": both("gpu-arc", "gpu-dev")}
    )
    runs = [plan_run("ci", root), plan_run("arc")]  # referenced clusters, OKE
    runs.append(
        run_program(  # a kubeconfig cluster
            main,
            project="gpu-ci",
            stack="ci",
            config=flat(arc_stack(launcher())),
            secret_keys={"gpu-ci:arc"},
        )
    )
    providers = [p for run in runs for p in run.by_type(PROVIDER)]
    assert sorted(p.name for p in providers) == [
        "arc-cluster-k8s",
        "cluster-k8s",
        "cluster-k8s",
        "oke-k8s",
    ]
    assert [p.urn for p in providers if "deleteUnreachable" in p.inputs] == []
