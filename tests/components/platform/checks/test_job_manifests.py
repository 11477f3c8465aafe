"""The objects a check registers (`checks/jobs.py`), whole: the Job (run once, bounded, replaced
when unready or when its digest changes), the Chainsaw pod (non-root, read-only, its Test
mounted as one file where `chainsaw test --test-dir` looks, its report in the writable
/tmp), a GPU pod (its GPUs, the GPU taint tolerated, no API token, a RAM /dev/shm for more
than one GPU), the Test's ConfigMap and the checks' read-only RBAC. kubectl-validate (the
pinned upstream schemas) accepts each object."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from components.pins import CHECK_PINS
from components.platform.chainsaw import documents
from components.platform.chainsaw.reads import Read
from components.platform.chainsaw.script import chainsaw_script
from components.platform.checks.jobs import (
    chainsaw_args,
    check_job,
    config_map,
    config_map_name,
    reader_rules,
)
from components.platform.checks.model import ClusterCheck, chainsaw_check
from components.platform.checks.plan import CheckPlan, smoke_check
from tests.stacks.offline.charts.chart_helpers import problems_of

MANAGED = {"app.kubernetes.io/managed-by": "gpu-ci", "gpu-ci/check": "health-x"}
TEST = documents.test_doc(
    "t", 60, [documents.step("s", ("assert", {"apiVersion": "v1", "kind": "Node"}))]
)
TEST_YAML = yaml.safe_dump(TEST)


def _chainsaw(wait_s: int = 90) -> ClusterCheck:
    return chainsaw_check(
        "health-x", "a check", TEST, TEST_YAML, wait_s=wait_s, covers=("gpu-operator",)
    )


def test_chainsaw_runs_the_one_mounted_test_in_the_checks_namespace() -> None:
    """kyverno/chainsaw v0.2.15 `pkg/commands/test/command.go` flags: the mount's folder,
    the namespace the RBAC lets it read, each timeout the check's wait as a Go duration."""
    assert chainsaw_args(_chainsaw(90), "ns") == [
        "test",
        "--test-dir",
        "/checks",
        "--namespace",
        "ns",
        "--assert-timeout=1m30s",
        "--error-timeout=1m30s",
        "--no-color",
        "--report-format",
        "JSON",
        "--report-path",
        "/tmp",
        "--report-name",
        "chainsaw-report",
    ]
    assert chainsaw_args(_chainsaw(300), "gpu-ci-checks")[3:7] == [
        "--namespace",
        "gpu-ci-checks",
        "--assert-timeout=5m",
        "--error-timeout=5m",
    ]


def test_a_chainsaw_check_is_one_bounded_job_of_a_locked_down_pod() -> None:
    check = _chainsaw()
    script = chainsaw_script("health-x", "t", chainsaw_args(check, "ns"), check.watchdog_s)
    assert check_job(check, "ns") == {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "namespace": "ns",
            "labels": MANAGED,
            "annotations": {"pulumi.com/replaceUnready": "true"},
        },
        "spec": {
            "backoffLimit": 0,
            "activeDeadlineSeconds": check.timeout_s,
            "template": {
                "metadata": {
                    "labels": MANAGED,
                    "annotations": {"gpu-ci/check-digest": check.digest},
                },
                "spec": {
                    "restartPolicy": "Never",
                    "serviceAccountName": "gpu-ci-checks",
                    "securityContext": {
                        "runAsNonRoot": True,
                        "runAsUser": 65532,
                        "seccompProfile": {"type": "RuntimeDefault"},
                    },
                    "containers": [
                        {
                            "name": "chainsaw",
                            "image": CHECK_PINS.chainsaw_image,
                            "command": ["/bin/sh", "-c", script],
                            "env": [{"name": "HOME", "value": "/tmp"}],
                            "volumeMounts": [
                                {
                                    "name": "test",
                                    "mountPath": "/checks/chainsaw-test.yaml",
                                    "subPath": "chainsaw-test.yaml",
                                },
                                {"name": "tmp", "mountPath": "/tmp"},
                            ],
                            "terminationMessagePolicy": "FallbackToLogsOnError",
                            "securityContext": {
                                "allowPrivilegeEscalation": False,
                                "readOnlyRootFilesystem": True,
                                "capabilities": {"drop": ["ALL"]},
                            },
                        }
                    ],
                    "volumes": [
                        {"name": "test", "configMap": {"name": config_map_name(check)}},
                        {"name": "tmp", "emptyDir": {}},
                    ],
                },
            },
        },
    }
    assert check.timeout_s > check.watchdog_s  # the script stops it before the deadline


