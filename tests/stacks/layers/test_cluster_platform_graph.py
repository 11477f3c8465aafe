"""Cluster and platform layers in one stack, and split over two stacks."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path
from typing import Any

import pulumi
import pytest

from stacks.offline.engine.fakes import FAKE_KUBECONFIG
from stacks.offline.engine.records import ProgramRun
from stacks.offline.engine.values import Secret, reveal
from stacks.offline.plan import REPO, plan_run
from stacks.offline.snapshot.recorded import dumps, snapshot_of
from tests.stacks.stack_helpers import dev_stack, placeholder_of, run_stack

REMOTE = "command:remote:Command"
PROVIDER = "pulumi:providers:kubernetes"
RELEASE = "kubernetes:helm.sh/v3:Release"
PATCH = "kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntimePatch"
TOKEN = "offline-plan-fake-admin-token"


@pytest.fixture(scope="module")
def run() -> ProgramRun:
    return run_stack(dev_stack())


def test_cluster_follows_the_verified_host_and_feeds_the_provider(run: ProgramRun) -> None:
    step = run.one(REMOTE, "cluster-nvkind-cluster")
    assert run.one(REMOTE, "host-0-verify").urn in step.dependencies
    assert step.options["deleteBeforeReplace"] is True
    assert {"stdout", "stderr"} <= set(step.options["additionalSecretOutputs"])
    assert step.inputs["logging"] == "none"
    assert "GPU_CI_STEP=nvkind-cluster-delete" in step.inputs["delete"]
    assert step.inputs["addPreviousOutputInEnv"] is False  # its stdout holds the kubeconfig
    # The provider's kubeconfig comes from the reader step, which waits for the cluster
    # step but takes none of its outputs: an in-place re-run of the cluster step (a host
    # pin bump) leaves the provider, and everything on it, alone.
    read = run.one(REMOTE, "cluster-cluster-kubeconfig")
    assert step.urn in read.dependencies
    assert read.property_dependencies.get("stdin", []) == []
    assert read.inputs["triggers"] == step.inputs["triggers"]  # replaced with the cluster
    assert read.options["ignoreChanges"] == ["stdin"]
    assert read.inputs["logging"] == "none" and read.inputs["addPreviousOutputInEnv"] is False
    assert {"stdout", "stderr"} <= set(read.options["additionalSecretOutputs"])
    assert "GPU_CI_STEP=cluster-kubeconfig" in read.inputs["stdin"]
    provider = run.one(PROVIDER, "cluster-k8s")
    assert provider.property_dependencies["kubeconfig"] == [read.urn]
    assert isinstance(provider.inputs["kubeconfig"], Secret)


def test_the_kind_config_is_the_rendered_spec(run: ProgramRun) -> None:
    script = run.one(REMOTE, "cluster-nvkind-cluster").inputs["stdin"]
    assert "readonly CLUSTER_NAME=gpu-ci" in script
    assert "containerPath: /var/run/nvidia-container-devices/all" in script
    assert "nvidia.com/gpu.present" in script
    assert "kindest/node:v1.35.0@sha256:" in script


def test_releases_deploy_through_the_clusters_provider_in_order(run: ProgramRun) -> None:
    provider = run.one(PROVIDER, "cluster-k8s").urn
    releases = {r.name: r for r in run.by_type(RELEASE)}
    # The recipe's two, and the monitoring stack (tests/stacks/layers/test_observability_graph)
    assert set(releases) == {"platform-gpu-operator", "platform-kubeflow-trainer", "monitoring"}
    assert all(r.options["provider"].startswith(provider) for r in releases.values())
    trainer = releases["platform-kubeflow-trainer"]
    assert releases["platform-gpu-operator"].urn in trainer.dependencies
    for patch in run.by_type(PATCH):
        assert trainer.urn in patch.dependencies
        assert patch.options["provider"].startswith(provider)


def test_gpu_readiness_waits_for_the_platform(run: ProgramRun) -> None:
    ready = run.one(REMOTE, "cluster-cluster-ready")
    assert run.one(RELEASE, "platform-gpu-operator").urn in ready.dependencies
    assert run.one(REMOTE, "cluster-nvkind-cluster").urn in ready.dependencies
    assert "readonly EXPECTED_GPUS=1" in ready.inputs["stdin"]


def test_the_kubeconfig_is_a_secret_everywhere() -> None:
    applied = run_stack(dev_stack(), preview=False)
    assert reveal(applied.one(PROVIDER, "cluster-k8s").inputs["kubeconfig"]) == FAKE_KUBECONFIG
    assert isinstance(applied.exports["kubeconfig"], Secret)
    text = dumps(snapshot_of(applied)) + json.dumps(applied.logs) + repr(applied.exports)
    for registration in applied.registrations:
        text += json.dumps(registration.outputs, default=repr)
    assert TOKEN not in text
    assert base64.b64encode(FAKE_KUBECONFIG.encode()).decode()[:40] not in text


def test_cluster_contract_is_exported_with_its_facts() -> None:
    applied = run_stack(dev_stack(), preview=False)
    assert applied.exports["cluster"] == {
        "contractVersion": 1,
        "kind": "nvkind",
        "name": "gpu-ci",
        "nodeImage": applied.exports["cluster"]["nodeImage"],
        "kubernetesVersion": "v1.35.0",
        "gpuCount": 1,
        "apiServerPort": 6443,
        "facts": {
            "K8s.server.version": "v1.35.0",
            "GPU.info.type": "A10",
            "OS.release.ID": "ubuntu",
            "OS.release.VERSION_ID": "24.04",
            "Host.driver.branch": "570-server",
            "Host.toolkit.version": "1.17.8-1",
        },
    }


def test_a_node_image_the_recipe_rejects_stops_the_plan() -> None:
    config = dev_stack(**{"gpu-ci:cluster": {"nodeImage": "kindest/node:v1.32.8"}})
    with pytest.raises(pulumi.RunError) as failure:
        run_stack(config)
    message = str(failure.value)
    assert "does not fit this stack" in message
    assert "K8s.server.version >= 1.33: expected >= 1.33, got v1.32.8" in message
    assert "fix: create the cluster with `nvkind cluster create --image" in message


def test_an_unknown_os_is_reported_unchecked_not_passed() -> None:
    config = dev_stack(**{"gpu-ci:vm": {"image": {"id": "ocid1.image.oc1..aaaaimage"}}})
    run = run_stack(config)
    warnings = [m for level, m in run.logs if level == "warning"]
    assert any(
        "unchecked recipe constraints (fact unknown)" in w and "OS.release.ID ubuntu" in w
        for w in warnings
    )


def test_overrides_reach_the_release_and_bad_ones_stop_the_plan() -> None:
    config = dev_stack(**{"gpu-ci:platform": {"set": ["gpu-operator:dcgmExporter.enabled=false"]}})
    run = run_stack(config)
    values = run.one(RELEASE, "platform-gpu-operator").inputs["values"]
    assert values["dcgmExporter"]["enabled"] is False
    with pytest.raises(pulumi.RunError, match=r"\n  - gpu-ci:platform.set\[0\]: .*'gpu-opertor'"):
        run_stack(dev_stack(**{"gpu-ci:platform": {"set": ["gpu-opertor:x=1"]}}))


def test_disabling_the_trainer_drops_its_runtime_patches() -> None:
    run = run_stack(dev_stack(**{"gpu-ci:platform": {"set": ["kubeflow-trainer:enabled=false"]}}))
    assert [r.name for r in run.by_type(RELEASE) if r.name != "monitoring"] == [
        "platform-gpu-operator"
    ]
    assert run.by_type(PATCH) == []


def test_two_stacks_plan_with_the_reference_fed_from_the_first() -> None:
    apps = plan_run("apps-dev")
    reference = apps.one("pulumi:pulumi:StackReference")
    assert reference.inputs["name"] == "organization/gpu-ci/gpu-dev"
    provider = apps.one(PROVIDER, "cluster-k8s")
    assert isinstance(provider.inputs["kubeconfig"], Secret)
    assert placeholder_of(provider) == "gpu-dev"
    assert reference.parent == apps.one("gpu-ci:cluster:ClusterReference").urn
    releases = apps.by_type(RELEASE)
    assert len(releases) == 3  # the recipe's two and the monitoring stack, on gpu-dev's cluster
    assert all(r.options["provider"].startswith(provider.urn) for r in releases)
    assert not [r for r in apps.registrations if r.type.startswith(("oci:", "command:"))]


def _project(tmp: Path, stacks: dict[str, str]) -> Path:
    shutil.copy(REPO / "Pulumi.yaml", tmp / "Pulumi.yaml")
    for name, text in stacks.items():
        (tmp / f"Pulumi.{name}.yaml").write_text(text)
    return tmp


def test_the_cluster_stacks_facts_are_checked_by_the_platform_stack(tmp_path: Path) -> None:
    gpu = (
        (REPO / "Pulumi.gpu-dev.yaml")
        .read_text()
        .replace("    gpus: all", "    gpus: all\n    nodeImage: kindest/node:v1.32.8")
    )
    assert "nodeImage: kindest/node:v1.32.8" in gpu
    root = _project(
        tmp_path,
        {"gpu-dev": gpu, "apps-dev": (REPO / "Pulumi.apps-dev.yaml").read_text()},
    )
    with pytest.raises(pulumi.RunError, match=r"K8s.server.version >= 1.33: expected >= 1.33"):
        plan_run("apps-dev", root)


def test_a_reference_cycle_or_foreign_project_is_refused(tmp_path: Path) -> None:
    apps = "config:\n  gpu-ci:platform:\n    clusterStack: {}\n    accelerator: a10\n"
    root = _project(tmp_path, {"a": apps.format("b"), "b": apps.format("a")})
    with pytest.raises(Exception, match=r"stack references form a cycle: a -> b -> a"):
        plan_run("a", root)
    root = _project(tmp_path, {"c": apps.format("org/other-project/gpu")})
    with pytest.raises(Exception, match=r"names project 'other-project'"):
        plan_run("c", root)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"gpu-ci:platform": {"clusterStack": "gpu-dev"}},
            "gpu-ci:platform: clusterStack reads the cluster from another stack, but this "
            "stack creates one",
        ),
        (
            {"gpu-ci:cluster": None},
            "gpu-ci:platform: the platform needs a cluster",
        ),
        (
            {"gpu-ci:vm": {"count": 2}},
            "gpu-ci:cluster: an nvkind cluster lives on one host, but gpu-ci:vm.count is 2",
        ),
        (
            {"gpu-ci:network": {"sshSourceCidrs": ["198.51.100.0/24"]}},
            "gpu-ci:cluster: the Kubernetes API of a cluster on a VM is reached through the NSG",
        ),
        (
            {"gpu-ci:cluster": {"apiServerPort": 7443}},
            "gpu-ci:cluster: apiServerPort 7443 differs from gpu-ci:network.apiPort 6443",
        ),
    ],
)
def test_cross_layer_rules_name_their_key(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(pulumi.RunError) as failure:
        run_stack(dev_stack(**changes))
    assert message in str(failure.value)


def test_a_host_rerun_adopts_the_cluster_in_place(run: ProgramRun) -> None:
    step = run.one(REMOTE, "cluster-nvkind-cluster")
    assert step.inputs["update"] == step.inputs["create"]


def local_cluster(**host: Any) -> dict[str, Any]:
    return {
        "gpu-ci:capacity": "none",
        "gpu-ci:host": {"target": "local", **host},
        "gpu-ci:cluster": {"name": "gpu-ci", "gpus": "one-per-gpu"},
    }


def test_a_host_of_unknown_size_accepts_any_gpu_count() -> None:
    run = run_stack({**local_cluster(), "gpu-ci:cluster": {"name": "gpu-ci"}})
    script = run.one("command:local:Command", "cluster-nvkind-cluster").inputs["stdin"]
    assert "readonly EXPECTED_GPUS=0" in script


def test_one_worker_per_gpu_needs_the_hosts_gpu_count() -> None:
    with pytest.raises(pulumi.RunError, match=r"gpu-ci:cluster: gpus: one-per-gpu needs"):
        run_stack(local_cluster())
    run = run_stack(local_cluster(gpus=2))
    script = run.one("command:local:Command", "cluster-nvkind-cluster").inputs["stdin"]
    assert "readonly EXPECTED_GPUS=2" in script
    assert "containerPath: /var/run/nvidia-container-devices/1" in script


def test_a_cluster_of_unknown_gpu_count_is_read_by_the_platform_stack() -> None:
    # The SDK drops null outputs, so `gpuCount: None` arrives absent: the platform stack
    # reads the contract as every consumer does (stacks.contracts), nulls restored.
    from stacks.offline.engine.fakes import FakeCloud, StackExports
    from stacks.offline.engine.mocks import run_program
    from stacks.program import main
    from tests.stacks.stack_helpers import CLUSTER_EXPORT, flat

    cluster = {k: v for k, v in CLUSTER_EXPORT.items() if k != "gpuCount"}
    values = {"gpu-ci:platform": {"clusterStack": "gpu-local", "accelerator": "a10"}}
    exports = StackExports({"cluster": cluster, "kubeconfig": "k"}, frozenset({"kubeconfig"}))
    run = run_program(
        main,
        project="gpu-ci",
        stack="apps",
        config=flat(values),
        cloud=FakeCloud(flat(values), {"gpu-local": exports}),
        preview=False,
    )
    assert run.exports["platform"]["constraints"]["passed"] == [
        "Deployment.gpu-operator.version",
        "K8s.server.version",
    ]
