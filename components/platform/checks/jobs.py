"""The Kubernetes objects of the checks: one Job per check, its Test's ConfigMap, read-only RBAC.

Each Job is bounded by `activeDeadlineSeconds` and fails at once (`backoffLimit: 0`). Each
container uses `terminationMessagePolicy: FallbackToLogsOnError`, so its log tail becomes
the termination message, which pulumi-kubernetes' Job/Pod await prints with the error
(pulumi/cloud-ready-checks `pkg/kubernetes/pod/check.go`, containerTerminatedError): a
failed check names its Job (`<component>-checks-<check>`) and, for Chainsaw, the Test, the
step and the field that did not match: `chainsaw/script.py` runs `chainsaw test`, fails
unless exactly the expected Test ran and passed, and stops a run that outlives the Test's
worst case naming the step it was in, before the Job's deadline (`activeDeadlineSeconds`:
the worst case plus `MARGIN_S`, `model.py`). The check's digest is in the pod
template (`DIGEST_ANNOTATION`), and the
Job is replaced when the template changes (pulumi-kubernetes replaces a Job on any
`.spec.template` change: shared/upstream/replacements/kubernetes-forcenew.json, batch/v1
Job), so a check re-runs exactly when its digest does. Images: `CHECK_PINS`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any

from components.base import MANAGED_LABELS
from components.pins import CHECK_PINS
from components.platform.chainsaw.documents import go_duration
from components.platform.chainsaw.script import chainsaw_script, report_args
from components.platform.checks.model import CHECKS_NAMESPACE, ClusterCheck
from components.platform.checks.plan import CheckPlan
from components.platform.releases.gpu_sharing import GPU_RESOURCE
from components.platform.releases.runtime_patch import SHM_PATH, SHM_VOLUME

CHECKS_ACCOUNT = "gpu-ci-checks"
DIGEST_ANNOTATION = "gpu-ci/check-digest"
CHECK_LABEL = "gpu-ci/check"
TEST_FILE = "chainsaw-test.yaml"
"""Chainsaw's default test file name (`chainsaw test --test-file`, default `chainsaw-test`)."""
TEST_DIR = "/checks"
_SECURE = {
    "allowPrivilegeEscalation": False,
    "readOnlyRootFilesystem": True,
    "capabilities": {"drop": ["ALL"]},
}


def _labels(check: str) -> dict[str, str]:
    return {**MANAGED_LABELS, CHECK_LABEL: check}


def config_map_name(check: ClusterCheck) -> str:
    """The Test's ConfigMap, named by the Test's digest: a new Test is a new, immutable
    object (a ConfigMap's data change replaces it anyway: kubernetes-forcenew.json)."""
    digest = hashlib.sha256(check.test.encode()).hexdigest()[:10]
    return f"gpu-ci-{_slug(check.name, 40)}-{digest}"


def _slug(text: str, limit: int) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-")[:limit].strip("-")


def config_map(check: ClusterCheck, namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": config_map_name(check),
            "namespace": namespace,
            "labels": _labels(check.name),
        },
        "immutable": True,
        "data": {TEST_FILE: check.test},
    }


def chainsaw_args(check: ClusterCheck, namespace: str) -> list[str]:
    """`chainsaw test` (kyverno/chainsaw v0.2.15 `pkg/commands/test/command.go`) on the one
    mounted Test, in the existing checks namespace (only `get` on it; without `--namespace`
    Chainsaw would create and delete one per test), every operation logged as it starts (no
    `--quiet`), and its JSON report for `chainsaw/script.py` to read."""
    wait = go_duration(check.wait_s)
    return [
        "test",
        "--test-dir",
        TEST_DIR,
        "--namespace",
        namespace,
        f"--assert-timeout={wait}",
        f"--error-timeout={wait}",
        "--no-color",
        *report_args(),
    ]


def chainsaw_command(check: ClusterCheck, namespace: str) -> list[str]:
    """The check container's command: `chainsaw/script.py` around `chainsaw_args`."""
    script = chainsaw_script(
        check.name, check.test_name, chainsaw_args(check, namespace), check.watchdog_s
    )
    return ["/bin/sh", "-c", script]


