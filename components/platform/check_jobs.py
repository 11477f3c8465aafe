"""The Job manifests of the deployment checks, and the read-only RBAC they run with.

Each Job is bounded by `activeDeadlineSeconds` and fails at once (`backoffLimit: 0`). Each
container uses `terminationMessagePolicy: FallbackToLogsOnError`, so its log tail becomes
the termination message, which pulumi-kubernetes' Job/Pod await prints with the error
(pulumi/cloud-ready-checks `pkg/kubernetes/pod/check.go`, containerTerminatedError). The
images are `CHECK_PINS` (`components/pins.py`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from components.base import MANAGED_LABELS
from components.pins import CHECK_PINS
from components.platform.check_plan import SMOKE_CHECK, ExpectedObject

RUNTIME_CLASS = "nvidia"
GPU_RESOURCE = "nvidia.com/gpu"
CHECKS_NAMESPACE = "gpu-ci-checks"
CHECKS_ACCOUNT = "gpu-ci-checks"
REVISION_ANNOTATION = "gpu-ci/platform-revision"
CHECK_LABEL = "gpu-ci/check"


def _labels(check: str) -> dict[str, str]:
    return {**MANAGED_LABELS, CHECK_LABEL: check}


def _job(
    check: str, namespace: str, revision: str, timeout_s: int, pod_spec: dict[str, Any]
) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "namespace": namespace,
            "labels": _labels(check),
            # A Job that failed is replaced on the next update instead of awaited again.
            "annotations": {"pulumi.com/replaceUnready": "true"},
        },
        "spec": {
            "backoffLimit": 0,
            "activeDeadlineSeconds": timeout_s,
            "template": {
                "metadata": {
                    "labels": _labels(check),
                    "annotations": {REVISION_ANNOTATION: revision},
                },
                "spec": {"restartPolicy": "Never", **pod_spec},
            },
        },
    }


def gpu_smoke_job(namespace: str, revision: str, timeout_s: int) -> dict[str, Any]:
    """`nvidia-smi` on one GPU under RuntimeClass `nvidia`; the log ends with the verdict."""
    step = max(timeout_s - 60, 30)
    script = (
        f'echo "gpu-ci check {SMOKE_CHECK}: nvidia-smi, runtimeClass {RUNTIME_CLASS}, '
        f'1 {GPU_RESOURCE}"; '
        f"if timeout {step} nvidia-smi -L && timeout {step} nvidia-smi; then "
        f'echo "gpu-ci check {SMOKE_CHECK}: passed"; '
        f'else rc=$?; echo "gpu-ci check {SMOKE_CHECK}: FAILED (exit $rc)"; exit 1; fi'
    )
    return _job(
        SMOKE_CHECK,
        namespace,
        revision,
        timeout_s,
        {
            "runtimeClassName": RUNTIME_CLASS,
            "automountServiceAccountToken": False,
            "tolerations": [{"key": GPU_RESOURCE, "operator": "Exists", "effect": "NoSchedule"}],
            "containers": [
                {
                    "name": "nvidia-smi",
                    "image": CHECK_PINS.cuda_image,
                    "command": ["/bin/sh", "-c", script],
                    "resources": {"limits": {GPU_RESOURCE: 1}},
                    "terminationMessagePolicy": "FallbackToLogsOnError",
                }
            ],
        },
    )


def _slug(text: str, limit: int) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-")[:limit].strip("-")


_SECURE = {
    "allowPrivilegeEscalation": False,
    "readOnlyRootFilesystem": True,
    "capabilities": {"drop": ["ALL"]},
}


def _kubectl(name: str, args: list[str]) -> dict[str, Any]:
    # kubectl keeps a discovery cache under $HOME; the root filesystem is read-only.
    return {
        "name": name,
        "image": CHECK_PINS.kubectl_image,
        "command": ["/bin/kubectl", *args],
        "env": [{"name": "HOME", "value": "/tmp"}],
        "volumeMounts": [{"name": "tmp", "mountPath": "/tmp"}],
        "terminationMessagePolicy": "FallbackToLogsOnError",
        "securityContext": _SECURE,
    }


def resource_check_job(
    check: str,
    namespace: str,
    objects: Sequence[ExpectedObject],
    revision: str,
    timeout_s: int,
) -> dict[str, Any]:
    """Wait for each object to exist (init containers, in order), then check each one."""
    budget = max((timeout_s - 30) // 2, 15)
    inits: list[dict[str, Any]] = []
    mains: list[dict[str, Any]] = []
    seen: set[str] = set()
    for i, obj in enumerate(objects):
        base = _slug(f"{obj.kind}-{obj.name}", 50)
        if base in seen:
            base = f"{base[:46]}-{i}"
        seen.add(base)
        scope = ["-n", obj.namespace] if obj.namespace else []
        ref = obj.resource.ref(obj.name)
        inits.append(
            _kubectl(f"wait-{base}", ["wait", "--for=create", ref, *scope, f"--timeout={budget}s"])
        )
        if obj.resource.rollout:
            args = ["rollout", "status", ref, *scope, f"--timeout={budget}s"]
        else:
            args = ["get", ref, *scope, "-o", "name"]
        mains.append(_kubectl(base, args))
    return _job(
        check,
        namespace,
        revision,
        timeout_s,
        {
            "serviceAccountName": CHECKS_ACCOUNT,
            "securityContext": {
                "runAsNonRoot": True,
                "runAsUser": 65532,
                "seccompProfile": {"type": "RuntimeDefault"},
            },
            "initContainers": inits,
            "containers": mains,
            "volumes": [{"name": "tmp", "emptyDir": {}}],
        },
    )


def reader_rules(objects: Sequence[ExpectedObject]) -> list[dict[str, Any]]:
    """Read-only RBAC for exactly the kinds the checks look at."""
    groups: dict[str, set[str]] = {}
    for obj in objects:
        groups.setdefault(obj.resource.group, set()).add(obj.resource.plural)
    return [
        {"apiGroups": [g], "resources": sorted(p), "verbs": ["get", "list", "watch"]}
        for g, p in sorted(groups.items())
    ]
