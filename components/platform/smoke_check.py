"""Deployment-phase checks that run as Kubernetes Jobs after the recipe's releases.

A recipe's `validation.deployment.checks` name AICR validators. Those with a resource form
run here as Jobs that Pulumi awaits (a Job is ready when it completes; a `Failed` condition
fails the update at once), each bounded by `activeDeadlineSeconds` and Pulumi custom
timeouts:

- `check-nvidia-smi` (always run): `nvidia-smi` under RuntimeClass `nvidia` with
  `nvidia.com/gpu: 1`, the GPU e2e's smoke test.
- `operator-health`: the GPU operator's Deployment exists and is rolled out (AICR's
  `checks/gpu-operator/health-check.yaml` first assertion), when the recipe deploys it.
- `expected-resources`: every `expectedResources` entry of the deployed components exists
  and, for Deployments, DaemonSets and StatefulSets, is rolled out.

Other checks (e.g. `gpu-operator-version`, a constraint on a measured version) are listed in
`not_run` with the reason. A failing Job fails `pulumi up` naming the check's resource; each
container uses `terminationMessagePolicy: FallbackToLogsOnError`, so its log tail becomes the
termination message, which pulumi-kubernetes' Job/Pod await prints with the error
(pulumi/cloud-ready-checks `pkg/kubernetes/pod/check.go`, containerTerminatedError).

Images:
- `nvidia/cuda:12.8.1-base-ubuntu24.04`, pinned by its manifest-list digest. CUDA 12.8 is the
  newest the hosts' `nvidia-driver-570-server` supports; `nvidia-smi` itself comes from the
  host driver. The digest was taken from several unrelated public repositories that record
  it as the tag's manifest-list digest (amd64 manifest sha256:e711c993...); it was not
  re-resolved against Docker Hub from here.
- `registry.k8s.io/kubectl:v1.33.3`, pinned by tag only (registry.k8s.io release tags are
  immutable; no digest could be confirmed offline). Distroless: no shell, so each container
  runs one `kubectl` command.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from components.base import ComponentArgs, child
from components.platform.overrides import PlatformError
from recipes.model import ComponentRef
from recipes.result import RecipeResult

CUDA_IMAGE = (
    "nvidia/cuda:12.8.1-base-ubuntu24.04"
    "@sha256:133c78a0575303be34164d0b90137a042172bdf60696af01a3c424ab402d86e2"
)
KUBECTL_IMAGE = "registry.k8s.io/kubectl:v1.33.3"
RUNTIME_CLASS = "nvidia"
GPU_RESOURCE = "nvidia.com/gpu"

SMOKE_CHECK = "check-nvidia-smi"
OPERATOR_HEALTH = "operator-health"
EXPECTED_RESOURCES = "expected-resources"
CHECKS_NAMESPACE = "gpu-ci-checks"
CHECKS_ACCOUNT = "gpu-ci-checks"
REVISION_ANNOTATION = "gpu-ci/platform-revision"
CHECK_LABEL = "gpu-ci/check"
MANAGED = {"app.kubernetes.io/managed-by": "gpu-ci"}

_NOT_A_RESOURCE = {
    "gpu-operator-version": (
        "a constraint on the deployed GPU operator version, not a resource: the recipe pins "
        "the chart version the release installs"
    ),
}


@dataclass(frozen=True)
class ResourceKind:
    """How a check Job names and reads one kind (group, plural) and whether it rolls out."""

    group: str
    plural: str
    rollout: bool = False
    namespaced: bool = True

    def ref(self, name: str) -> str:
        """The fully qualified `kubectl` reference, e.g. `deployments.apps/gpu-operator`."""
        return f"{self.plural}.{self.group}/{name}" if self.group else f"{self.plural}/{name}"


KINDS: dict[str, ResourceKind] = {
    "Deployment": ResourceKind("apps", "deployments", rollout=True),
    "DaemonSet": ResourceKind("apps", "daemonsets", rollout=True),
    "StatefulSet": ResourceKind("apps", "statefulsets", rollout=True),
    "Job": ResourceKind("batch", "jobs"),
    "Service": ResourceKind("", "services"),
    "ConfigMap": ResourceKind("", "configmaps"),
    "ServiceAccount": ResourceKind("", "serviceaccounts"),
    "Namespace": ResourceKind("", "namespaces", namespaced=False),
    "RuntimeClass": ResourceKind("node.k8s.io", "runtimeclasses", namespaced=False),
    "CustomResourceDefinition": ResourceKind(
        "apiextensions.k8s.io", "customresourcedefinitions", namespaced=False
    ),
    "ClusterPolicy": ResourceKind("nvidia.com", "clusterpolicies", namespaced=False),
    "ClusterTrainingRuntime": ResourceKind(
        "trainer.kubeflow.org", "clustertrainingruntimes", namespaced=False
    ),
}
"""Kinds a resource check can read. Secrets are deliberately absent: checks never read them."""


@dataclass(frozen=True)
class ExpectedObject:
    """One object a check requires, with its namespace resolved."""

    component: str
    kind: str
    name: str
    namespace: str | None

    @property
    def resource(self) -> ResourceKind:
        return KINDS[self.kind]


@dataclass(frozen=True)
class CheckPlan:
    """Which of the recipe's deployment checks run as Jobs, and why the others do not."""

    smoke: bool = True
    resource_checks: dict[str, tuple[ExpectedObject, ...]] = field(default_factory=dict)
    not_run: dict[str, str] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        """The checks that run, smoke check first."""
        return ([SMOKE_CHECK] if self.smoke else []) + list(self.resource_checks)


