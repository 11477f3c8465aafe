"""The arc capacity's graph: components, parents, edges, options, exports and secrets."""

from __future__ import annotations

import json
from pathlib import Path

from stacks.offline.engine.records import ProgramRun, Registration
from stacks.offline.engine.values import Secret, reveal
from stacks.offline.plan import REPO, plan_run
from stacks.offline.snapshot.recorded import dumps, snapshot_of
from stacks.outputs import ArcCapacityOutputs
from tests.components.arc.arc_helpers import (
    CLEANUP,
    CLUSTER,
    CONFIG_MAP,
    CONTROLLER,
    CRON_JOB,
    NODE_POOL,
    OKE,
    PEM,
    RELEASE,
    SCALE_SET,
    SECRET,
    arc_stack,
    gpu_pod,
    launcher,
    release,
    run_arc,
    secured,
)
from tests.stacks.stack_helpers import children_of

LAUNCHERS = ("oracle-vm-gpu-a10-1", "oracle-vm-gpu-a10-2")
POD_SET = "oke-gpu-a10-pod"


def deps(run: ProgramRun, reg: Registration) -> set[str]:
    """Names of the resources `reg` depends on."""
    by_urn = {r.urn: r.name for r in run.registrations}
    return {by_urn[u] for u in reg.dependencies if u in by_urn}


def test_components_and_their_children(example_plan: ProgramRun) -> None:
    run = example_plan
    top = {
        r.type for r in run.registrations if r.parent.endswith("pulumi:pulumi:Stack::gpu-ci-arc")
    }
    assert top == {
        "gpu-ci:network:OciNetwork",
        OKE,
        CONTROLLER,
        SCALE_SET,
        CLEANUP,
        "gpu-ci:platform:RecipeReleases",  # the GPU operator on the A10 pool
        "gpu-ci:observability:Monitoring",
    }
    assert sorted(r.name for r in run.by_type(SCALE_SET)) == sorted(
        f"scale-set-{n}" for n in (*LAUNCHERS, POD_SET)
    )
    oke = run.one(OKE)
    assert {r.type for r in children_of(run, oke)} == {
        "oci:Core/networkSecurityGroup:NetworkSecurityGroup",
        "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule",
        CLUSTER,
        NODE_POOL,
        "pulumi:providers:kubernetes",
    }
    launcher_set = run.one(SCALE_SET, "scale-set-oracle-vm-gpu-a10-1")
    assert sorted(r.name for r in children_of(run, launcher_set)) == [
        "scale-set-oracle-vm-gpu-a10-1",
        "scale-set-oracle-vm-gpu-a10-1-github-app",
        "scale-set-oracle-vm-gpu-a10-1-oci",
    ]
    pod_set = run.one(SCALE_SET, f"scale-set-{POD_SET}")
    assert sorted(r.type for r in children_of(run, pod_set)) == [CONFIG_MAP, SECRET, RELEASE]


def test_every_custom_resource_is_inside_a_component(example_plan: ProgramRun) -> None:
    components = {r.urn for r in example_plan.registrations if not r.custom}
    assert all(r.parent in components for r in example_plan.registrations if r.custom)


def test_oke_cluster_then_node_pools_then_controller(example_plan: ProgramRun) -> None:
    run = example_plan
    network = {r.name for r in children_of(run, run.one("gpu-ci:network:OciNetwork"))}
    assert network <= deps(run, run.one(OKE))  # the whole network first
    cluster = run.one(CLUSTER)
    assert {"oke-nsg-members", "oke-nsg-egress", "network-subnet"} <= deps(run, cluster)
    for pool in run.by_type(NODE_POOL):
        assert "oke" in deps(run, pool)
    controller = release(run, "arc")
    assert deps(run, controller) == {"oke-cpu", "arc-controller-ns"}


def test_controller_then_secrets_then_scale_sets(example_plan: ProgramRun) -> None:
    run = example_plan
    for name in (*LAUNCHERS, POD_SET):
        for secret in run.by_type(SECRET):
            if secret.name.startswith(f"scale-set-{name}-"):
                assert "arc-controller" in deps(run, secret), secret.name
        scale_set = release(run, name)
        found = deps(run, scale_set)
        assert {"arc-controller", f"scale-set-{name}-github-app"} <= found
        assert ("oke-gpu" in found) == (name == POD_SET)  # gpu-pod sets wait for GPU nodes
        assert ("oke-cpu" in found) == (name != POD_SET)  # launchers for the CPU pool
    assert "scale-set-oracle-vm-gpu-a10-1-oci" in deps(run, release(run, LAUNCHERS[0]))
    assert f"scale-set-{POD_SET}-hook-template" in deps(run, release(run, POD_SET))
    # The example's launchers name their subnets: no edge to this stack's network.
    assert not {"network-subnet", "network-nsg"} & deps(run, release(run, LAUNCHERS[1]))
    cron = run.one(CRON_JOB)
    assert {"arc-controller", "failed-runner-cleanup-binding"} <= deps(run, cron)


def test_vms_in_this_stacks_network_wait_for_its_subnet_and_nsg(own_network: ProgramRun) -> None:
    assert {"network-subnet", "network-nsg"} <= deps(
        own_network, release(own_network, LAUNCHERS[1])
    )


def test_kubernetes_resources_use_the_oke_provider(example_plan: ProgramRun) -> None:
    run = example_plan
    provider = run.one("pulumi:providers:kubernetes")
    assert provider.name == "oke-k8s" and isinstance(provider.inputs["kubeconfig"], Secret)
    for reg in run.registrations:
        if reg.type.startswith("kubernetes:"):
            assert reg.options["provider"].startswith(provider.urn), reg.name


