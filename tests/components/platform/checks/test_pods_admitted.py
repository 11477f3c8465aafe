"""The check Jobs' pods are admitted and scheduled where the checks run: a Chainsaw pod meets
Pod Security's `restricted` level (a cluster that enforces it, as the queue-time exporter's
namespace does, still runs the checks), a GPU check pod tolerates the taint of a tainted GPU
pool (without it the Job sits pending until its deadline), and each Job mounts its Test's
ConfigMap from its own namespace (a pod's `configMap` volume names an object of the pod's
namespace: kubernetes pkg/apis/core/types.go `ConfigMapVolumeSource`)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from components.arc.pod_config import Taint
from components.platform.chainsaw import documents
from components.platform.checks.gpu_count import GpuExpectation
from components.platform.checks.jobs import check_job, config_map, config_map_name
from components.platform.checks.model import ClusterCheck, chainsaw_check
from components.platform.checks.plan import gpu_checks, smoke_check
from stacks.offline.plan import REPO
from tests.stacks.layers.test_queue_exporter_runners import _restricted_problems

COVERS = ("gpu-operator",)


def _chainsaw() -> ClusterCheck:
    test = documents.test_doc(
        "t", 60, [documents.step("s", ("assert", {"apiVersion": "v1", "kind": "Node"}))]
    )
    return chainsaw_check(
        "health-x", "a check", test, yaml.safe_dump(test), wait_s=60, covers=COVERS
    )


def _pod(check: ClusterCheck, namespace: str = "gpu-ci-checks") -> dict[str, Any]:
    pod: dict[str, Any] = check_job(check, namespace)["spec"]["template"]["spec"]
    return pod


def test_a_chainsaw_check_pod_meets_pod_security_restricted() -> None:
    pod = _pod(_chainsaw())
    assert _restricted_problems(pod) == []
    # what the restricted level checks, each one spoilt: the checker refuses it
    for key, value, problem in [
        ("seccompProfile", {"type": "Unconfined"}, "seccompProfile"),
        ("runAsNonRoot", False, "runAsNonRoot"),
        ("runAsUser", 0, "runAsUser 0"),
    ]:
        spoilt = {**pod, "securityContext": {**pod["securityContext"], key: value}}
        assert _restricted_problems(spoilt) == [problem]


def test_a_chainsaw_check_pod_runs_as_a_numeric_non_root_user() -> None:
    """The kubelet checks `runAsNonRoot` against a numeric user: with the image's user a
    name and no `runAsUser` it refuses to start the container ("image has non-numeric user
    ..., cannot verify user is non-root": kubernetes pkg/kubelet/kuberuntime/
    security_context_others.go `verifyRunAsNonRoot`). 65532 is the `nonroot` user of the
    distroless/static base images ko builds Chainsaw's image on."""
    context = _pod(_chainsaw())["securityContext"]
    assert context["runAsNonRoot"] is True
    assert context["runAsUser"] == 65532
    assert context["seccompProfile"] == {"type": "RuntimeDefault"}


def _tolerates(toleration: dict[str, Any], taint: Taint) -> bool:
    """Kubernetes' matching of one toleration and one taint (k8s.io/api core/v1
    toleration.go `ToleratesTaint`): the effect if the toleration names one, the key if it
    names one, then `Exists` matches any value and `Equal` (the default) the same value."""
    if toleration.get("effect") and toleration["effect"] != taint.effect:
        return False
    if toleration.get("key") and toleration["key"] != taint.key:
        return False
    if toleration.get("operator") == "Exists":
        return True
    return bool(toleration.get("key")) and toleration.get("value", "") == taint.value


def _schedulable(pod: dict[str, Any], taints: list[Taint]) -> bool:
    """The scheduler's TaintToleration filter: every NoSchedule/NoExecute taint of the node
    tolerated (kubernetes pkg/scheduler/framework/plugins/tainttoleration/
    taint_toleration.go `Filter`, `DoNotScheduleTaintsFilterFunc`)."""
    tolerations = pod.get("tolerations") or []
    blocking = [t for t in taints if t.effect in ("NoSchedule", "NoExecute")]
    return all(any(_tolerates(t, taint) for t in tolerations) for taint in blocking)


def _arc_gpu_pool_taints() -> list[Taint]:
    """The GPU pool's taints in Pulumi.arc.yaml (an OKE cluster, the GPU pool tainted)."""
    config = yaml.safe_load((REPO / "Pulumi.arc.yaml").read_text())["config"]
    pool = config["gpu-ci:arc"]["cluster"]["oke"]["gpuPool"]
    return [Taint(**taint) for taint in pool["taints"]]


def test_the_toleration_matching_is_kubernetes() -> None:
    taint = Taint(key="nvidia.com/gpu", value="present", effect="NoSchedule")
    exists = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    assert _tolerates(exists, taint)
    assert _tolerates({"key": "nvidia.com/gpu", "value": "present"}, taint)
    assert not _tolerates({"key": "nvidia.com/gpu", "value": "absent"}, taint)
    assert not _tolerates({**exists, "effect": "NoExecute"}, taint)
    assert not _tolerates({**exists, "key": "other"}, taint)
    assert _tolerates({"operator": "Exists"}, taint)
    assert _schedulable({}, [Taint(key="a", effect="PreferNoSchedule")])
    assert not _schedulable({}, [taint])


@pytest.mark.parametrize(
    "check",
    [
        smoke_check(COVERS, ""),
        gpu_checks(GpuExpectation(2, multi=True, per_node=2), None, COVERS)[0][1],
    ],
    ids=["nvidia-smi", "nccl-all-reduce"],
)
def test_a_gpu_check_pod_is_scheduled_on_a_tainted_gpu_pool(check: ClusterCheck) -> None:
    taints = _arc_gpu_pool_taints()
    assert [(t.key, t.value, t.effect) for t in taints] == [
        ("nvidia.com/gpu", "present", "NoSchedule")
    ]
    assert check.kind == "gpu-pod"
    assert _schedulable(_pod(check), taints)
    assert not _schedulable({**_pod(check), "tolerations": []}, taints)
    # another value of the same key (a pool tainted `nvidia.com/gpu=true`) too
    assert _schedulable(_pod(check), [Taint(key="nvidia.com/gpu", value="true")])


@pytest.mark.parametrize("namespace", ["gpu-ci-checks", "elsewhere"])
def test_the_job_mounts_its_tests_configmap_from_its_own_namespace(namespace: str) -> None:
    check = _chainsaw()
    job, test = check_job(check, namespace), config_map(check, namespace)
    volumes = job["spec"]["template"]["spec"]["volumes"]
    (mounted,) = [v["configMap"]["name"] for v in volumes if "configMap" in v]
    assert mounted == test["metadata"]["name"] == config_map_name(check)
    assert test["metadata"]["namespace"] == job["metadata"]["namespace"] == namespace