def _expected(ref: ComponentRef, kind: str, name: str, namespace: str | None) -> ExpectedObject:
    spec = KINDS.get(kind)
    if spec is None:
        raise PlatformError(
            f"{ref.name}: expectedResources: kind {kind!r} cannot be checked; "
            f"known kinds: {', '.join(sorted(KINDS))}"
        )
    resolved = (namespace or ref.namespace or "default") if spec.namespaced else None
    return ExpectedObject(ref.name, kind, name, resolved)


def plan_checks(recipe: RecipeResult, deployed: Sequence[ComponentRef]) -> CheckPlan:
    """The Jobs for `recipe`'s deployment checks, given the components actually deployed."""
    by_name = {c.name: c for c in deployed}
    phase = recipe.validation.deployment if recipe.validation else None
    named = list(phase.checks) if phase else []
    resource_checks: dict[str, tuple[ExpectedObject, ...]] = {}
    not_run: dict[str, str] = {}
    for check in named:
        if check == SMOKE_CHECK:
            continue
        if check == OPERATOR_HEALTH:
            operator = by_name.get("gpu-operator")
            if operator is None:
                not_run[check] = "the gpu-operator component is not deployed"
            else:
                obj = _expected(operator, "Deployment", "gpu-operator", None)
                resource_checks[check] = (obj,)
        elif check != EXPECTED_RESOURCES:
            not_run[check] = _NOT_A_RESOURCE.get(
                check, "no resource form in gpu-ci; run it with `aicr validate`"
            )
    expected = tuple(
        _expected(ref, e.kind, e.name, e.namespace)
        for ref in deployed
        for e in ref.expectedResources
    )
    if expected:
        resource_checks[EXPECTED_RESOURCES] = expected
    elif EXPECTED_RESOURCES in named:
        not_run[EXPECTED_RESOURCES] = "no deployed component declares expectedResources"
    return CheckPlan(smoke=True, resource_checks=resource_checks, not_run=not_run)


def _labels(check: str) -> dict[str, str]:
    return {**MANAGED, CHECK_LABEL: check}


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
                    "image": CUDA_IMAGE,
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
        "image": KUBECTL_IMAGE,
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


class DeploymentChecksArgs(ComponentArgs):
    """What DeploymentChecks needs: where to run, what to check, and what to wait for."""

    provider: k8s.Provider
    plan: CheckPlan
    revision: str
    timeout_s: int
    after: list[pulumi.Resource]
    """The releases, manifests and patches the checks run after."""


