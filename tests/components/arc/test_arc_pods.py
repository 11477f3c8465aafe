"""The pods each runner kind gets: launchers without GPUs on the CPU pool, with OCI
credentials and their VM arguments; GPU pods with limits, runtime class, tolerations and
selectors, carried by a container-hook template in kubernetes mode."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from stacks.offline.engine.records import ProgramRun
from stacks.offline.engine.values import reveal
from tests.components.arc.arc_helpers import (
    CONFIG_MAP,
    SECRET,
    arc_stack,
    gpu_pod,
    launcher,
    oke,
    release,
    run_arc,
    runner_set,
)

GPU_POOL = {"gpu-ci/pool": "gpu", "nvidia.com/gpu.present": "true"}
GPU_TAINT = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


def pod_spec(run: ProgramRun, name: str) -> dict[str, Any]:
    spec: dict[str, Any] = release(run, name).inputs["values"]["template"]["spec"]
    return spec


def runner(spec: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = next(c for c in spec["containers"] if c["name"] == "runner")
    return found


def hook(run: ProgramRun, name: str) -> dict[str, Any]:
    config_map = next(
        r for r in run.by_type(CONFIG_MAP) if r.name == f"scale-set-{name}-hook-template"
    )
    template: dict[str, Any] = yaml.safe_load(config_map.inputs["data"]["gpu-job.yaml"])
    return template


def test_launcher_pod_has_no_gpu_and_runs_on_the_cpu_pool(example: ProgramRun) -> None:
    spec = pod_spec(example, "oracle-vm-gpu-a10-1")
    container = runner(spec)
    assert "resources" not in container  # no nvidia.com/gpu: the VM has the GPU
    assert container["image"].startswith("ghcr.io/cncf/gha-cloudrunner@sha256:")
    assert spec["nodeSelector"] == {"gpu-ci/pool": "cpu"} and "tolerations" not in spec
    assert "runtimeClassName" not in spec
    assert container["env"] == [{"name": "OCI_CONFIG_FILE", "value": "/etc/oci/config"}]
    assert container["volumeMounts"] == [
        {"name": "oci-credentials", "mountPath": "/etc/oci", "readOnly": True}
    ]
    assert spec["volumes"] == [
        {"name": "oci-credentials", "secret": {"secretName": "oracle-vm-gpu-a10-1-oci"}}
    ]
    assert "containerMode" not in release(example, "oracle-vm-gpu-a10-1").inputs["values"]


def test_launcher_arguments_follow_the_config(example: ProgramRun) -> None:
    assert runner(pod_spec(example, "oracle-vm-gpu-a10-1"))["args"] == [
        "--arch=amd64",
        "--running-environment=production",
        "--shape=VM.GPU.A10.1",
        "--compartment-id=ocid1.compartment.oc1..aaaaaaaagpuciarcexamplecompartment",
        "--region=us-sanjose-1",
        "--availability-domain=bzBe:US-SANJOSE-1-AD-1",
        "--subnet-id=ocid1.subnet.oc1.us-sanjose-1.aaaaaaaaexamplesanjosesubnet",
        "--fallback-region=us-ashburn-1",
        "--fallback-availability-domain=bzBe:US-ASHBURN-AD-2",
        "--fallback-subnet-id=ocid1.subnet.oc1.iad.aaaaaaaaexampleashburnsubnet",
        "--preemptible=false",
        "--boot-volume-size-gb=400",
    ]


def test_launched_vms_use_this_stacks_subnet_and_nsg(own_network: ProgramRun) -> None:
    args = runner(pod_spec(own_network, "oracle-vm-gpu-a10-2"))["args"]
    subnet_id = own_network.exports["capacity"]["launchSubnetId"]
    nsg_id = own_network.exports["capacity"]["launchNsgId"]
    assert subnet_id.startswith("ocid1.subnet.") and nsg_id.startswith(
        "ocid1.networksecuritygroup."
    )
    assert f"--subnet-id={subnet_id}" in args and f"--nsg-id={nsg_id}" in args
    assert "--shape=VM.GPU.A10.2" in args
    assert not any(a.startswith("--fallback") for a in args)


def test_shapes_are_tried_in_order_and_extra_args_come_last() -> None:
    run = run_arc(
        arc_stack(
            launcher(
                shapes=["VM.GPU.A10.2", "VM.GPU.A10.1"],
                preemptible=True,
                bootVolumeSizeGbs=600,
                vmImage={"arch": "arm64", "runningEnvironment": "ci"},
                extraArgs=["--debug"],
            )
        )
    )
    args = runner(pod_spec(run, "oracle-vm-gpu-a10-1"))["args"]
    assert "--shape=VM.GPU.A10.2,VM.GPU.A10.1" in args
    assert {"--arch=arm64", "--running-environment=ci", "--preemptible=true"} <= set(args)
    assert "--boot-volume-size-gb=600" in args and args[-1] == "--debug"


def test_oci_credentials_secret_holds_the_sdk_config_and_key(example: ProgramRun) -> None:
    secret = next(
        r for r in example.by_type(SECRET) if r.name == "scale-set-oracle-vm-gpu-a10-1-oci"
    )
    assert secret.inputs["metadata"]["name"] == "oracle-vm-gpu-a10-1-oci"
    assert secret.inputs["metadata"]["namespace"] == "arc-runners"
    data = reveal(secret.inputs["stringData"])
    config = data["config"].splitlines()
    assert config[0] == "[DEFAULT]"
    assert config[-1] == "key_file=/etc/oci/oci_api_key.pem"
    keys = [line.split("=", 1)[0] for line in config[1:]]
    assert keys == ["user", "fingerprint", "tenancy", "region", "key_file"]
    assert data["oci_api_key.pem"].startswith("offline-placeholder:gpu-ci:arc.scaleSets[0]")


def test_kubernetes_mode_job_pods_get_the_gpu_through_the_hook(
    example: ProgramRun, upstream: Path
) -> None:
    name = "oke-gpu-a10-pod"
    values = release(example, name).inputs["values"]
    assert values["containerMode"] == {
        "type": "kubernetes",
        "kubernetesModeWorkVolumeClaim": {
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "50Gi"}},
        },
    }
    spec = pod_spec(example, name)
    container = runner(spec)
    # The runner pod shares its RWO work volume with the job pod: same pool, no GPU.
    assert spec["nodeSelector"] == GPU_POOL and spec["tolerations"] == [GPU_TAINT]
    assert "resources" not in container
    assert container["env"] == [
        {
            "name": "ACTIONS_RUNNER_CONTAINER_HOOK_TEMPLATE",
            "value": "/home/runner/pod-templates/gpu-job.yaml",
        }
    ]
    assert spec["volumes"] == [
        {"name": "hook-template", "configMap": {"name": "oke-gpu-a10-pod-hook-template"}}
    ]
    assert hook(example, name) == {
        "spec": {
            "containers": [{"name": "$job", "resources": {"limits": {"nvidia.com/gpu": 1}}}],
            "nodeSelector": GPU_POOL,
            "tolerations": [GPU_TAINT],
        }
    }
    # What the chart renders (Helm): its hook env and work volume, next to ours.
    spec = runner_set(release(example, name), upstream)["spec"]["template"]["spec"]
    env = [e["name"] for e in runner(spec)["env"]]
    assert env == [
        "ACTIONS_RUNNER_CONTAINER_HOOK_TEMPLATE",
        "ACTIONS_RUNNER_CONTAINER_HOOKS",
        "ACTIONS_RUNNER_POD_NAME",
        "ACTIONS_RUNNER_REQUIRE_JOB_CONTAINER",
    ]
    assert [v["name"] for v in spec["volumes"]] == ["work", "hook-template"]
    assert spec["serviceAccountName"] == "oke-gpu-a10-pod-gha-rs-kube-mode"


def test_runtime_class_goes_where_the_gpu_goes(upstream: Path) -> None:
    run = run_arc(
        arc_stack(
            gpu_pod("dind-a10", containerMode="dind", runtimeClassName="nvidia", gpus=2),
            gpu_pod("kube-a10", runtimeClassName="nvidia"),
        )
    )
    dind = pod_spec(run, "dind-a10")
    assert dind["runtimeClassName"] == "nvidia"
    assert runner(dind)["resources"] == {"limits": {"nvidia.com/gpu": 2}}
    assert dind["tolerations"] == [GPU_TAINT] and "nodeSelector" not in dind  # not OKE
    assert release(run, "dind-a10").inputs["values"]["containerMode"] == {"type": "dind"}
    assert not [r for r in run.by_type(CONFIG_MAP) if "dind-a10" in r.name]
    kube = pod_spec(run, "kube-a10")
    assert "runtimeClassName" not in kube  # the runner pod runs no GPU work
    template = hook(run, "kube-a10")["spec"]
    assert template["runtimeClassName"] == "nvidia" and template["tolerations"] == [GPU_TAINT]
    rendered = runner_set(release(run, "dind-a10"), upstream)["spec"]["template"]["spec"]
    assert [c["name"] for c in rendered["initContainers"]] == ["init-dind-externals", "dind"]
    assert runner(rendered)["resources"]["limits"] == {"nvidia.com/gpu": 2}


def test_explicit_placement_wins_over_pool_defaults() -> None:
    selector = {"example.com/gpus": "a10"}
    tolerations = [
        {"key": "example.com/gpus", "operator": "Equal", "value": "a10", "effect": "NoExecute"}
    ]
    run = run_arc(
        arc_stack(
            launcher(nodeSelector={"pool": "launchers"}, tolerations=[]),
            gpu_pod(
                nodeSelector=selector,
                tolerations=tolerations,
                resources={"limits": {"memory": "8Gi"}},
            ),
            cluster=oke(),
        )
    )
    launcher_spec = pod_spec(run, "oracle-vm-gpu-a10-1")
    assert (
        launcher_spec["nodeSelector"] == {"pool": "launchers"}
        and "tolerations" not in launcher_spec
    )
    template = hook(run, "gpu-a10-pod")["spec"]
    assert template["nodeSelector"] == selector and template["tolerations"] == tolerations
    assert runner(pod_spec(run, "gpu-a10-pod"))["resources"] == {"limits": {"memory": "8Gi"}}


@pytest.mark.parametrize("labels", [[], ["gpu", "a10"]])
def test_name_is_the_label_and_extra_labels_are_scale_set_labels(labels: list[str]) -> None:
    run = run_arc(arc_stack(gpu_pod(labels=labels)))
    values = release(run, "gpu-a10-pod").inputs["values"]
    assert values["runnerScaleSetName"] == "gpu-a10-pod"
    assert values.get("scaleSetLabels", []) == labels
    assert run.exports["capacity"]["scaleSets"][0]["labels"] == ["gpu-a10-pod", *labels]
