"""Step cluster-ready: a bounded wait for Ready nodes and allocatable GPUs that, on
timeout, names exactly what is missing."""

from __future__ import annotations

from typing import Any

import pytest

from components.host.params.cluster import ClusterReadyParams
from components.host.params.step import Step

from .sandbox import Run, Sandbox

KUBECONFIG = "/var/lib/gpu-ci/nvkind/gpu-ci/kubeconfig"
CP = "gpu-ci-control-plane"
WORKER = "gpu-ci-worker"
READY = f"{CP}|True||\n{WORKER}|True|true|1\n"
PLUGIN = "gpu-operator/nvidia-device-plugin-daemonset-x7k2p"


def ready_params(sandbox: Sandbox, **values: Any) -> ClusterReadyParams:
    kubeconfig = sandbox.root / KUBECONFIG.lstrip("/")
    kubeconfig.parent.mkdir(parents=True, exist_ok=True)
    kubeconfig.write_text("apiVersion: v1\nkind: Config\n")
    return sandbox.params(ClusterReadyParams, kubeconfig_path=KUBECONFIG, **values)


def wait(sandbox: Sandbox, **values: Any) -> Run:
    return sandbox.run(Step.CLUSTER_READY, ready_params(sandbox, **values))


def kubectl(sandbox: Sandbox, what: str) -> str:
    return f"kubectl --kubeconfig {sandbox.root}{KUBECONFIG} --request-timeout=20s get {what}"


def test_ready_cluster_passes_at_the_first_poll(sandbox: Sandbox) -> None:
    sandbox.kube_nodes(READY)
    run = wait(sandbox)
    assert run.returncode == 0, run.stderr
    assert len(run.calls) == 1
    assert run.calls[0].startswith(kubectl(sandbox, "nodes -o jsonpath={range .items[*]}"))
    assert run.result().changed is False
    assert run.result().model_extra == {"nodes": 2, "gpuAllocatable": 1, "polls": 1}


def test_waits_until_nodes_are_ready_and_gpus_allocatable(sandbox: Sandbox) -> None:
    sandbox.kube_nodes(
        f"{CP}|False||\n{WORKER}|False|true|\n",
        f"{CP}|True||\n{WORKER}|True|true|0\n",
        READY,
    )
    run = wait(sandbox, poll_seconds=5)
    assert run.returncode == 0, run.stderr
    assert run.commands() == ["kubectl", "sleep", "kubectl", "sleep", "kubectl"]
    assert run.calls[1] == "sleep 5"
    assert run.result().model_extra == {"nodes": 2, "gpuAllocatable": 1, "polls": 3}


def test_timeout_names_every_missing_part(sandbox: Sandbox) -> None:
    sandbox.kube_nodes(f"{CP}|True||\n{WORKER}|False||\n")
    sandbox.kube_pods("kube-system/coredns-abc|Running", "kube-system/kindnet-x|Running")
    run = wait(sandbox, timeout_seconds=30, poll_seconds=10)
    assert run.returncode != 0
    assert run.commands() == ["kubectl", "sleep"] * 3 + ["kubectl", "kubectl"]
    assert run.calls[-1].startswith(kubectl(sandbox, "pods -A -o jsonpath="))
    assert run.stderr.splitlines() == [
        "gpu-ci step cluster-ready: cluster not ready after 4 poll(s) within 30s: "
        f"node(s) not Ready: {WORKER} (Ready=False); "
        f"nvidia.com/gpu allocatable 0 of 1 expected ({CP}=0, {WORKER}=0); "
        "no node is labelled nvidia.com/gpu.present=true; "
        "no nvidia-device-plugin pod in any namespace (install the GPU operator or the "
        "device plugin)"
    ]
    assert run.stdout == ""


def test_timeout_with_a_pending_device_plugin(sandbox: Sandbox) -> None:
    sandbox.kube_nodes(f"{CP}|True||\n{WORKER}|True|true|\n")
    sandbox.kube_pods("kube-system/coredns-abc|Running", f"{PLUGIN}|Pending")
    run = wait(sandbox, timeout_seconds=10, poll_seconds=10)
    assert run.returncode != 0
    assert run.stderr.splitlines()[-1] == (
        "gpu-ci step cluster-ready: cluster not ready after 2 poll(s) within 10s: "
        f"nvidia.com/gpu allocatable 0 of 1 expected ({CP}=0, {WORKER}=0); "
        f"device plugin pods: {PLUGIN} (Pending)"
    )


def test_fewer_gpus_than_expected(sandbox: Sandbox) -> None:
    sandbox.kube_nodes(READY)
    sandbox.kube_pods(f"{PLUGIN}|Running")
    # A timeout the stubbed sleeps cannot reach in real time (a 1 s one can, on a busy
    # machine: the script also stops at $SECONDS >= timeout), so the count is the bound's.
    run = wait(sandbox, expected_gpus=2, timeout_seconds=20, poll_seconds=10)
    assert run.returncode != 0
    assert run.stderr.splitlines()[-1] == (
        "gpu-ci step cluster-ready: cluster not ready after 3 poll(s) within 20s: "
        f"nvidia.com/gpu allocatable 1 of 2 expected ({CP}=0, {WORKER}=1); "
        f"device plugin pods: {PLUGIN} (Running)"
    )


def test_unreachable_api_server(sandbox: Sandbox) -> None:
    sandbox.put(
        "kubectl-fail",
        "E0101 memcache.go:265] couldn't get current server API group list\n"
        "The connection to the server 127.0.0.1:6443 was refused - did you specify the right "
        "host or port?\n",
    )
    run = wait(sandbox, timeout_seconds=20, poll_seconds=10)
    assert run.returncode != 0
    assert run.commands() == ["kubectl", "sleep", "kubectl", "sleep", "kubectl"]
    assert run.stderr.splitlines()[-1] == (
        "gpu-ci step cluster-ready: cluster not ready after 3 poll(s) within 20s: "
        "API server unreachable: The connection to the server 127.0.0.1:6443 was refused - "
        "did you specify the right host or port?"
    )


def test_no_nodes(sandbox: Sandbox) -> None:
    sandbox.kube_nodes("")
    run = wait(sandbox, timeout_seconds=5, poll_seconds=10)
    assert run.returncode != 0
    assert run.commands() == ["kubectl"]  # the poll interval exceeds the timeout: one poll
    assert run.stderr.splitlines()[-1] == (
        "gpu-ci step cluster-ready: cluster not ready after 1 poll(s) within 5s: no node registered"
    )


def test_missing_kubeconfig(sandbox: Sandbox) -> None:
    params = ready_params(sandbox)
    (sandbox.root / KUBECONFIG.lstrip("/")).unlink()
    run = sandbox.run(Step.CLUSTER_READY, params)
    assert run.returncode != 0
    assert run.stderr == (
        f"gpu-ci step cluster-ready: kubeconfig {KUBECONFIG} not found: run the nvkind-cluster "
        "step first\n"
    )
    assert run.calls == []


@pytest.mark.parametrize(("timeout", "poll", "polls"), [(600, 10, 61), (60, 7, 9), (1, 600, 1)])
def test_polls_are_bounded(sandbox: Sandbox, timeout: int, poll: int, polls: int) -> None:
    sandbox.kube_nodes(f"{CP}|True||\n")
    sandbox.kube_pods()
    run = wait(sandbox, timeout_seconds=timeout, poll_seconds=poll)
    assert run.returncode != 0
    assert run.commands().count("kubectl") == polls + 1  # + the pod listing
    assert run.commands().count("sleep") == polls - 1
    assert f"after {polls} poll(s) within {timeout}s" in run.stderr
