"""Which of a recipe's deployment checks run as Jobs here, and why the others do not.

A recipe's `validation.deployment.checks` name AICR validators. Those with a resource form
run as Jobs (`check_jobs.py`):

- `check-nvidia-smi` (always run): `nvidia-smi` under RuntimeClass `nvidia` with
  `nvidia.com/gpu: 1`, the GPU e2e's smoke test.
- `operator-health`: the GPU operator's Deployment exists and is rolled out (AICR's
  `checks/gpu-operator/health-check.yaml` first assertion), when the recipe deploys it.
- `expected-resources`: every `expectedResources` entry of the deployed components exists
  and, for Deployments, DaemonSets and StatefulSets, is rolled out.

Other checks (e.g. `gpu-operator-version`, a constraint on a measured version) are listed in
`not_run` with the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from components.platform.overrides import PlatformError
from recipes.model import ComponentRef
from recipes.result import RecipeResult

SMOKE_CHECK = "check-nvidia-smi"
OPERATOR_HEALTH = "operator-health"
EXPECTED_RESOURCES = "expected-resources"

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
    named = list(phase.checks or []) if phase else []
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