def test_releases_pin_the_charts_and_name_the_controller_account(example_plan: ProgramRun) -> None:
    run = example_plan
    controller = release(run, "arc")
    assert controller.inputs["chart"] == (
        "oci://ghcr.io/actions/actions-runner-controller-charts/gha-runner-scale-set-controller"
    )
    assert controller.inputs["version"] == "0.14.2"
    assert controller.inputs["namespace"] == "arc-systems"
    assert controller.inputs["values"]["serviceAccount"] == {
        "create": True,
        "name": "arc-gha-rs-controller",
    }
    assert controller.inputs["values"]["flags"] == {"runnerMaxConcurrentReconciles": 10}
    for name in (*LAUNCHERS, POD_SET):
        inputs = release(run, name).inputs
        assert inputs["chart"].endswith("/actions-runner-controller-charts/gha-runner-scale-set")
        assert inputs["version"] == "0.14.2" and inputs["namespace"] == "arc-runners"
        assert inputs["values"]["controllerServiceAccount"] == {
            "namespace": "arc-systems",
            "name": "arc-gha-rs-controller",
        }
        assert inputs["values"]["githubConfigSecret"] == f"{name}-github-app"


def test_no_secret_in_plain_text_anywhere(example_plan: ProgramRun, example: ProgramRun) -> None:
    for run in (example_plan, example):
        text = dumps(snapshot_of(run))
        assert "offline-placeholder" not in text and "PLACEHOLDER" not in text
        assert "PRIVATE KEY" not in text
        # 5 Secrets of the scale sets, Grafana's admin Secret and the kubeconfig
        assert text.count('"[secret]"') == 7
        assert all("offline-placeholder" not in message for _, message in run.logs)
    secret = next(r for r in example.by_type(SECRET) if r.name.endswith("a10-1-github-app"))
    data = secret.inputs["stringData"]
    assert isinstance(data, Secret)
    assert sorted(reveal(data)) == [
        "github_app_id",
        "github_app_installation_id",
        "github_app_private_key",
    ]
    assert reveal(data)["github_app_id"] == "1234567"
    assert reveal(data)["github_app_private_key"].startswith("offline-placeholder:gpu-ci:arc")


def test_real_credentials_stay_secret() -> None:
    run = run_arc(arc_stack(launcher(), gpu_pod()))
    text = dumps(snapshot_of(run))
    for needle in ("PRIVATE KEY", "ocid1.user", "12:34:56", "not-a-real-token"):
        assert needle not in text, needle
    oci = next(r for r in run.by_type(SECRET) if r.name.endswith("-oci"))
    assert reveal(oci.inputs["stringData"])["oci_api_key.pem"] == PEM


def test_exports_the_typed_contract(example: ProgramRun, example_plan: ProgramRun) -> None:
    contract = ArcCapacityOutputs.model_validate(example.exports["capacity"])
    assert contract.kind == "arc" and contract.cluster == "oke"
    assert contract.clusterId is not None and contract.clusterId.startswith("ocid1.cluster.")
    assert sorted(contract.nodePoolIds) == ["cpu", "gpu"]
    assert [s.name for s in contract.scaleSets] == [*LAUNCHERS, POD_SET]
    assert contract.scaleSets[0].labels == ["oracle-vm-gpu-a10-1"]
    assert contract.scaleSets[0].runnerGroup == "GPUs" and contract.scaleSets[0].maxRunners == 20
    assert contract.controller["serviceAccount"] == "arc-gha-rs-controller"
    assert contract.failedRunnerCleanup == "*/10 * * * *"
    assert contract.launchSubnetId is not None and contract.launchNsgId is not None
    assert example_plan.exports["capacity"] == "[unknown]"  # ids come at deploy time


def test_existing_cluster_and_secret_create_neither_oke_nor_app_secret() -> None:
    run = run_arc(arc_stack(launcher(), gpu_pod(), githubApp=None, existingSecret="org-github-app"))
    assert not run.by_type(OKE) and not run.by_type("gpu-ci:network:OciNetwork")
    assert [r.name for r in run.by_type(SECRET) if r.name.startswith("scale-set-")] == [
        "scale-set-oracle-vm-gpu-a10-1-oci"
    ]
    assert release(run, "gpu-a10-pod").inputs["values"]["githubConfigSecret"] == "org-github-app"
    provider = run.one("pulumi:providers:kubernetes")
    assert provider.name == "cluster-k8s" and isinstance(provider.inputs["kubeconfig"], Secret)
    assert run.one("gpu-ci:arc:KubeconfigCluster").urn == provider.parent
    assert deps(run, release(run, "arc")) == {"arc-controller-ns"}
    contract = ArcCapacityOutputs.model_validate(run.exports["capacity"])
    assert contract.cluster == "kubeconfig" and contract.clusterId is None
    assert contract.nodePoolIds == {} and contract.launchSubnetId is None


def test_cluster_stack_reads_another_stack_of_the_project(tmp_path: Path) -> None:
    for name in ("Pulumi.yaml", "Pulumi.gpu-dev.yaml"):
        (tmp_path / name).write_text((REPO / name).read_text())
    values = arc_stack(launcher(), gpu_pod(), cluster={"clusterStack": "gpu-dev"})
    config = {"config": secured(values)}  # credentials set with --secret
    (tmp_path / "Pulumi.arc-on-kind.yaml").write_text(json.dumps(config))
    run = plan_run("arc-on-kind", tmp_path)
    reference = run.one("pulumi:pulumi:StackReference")
    assert reference.inputs["name"] == "gpu-dev"
    provider = run.one("pulumi:providers:kubernetes")
    assert provider.parent == run.one("gpu-ci:cluster:ClusterReference").urn
    assert isinstance(provider.inputs["kubeconfig"], Secret)
    assert release(run, "arc").options["provider"].startswith(provider.urn)