class DeploymentChecks(pulumi.ComponentResource):
    """The check Jobs (and their namespace and read-only RBAC), awaited by Pulumi."""

    jobs: dict[str, k8s.batch.v1.Job]
    results: pulumi.Output[dict[str, dict[str, Any]]]

    def __init__(
        self, name: str, args: DeploymentChecksArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-ci:platform:DeploymentChecks", name, None, opts)
        plan = args.plan
        provider = args.provider
        self.jobs = {}
        namespace = k8s.core.v1.Namespace(
            f"{name}-ns",
            metadata={"name": CHECKS_NAMESPACE, "labels": MANAGED},
            opts=child(self, provider=provider),
        )
        after: list[pulumi.Resource] = [*args.after, namespace]
        objects = [o for objs in plan.resource_checks.values() for o in objs]
        if objects:
            after.extend(self._rbac(name, provider, namespace, objects))
        timeouts = pulumi.CustomTimeouts(
            create=f"{args.timeout_s + 120}s", update=f"{args.timeout_s + 120}s"
        )
        manifests: dict[str, dict[str, Any]] = {}
        if plan.smoke:
            manifests[SMOKE_CHECK] = gpu_smoke_job(CHECKS_NAMESPACE, args.revision, args.timeout_s)
        for check, objs in plan.resource_checks.items():
            manifests[check] = resource_check_job(
                check, CHECKS_NAMESPACE, objs, args.revision, args.timeout_s
            )
        for check, manifest in manifests.items():
            self.jobs[check] = k8s.batch.v1.Job(
                f"{name}-{check}",
                metadata=manifest["metadata"],
                spec=manifest["spec"],
                opts=child(
                    self,
                    provider=provider,
                    depends_on=after,
                    custom_timeouts=timeouts,
                    replace_on_changes=["spec"],
                ),
            )
        self.results = _results(self.jobs)
        self.register_outputs({"results": self.results, "notRun": plan.not_run})

    def _rbac(
        self,
        name: str,
        provider: k8s.Provider,
        namespace: k8s.core.v1.Namespace,
        objects: list[ExpectedObject],
    ) -> list[pulumi.Resource]:
        account = k8s.core.v1.ServiceAccount(
            f"{name}-reader",
            metadata={"name": CHECKS_ACCOUNT, "namespace": CHECKS_NAMESPACE, "labels": MANAGED},
            automount_service_account_token=True,
            opts=child(self, provider=provider, depends_on=[namespace]),
        )
        role = k8s.rbac.v1.ClusterRole(
            f"{name}-reader",
            metadata={"labels": MANAGED},
            rules=reader_rules(objects),
            opts=child(self, provider=provider),
        )
        binding = k8s.rbac.v1.ClusterRoleBinding(
            f"{name}-reader",
            metadata={"labels": MANAGED},
            role_ref={
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": role.metadata.apply(lambda m: m.name),
            },
            subjects=[
                {"kind": "ServiceAccount", "name": CHECKS_ACCOUNT, "namespace": CHECKS_NAMESPACE}
            ],
            opts=child(self, provider=provider, depends_on=[account, role]),
        )
        return [account, role, binding]


def _result(check: str, job: k8s.batch.v1.Job) -> pulumi.Output[dict[str, Any]]:
    def shape(args: list[Any]) -> dict[str, Any]:
        meta, status = args
        succeeded = getattr(status, "succeeded", None) if status is not None else None
        failed = getattr(status, "failed", None) if status is not None else None
        verdict = "passed" if succeeded else "failed" if failed else "pending"
        return {
            "check": check,
            "job": getattr(meta, "name", None) if meta is not None else None,
            "namespace": CHECKS_NAMESPACE,
            "result": verdict,
        }

    return pulumi.Output.all(job.metadata, job.status).apply(shape)


def _results(jobs: dict[str, k8s.batch.v1.Job]) -> pulumi.Output[dict[str, dict[str, Any]]]:
    names = list(jobs)
    outputs = [_result(n, jobs[n]) for n in names]
    return pulumi.Output.all(*outputs).apply(lambda rs: dict(zip(names, rs, strict=True)))