def chainsaw_pod(check: ClusterCheck, namespace: str) -> dict[str, Any]:
    """Chainsaw, under `chainsaw/script.py`'s shell, as a non-root, read-only container."""
    return {
        "serviceAccountName": CHECKS_ACCOUNT,
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": 65532,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "containers": [
            {
                "name": "chainsaw",
                "image": CHECK_PINS.chainsaw_image,
                "command": chainsaw_command(check, namespace),
                "env": [{"name": "HOME", "value": "/tmp"}],
                "volumeMounts": [
                    # subPath: one plain file (a whole ConfigMap volume also holds `..data`
                    # folders, in which Chainsaw's discovery would find the Test twice).
                    {"name": "test", "mountPath": f"{TEST_DIR}/{TEST_FILE}", "subPath": TEST_FILE},
                    {"name": "tmp", "mountPath": "/tmp"},
                ],
                "terminationMessagePolicy": "FallbackToLogsOnError",
                "securityContext": _SECURE,
            }
        ],
        "volumes": [
            {"name": "test", "configMap": {"name": config_map_name(check)}},
            {"name": "tmp", "emptyDir": {}},
        ],
    }


def gpu_pod(check: ClusterCheck, namespace: str) -> dict[str, Any]:
    """`check.command` in `check.image` with `check.gpus` GPUs, under `check.runtime_class`
    if it names one (`plan.GPU_RUNTIME_CLASS`); with several GPUs, a memory-backed
    /dev/shm, as the Trainer runtimes get (NCCL's transport between the processes of one
    pod: a container's default is 64 MiB)."""
    shm = check.gpus > 1
    runtime = {"runtimeClassName": check.runtime_class} if check.runtime_class else {}
    return {
        **runtime,
        "automountServiceAccountToken": False,
        "tolerations": [{"key": GPU_RESOURCE, "operator": "Exists", "effect": "NoSchedule"}],
        "containers": [
            {
                "name": _slug(check.name, 63),
                "image": check.image,
                "command": list(check.command),
                "resources": {"limits": {GPU_RESOURCE: check.gpus}},
                "terminationMessagePolicy": "FallbackToLogsOnError",
                **({"volumeMounts": [{"name": SHM_VOLUME, "mountPath": SHM_PATH}]} if shm else {}),
            }
        ],
        **({"volumes": [{"name": SHM_VOLUME, "emptyDir": {"medium": "Memory"}}]} if shm else {}),
    }


POD_BUILDERS: dict[str, Callable[[ClusterCheck, str], dict[str, Any]]] = {
    "chainsaw": chainsaw_pod,
    "gpu-pod": gpu_pod,
}
"""What each kind of check runs (`model.CheckKind`): a new kind adds its builder."""


def check_job(check: ClusterCheck, namespace: str) -> dict[str, Any]:
    """The Job of `check`; its pod template carries the check's digest."""
    pod = POD_BUILDERS[check.kind](check, namespace)
    return job_manifest(check.name, namespace, check.timeout_s, check.digest, pod)


def job_manifest(
    name: str, namespace: str, deadline_s: int, digest: str, pod: dict[str, Any]
) -> dict[str, Any]:
    """A Job labelled `name` running `pod` once, within `deadline_s`; its pod template
    carries `digest`, so the Job is replaced (and runs again) exactly when it changes."""
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "namespace": namespace,
            "labels": _labels(name),
            # A Job that failed is replaced on the next update instead of awaited again.
            "annotations": {"pulumi.com/replaceUnready": "true"},
        },
        "spec": {
            "backoffLimit": 0,
            "activeDeadlineSeconds": deadline_s,
            "template": {
                "metadata": {"labels": _labels(name), "annotations": {DIGEST_ANNOTATION: digest}},
                "spec": {"restartPolicy": "Never", **pod},
            },
        },
    }


def reader_rules(plan: CheckPlan, namespace: str = CHECKS_NAMESPACE) -> list[dict[str, Any]]:
    """Read-only RBAC for exactly the resource types the chainsaw checks read, and `get` on
    their own namespace (Chainsaw reads the namespace it is given before its first step)."""
    groups: dict[tuple[str, tuple[str, ...]], set[str]] = {}
    for read in plan.reads:
        groups.setdefault((read.group, read.names), set()).add(read.resource)
    rules = [
        {
            "apiGroups": [group],
            "resources": sorted(resources),
            "verbs": ["get", "list"],
            **({"resourceNames": list(names)} if names else {}),
        }
        for (group, names), resources in sorted(groups.items())
    ]
    if any(check.kind == "chainsaw" for check in plan.checks):
        rules.append(
            {
                "apiGroups": [""],
                "resources": ["namespaces"],
                "verbs": ["get"],
                "resourceNames": [namespace],
            }
        )
    return rules