def test_the_tests_configmap_is_immutable_and_named_by_its_test() -> None:
    check = _chainsaw()
    assert config_map(check, "ns") == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": config_map_name(check), "namespace": "ns", "labels": MANAGED},
        "immutable": True,
        "data": {"chainsaw-test.yaml": TEST_YAML},
    }
    assert config_map_name(check) == "gpu-ci-health-x-53aeb72961"
    other = replace(check, test=TEST_YAML + "# another Test\n")
    assert config_map_name(other) != config_map_name(check)
    digest = config_map_name(check)[-10:]
    long = replace(check, name="Check_" + "x" * 60)
    assert config_map_name(long) == f"gpu-ci-check-{'x' * 34}-{digest}"  # 40 of the name
    # cut where a dash was: no dash left at either end of the name's part
    assert (
        config_map_name(replace(check, name=f"-{'x' * 39} tail")) == f"gpu-ci-{'x' * 39}-{digest}"
    )
    # a dash cut from the front does not count toward the 40
    assert config_map_name(replace(check, name=f"_{'x' * 40}")) == f"gpu-ci-{'x' * 40}-{digest}"


def _gpu_pod(check: ClusterCheck) -> dict[str, Any]:
    pod: dict[str, Any] = check_job(check, "ns")["spec"]["template"]["spec"]
    return pod


def test_a_one_gpu_check_pod() -> None:
    check = smoke_check(("gpu-operator",), "")
    assert _gpu_pod(check) == {
        "restartPolicy": "Never",
        "automountServiceAccountToken": False,
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
        "containers": [
            {
                "name": "check-nvidia-smi",
                "image": check.image,
                "command": list(check.command),
                "resources": {"limits": {"nvidia.com/gpu": 1}},
                "terminationMessagePolicy": "FallbackToLogsOnError",
            }
        ],
    }
    assert _gpu_pod(smoke_check(("gpu-operator",), "nvidia"))["runtimeClassName"] == "nvidia"


def test_a_several_gpu_check_pod_gets_a_memory_backed_dev_shm() -> None:
    check = replace(smoke_check(("gpu-operator",), ""), gpus=2, name="Two GPUs!")
    pod = _gpu_pod(check)
    assert pod["containers"][0]["name"] == "two-gpus"
    assert pod["containers"][0]["resources"] == {"limits": {"nvidia.com/gpu": 2}}
    assert pod["containers"][0]["volumeMounts"] == [{"name": "dshm", "mountPath": "/dev/shm"}]
    assert pod["volumes"] == [{"name": "dshm", "emptyDir": {"medium": "Memory"}}]
    # a container's name is a DNS label: 63 characters at most (kubernetes IsDNS1123Label)
    long = _gpu_pod(replace(check, name="y" * 70))["containers"][0]["name"]
    assert long == "y" * 63


def test_the_objects_are_valid_kubernetes(upstream: Path) -> None:
    named = [
        {**obj, "metadata": {**obj["metadata"], "name": f"check-{i}"}}
        for i, obj in enumerate(
            [check_job(_chainsaw(), "ns"), check_job(smoke_check(("gpu-operator",)), "ns")]
        )
    ]
    assert problems_of([*named, config_map(_chainsaw(), "ns")], upstream) == []


def test_the_readers_rbac_is_get_and_list_on_what_the_checks_read() -> None:
    reads = (
        Read("apps", "deployments"),
        Read("", "nodes"),
        Read("apps", "daemonsets"),
        Read("nvidia.com", "clusterpolicies", ("cluster-policy",)),
    )
    check = chainsaw_check(
        "health-x", "a check", TEST, TEST_YAML, wait_s=60, covers=("gpu-operator",), reads=reads
    )
    # one rule per API group (and names), its resources sorted; `get` on its own namespace
    assert reader_rules(CheckPlan(checks=(check,)), "ns") == [
        {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list"]},
        {
            "apiGroups": ["apps"],
            "resources": ["daemonsets", "deployments"],
            "verbs": ["get", "list"],
        },
        {
            "apiGroups": ["nvidia.com"],
            "resources": ["clusterpolicies"],
            "verbs": ["get", "list"],
            "resourceNames": ["cluster-policy"],
        },
        {"apiGroups": [""], "resources": ["namespaces"], "verbs": ["get"], "resourceNames": ["ns"]},
    ]
    assert reader_rules(CheckPlan(checks=(smoke_check(("gpu-operator",)),)), "ns") == []
