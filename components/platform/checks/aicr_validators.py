"""The AICR validators a recipe names, as checks here, or why they do not run here.

AICR's validator catalog (NVIDIA/aicr `recipes/validators/catalog.yaml`, main @ 23e97a7d,
2026-07-09) lists what `aicr validate` runs per phase; a recipe's `validation.<phase>.checks`
names them. Those with a read-only resource form run here as Chainsaw checks; each
operation waits up to the catalog's timeout less the margin, and the Job's deadline is the
Test's worst case, the sum of those waits, plus the margin (`model.py`):
- `operator-health` (2m): the GPU operator Deployment available and none of its pods
  failed or crash-looping;
- `expected-resources` (8m): each deployed component's `expectedResources` exists and, for a
  workload, serves;
- `robust-controller` (5m), for Kubeflow Trainer: the read-only half of AICR's
  `checkRobustKubeflowTrainer` (`validators/conformance/robust_controller_check.go`): the
  controller available, its ValidatingWebhookConfiguration present with a ready endpoint
  behind its Service, the TrainJob CRD established. Its last step, creating an invalid
  TrainJob to see the webhook refuse it, needs write access and does not run.
Others are done by another check (`COVERED`), or cannot run here (`NOT_RUN`, with why).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from components.platform.chainsaw.documents import (
    available,
    established,
    ref,
    render_test,
    step,
    test_doc,
)
from components.platform.chainsaw.reads import Read, read_of
from components.platform.checks.model import MARGIN_S, ClusterCheck, chainsaw_check
from components.platform.releases.manifests import CLUSTER_SCOPED
from components.platform.releases.overrides import PlatformError
from recipes.model.overlays import ComponentRef
from recipes.model.result import RecipeResult

OPERATOR_HEALTH = "operator-health"
EXPECTED_RESOURCES = "expected-resources"
ROBUST_CONTROLLER = "robust-controller"
CATALOG_TIMEOUT_S = {OPERATOR_HEALTH: 120, EXPECTED_RESOURCES: 480, ROBUST_CONTROLLER: 300}
"""Each validator's `timeout` in AICR's catalog (main @ 23e97a7d `validators/catalog.yaml`)."""
TRAINER = "kubeflow-trainer"
_SINGLE_NODE = "a single-node kind or OKE node pool"
NOT_RUN = {
    EXPECTED_RESOURCES: "no deployed component declares expectedResources or a health check",
    "gpu-operator-version": "a constraint on the deployed version, checked at preview "
    "against the chart version the recipe pins",
    "dra-support": "needs the DRA driver (nvidia-dra-driver-gpu) and creates ResourceClaims; "
    "gpu-ci's recipes give GPUs through the device plugin",
    "gang-scheduling": "creates pods under the KAI scheduler, which gpu-ci's recipes do not deploy",
    "accelerator-metrics": "scrapes the DCGM exporter's metrics over HTTP, which read-only RBAC "
    "cannot; the exporter's pods are in the GPU operator's health check",
    "ai-service-metrics": "queries Prometheus for an AI inference service's metrics; "
    "gpu-ci deploys no inference service",
    "inference-gateway": "needs agentgateway, which gpu-ci's recipes do not deploy",
    "pod-autoscaling": "creates an HPA and a workload driven by GPU metrics "
    "(prometheus-adapter is not deployed)",
    "cluster-autoscaling": f"needs Karpenter; {_SINGLE_NODE} does not autoscale",
    "slinky-slurm-health": "needs Slinky Slurm, which gpu-ci's recipes do not deploy",
    "slinky-slurm-imex-channel": "needs Slinky Slurm and an IMEX domain",
    "nccl-all-reduce-bw": "AICR's bandwidth-threshold benchmark (its validator image); with "
    "`cluster.expectGpus` of 2+, gpu-ci's nccl-all-reduce logs the bandwidth, no threshold",
    "nccl-all-reduce-bw-net": "NCCL over EFA or RoCE between nodes; "
    f"{_SINGLE_NODE} has no such fabric",
    "nccl-all-reduce-bw-nvls": "NCCL over an NVL72 IMEX domain (NVLink switches)",
    "inference-perf": "deploys an inference workload and downloads a model to benchmark it",
}
"""AICR validators with no form here, and why (`docs/validation.md` has the table)."""
COVERED = {
    "gpu-operator-health": "health-gpu-operator",
    "platform-health": "health-",
    "secure-accelerator-access": "check-nvidia-smi",
}
"""AICR validators whose work another check does (`health-` : every component's)."""
EXPECTED_KINDS = {
    "Deployment": "apps/v1",
    "DaemonSet": "apps/v1",
    "StatefulSet": "apps/v1",
    "Job": "batch/v1",
    "Service": "v1",
    "ConfigMap": "v1",
    "ServiceAccount": "v1",
    "Namespace": "v1",
    "RuntimeClass": "node.k8s.io/v1",
    "CustomResourceDefinition": "apiextensions.k8s.io/v1",
    "ClusterPolicy": "nvidia.com/v1",
    "ClusterTrainingRuntime": "trainer.kubeflow.org/v1alpha1",
}
"""The API version of each kind an `expectedResources` entry (kind and name only) may name."""
_BAD_WAIT = (
    "state.waiting.reason == 'CrashLoopBackOff' || state.waiting.reason == 'ImagePullBackOff'"
    " || state.waiting.reason == 'ErrImagePull'"
)


def _reads(*pairs: tuple[str, str]) -> tuple[Read, ...]:
    return tuple(Read(group, resource) for group, resource in pairs)


def _budget(name: str) -> int:
    return CATALOG_TIMEOUT_S[name] - MARGIN_S


def _test(name: str, steps: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
    """The Test of validator `name` (each operation waits `_budget(name)`), and its text."""
    doc = test_doc(f"gpu-ci-{name}", _budget(name), steps)
    return doc, render_test(doc)


def pods_not_failing(namespace: str) -> list[tuple[str, dict[str, Any]]]:
    """`error`s on a failed or crash-looping pod (AICR's health-check idiom, the projection
    over every container: `checks/gpu-operator/health-check.yaml`)."""
    pod = ref("v1", "Pod", namespace=namespace)
    crash = f"((containerStatuses || `[]`)[?{_BAD_WAIT}] | length(@) > `0`)"
    return [
        ("error", {**pod, "status": {"phase": "Failed"}}),
        ("error", {**pod, "status": {crash: True}}),
    ]


def operator_health(operator: ComponentRef) -> ClusterCheck:
    ns = operator.namespace
    steps = [
        step("operator-available", ("assert", available("Deployment", "gpu-operator", ns))),
        step("operator-pods-not-failing", *pods_not_failing(ns)),
    ]
    return chainsaw_check(
        OPERATOR_HEALTH,
        "AICR operator-health: the GPU operator Deployment available, no pod failing",
        *_test(OPERATOR_HEALTH, steps),
        wait_s=_budget(OPERATOR_HEALTH),
        covers=(operator.name,),
        reads=_reads(("apps", "deployments"), ("", "pods")),
    )


def expected_resources(deployed: Sequence[ComponentRef]) -> ClusterCheck | None:
    steps, reads, covers = [], set(), []
    for comp in deployed:
        for index, want in enumerate(comp.expectedResources):
            version = EXPECTED_KINDS.get(want.kind)
            if version is None:
                raise PlatformError(
                    f"{comp.name}: expectedResources[{index}]: kind {want.kind!r} cannot be "
                    f"checked; known kinds: {', '.join(sorted(EXPECTED_KINDS))}"
                )
            ns = "" if want.kind in CLUSTER_SCOPED else (want.namespace or comp.namespace)
            ns = ns or ("" if want.kind in CLUSTER_SCOPED else "default")
            serves = want.kind in ("Deployment", "DaemonSet", "StatefulSet")
            resource = (
                available(want.kind, want.name, ns)
                if serves
                else ref(version, want.kind, want.name, ns)
            )
            steps.append(step(f"{comp.name}-{want.kind.lower()}-{want.name}", ("assert", resource)))
            reads.add(read_of(version, want.kind))
            covers += [comp.name] if comp.name not in covers else []
    if not steps:
        return None
    return chainsaw_check(
        EXPECTED_RESOURCES,
        "AICR expected-resources: every expectedResources entry exists and serves",
        *_test(EXPECTED_RESOURCES, steps),
        wait_s=_budget(EXPECTED_RESOURCES),
        covers=tuple(covers),
        reads=tuple(reads),
    )


def robust_controller(trainer: ComponentRef) -> ClusterCheck:
    ns, manager = trainer.namespace, "kubeflow-trainer-controller-manager"
    slices = {
        **ref("discovery.k8s.io/v1", "EndpointSlice", namespace=ns),
        "metadata": {"namespace": ns, "labels": {"kubernetes.io/service-name": manager}},
        "(endpoints[?conditions.ready] | length(@) > `0`)": True,
    }
    webhook = ref(
        "admissionregistration.k8s.io/v1",
        "ValidatingWebhookConfiguration",
        "validator.trainer.kubeflow.org",  # chart 2.3.0 templates/webhook/_helpers.tpl
    )
    steps = [
        step("controller-available", ("assert", available("Deployment", manager, ns))),
        step("validating-webhook", ("assert", webhook), ("assert", slices)),
        step("trainjob-crd", ("assert", established("trainjobs.trainer.kubeflow.org"))),
    ]
    return chainsaw_check(
        ROBUST_CONTROLLER,
        "AICR robust-controller (Kubeflow Trainer, read-only part): controller, webhook, CRD",
        *_test(ROBUST_CONTROLLER, steps),
        wait_s=_budget(ROBUST_CONTROLLER),
        covers=(trainer.name,),
        reads=_reads(
            ("apps", "deployments"),
            ("admissionregistration.k8s.io", "validatingwebhookconfigurations"),
            ("discovery.k8s.io", "endpointslices"),
            ("apiextensions.k8s.io", "customresourcedefinitions"),
        ),
    )


def named_validators(recipe: RecipeResult) -> list[str]:
    """The validators the recipe's deployment, conformance and performance phases name."""
    found: list[str] = []
    for phase in ("deployment", "conformance", "performance"):
        section = getattr(recipe.validation, phase, None) if recipe.validation else None
        found += [c for c in (section.checks or []) if c not in found] if section else []
    return found


def validator_checks(
    recipe: RecipeResult, deployed: list[ComponentRef], planned: list[str]
) -> tuple[list[ClusterCheck], dict[str, str], dict[str, str]]:
    """(checks, not run with why, covered by which check) for the validators `recipe` names,
    given the deployed components and the checks already `planned`."""
    by_name = {c.name: c for c in deployed}
    checks: list[ClusterCheck] = []
    not_run: dict[str, str] = {}
    covered: dict[str, str] = {}
    expected = expected_resources(deployed)  # runs whenever a component declares some
    forms = {
        OPERATOR_HEALTH: ("gpu-operator", operator_health),
        ROBUST_CONTROLLER: (TRAINER, robust_controller),
    }
    for name in named_validators(recipe):
        if name in planned or (name == EXPECTED_RESOURCES and expected is not None):
            continue
        if name in forms:
            component, build = forms[name]
            if component in by_name:
                checks.append(build(by_name[component]))
            else:
                not_run[name] = f"its read-only form here checks {component}, which is not deployed"
        elif name == EXPECTED_RESOURCES and any(p.startswith("health-") for p in planned):
            covered[name] = "health-"  # AICR runs the components' health checks in it
        elif name in COVERED and any(p.startswith(COVERED[name]) for p in planned):
            covered[name] = COVERED[name]
        else:
            not_run[name] = NOT_RUN.get(name, "no read-only form in gpu-ci; run `aicr validate`")
    return checks + ([expected] if expected else []), not_run, covered
