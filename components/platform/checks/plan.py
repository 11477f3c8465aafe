"""Which checks run after the platform's releases, in order, and why the others do not.

Every check is a `model.ClusterCheck` (one model for every kind, `jobs.py`
builds the Jobs): `check-nvidia-smi` first (always), then each deployed component's health
check (`health-<component>`, the recipe's `healthCheckAsserts`), then the AICR validators
the recipe names that have a form here (`aicr_validators.py`); the others are listed in
`not_run`, or in `covered` when another check does their work.

Adding a kind of check: a pod builder in `jobs.POD_BUILDERS` (keyed by the new
`model.CheckKind`) and its checks in `plan_checks`; a new chainsaw or gpu-pod check
needs only its `ClusterCheck`, e.g. an entry in `aicr_validators.py`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from components.pins import CHECK_PINS
from components.platform.chainsaw.reads import Read
from components.platform.checks.aicr_validators import validator_checks
from components.platform.checks.gpu_count import GpuExpectation, gpu_count_check
from components.platform.checks.health_checks import health_tests
from components.platform.checks.model import (
    DEFAULT_WAIT_S,
    MARGIN_S,
    STARTUP_S,
    ClusterCheck,
    chainsaw_check,
)
from components.platform.checks.nccl_all_reduce import NCCL_CHECK, NCCL_GPUS, nccl_check
from components.platform.releases.gpu_sharing import GPU_RESOURCE, GpuSharing
from components.platform.releases.overrides import PlatformError, PlatformOverrides
from recipes.catalogs.catalog import Catalog
from recipes.model.overlays import ComponentRef
from recipes.model.result import RecipeResult

SMOKE_CHECK = "check-nvidia-smi"
RUNTIME_CLASS = "nvidia"
SMOKE_RUN_S = 60
"""Each `nvidia-smi` call's bound in the smoke check (it answers in seconds)."""
GPU_RUNTIME_CLASS = {"kind": RUNTIME_CLASS, "oke": ""}
"""The RuntimeClass a GPU check pod gets per service: the one the service's GPU workloads
run under, which the check must prove.
- kind: `nvidia`. nvkind configures the `nvidia` handler in each GPU worker's containerd
  and applies RuntimeClass `nvidia` (NVIDIA/nvkind, FIELD-NOTES); the workers' default
  runtime gives no GPU, and the Trainer runtimes are patched to it (`runtimeClassPatch`).
- oke: none. OKE's GPU images come with the driver and the container toolkit (AICR
  `components/gpu-operator/values-oke.yaml`: "OKE pre-installs NVIDIA drivers and container
  toolkit", so the operator's toolkit is off here too), and a pod that asks for
  `nvidia.com/gpu` gets it from CRI-O's default runtime, as gpu-ci's OKE workloads do
  (Trainer runtimes unpatched, ARC scale sets' `runtimeClassName` unset). Nothing on OKE
  needs a `nvidia` handler for them, so the check does not either: it proves the path the
  workloads take.
Another service keeps `nvidia`: the GPU operator v26.7.0 creates RuntimeClass `nvidia`
(handler `nvidia`) whenever its NRI plugin is off (`controllers/object_controls.go`
`RuntimeClasses`, `state_manager.go` `isStateEnabled("pre-requisites")`) and, with CDI on,
runs its own GPU operands under it (`setRuntimeClassName`)."""


@dataclass(frozen=True)
class CheckPlan:
    """The checks that run, in order, and the recipe's validators that do not, with why."""

    checks: tuple[ClusterCheck, ...] = ()
    not_run: dict[str, str] = field(default_factory=dict)
    covered: dict[str, str] = field(default_factory=dict)
    """AICR validator -> the check that does its work here."""

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.checks]

    @property
    def by_name(self) -> dict[str, ClusterCheck]:
        return {c.name: c for c in self.checks}

    @property
    def reads(self) -> tuple[Read, ...]:
        """What the chainsaw checks read, together (one read-only ClusterRole)."""
        return tuple(sorted({r for c in self.checks if c.kind == "chainsaw" for r in c.reads}))


def gpu_runtime_class(service: str) -> str:
    """The RuntimeClass of the GPU check pods on `service` (empty: none)."""
    return GPU_RUNTIME_CLASS.get(service, RUNTIME_CLASS)


def smoke_check(covers: Sequence[str], runtime_class: str = RUNTIME_CLASS) -> ClusterCheck:
    """`nvidia-smi` on one GPU (under `runtime_class`, if any); its log ends with the
    verdict. Its deadline: the pod's start, then two bounded calls, plus the margin."""
    step = SMOKE_RUN_S
    script = (
        f'echo "gpu-ci check {SMOKE_CHECK}: nvidia-smi, runtimeClass {runtime_class or "none"}, '
        f'1 {GPU_RESOURCE}"; '
        f"if timeout {step} nvidia-smi -L && timeout {step} nvidia-smi; then "
        f'echo "gpu-ci check {SMOKE_CHECK}: passed"; '
        f'else rc=$?; echo "gpu-ci check {SMOKE_CHECK}: FAILED (exit $rc)"; exit 1; fi'
    )
    return ClusterCheck(
        name=SMOKE_CHECK,
        kind="gpu-pod",
        summary="nvidia-smi in a pod given one GPU by the device plugin",
        timeout_s=STARTUP_S + 2 * SMOKE_RUN_S + MARGIN_S,
        covers=tuple(covers),
        image=CHECK_PINS.cuda_image,
        command=("/bin/sh", "-c", script),
        gpus=1,
        runtime_class=runtime_class,
    )


def gpu_checks(
    expected: GpuExpectation | None,
    sharing: GpuSharing | None,
    covers: Sequence[str],
    runtime_class: str = "",
) -> tuple[list[ClusterCheck], dict[str, str]]:
    """The GPU checks for `expected` (none without an expectation), and those not run, why."""
    if expected is None:
        return [], {}
    checks = [gpu_count_check(expected, sharing, covers)]
    if not expected.multi:
        return checks, {}
    if expected.per_node < NCCL_GPUS:
        why = (
            f"no worker has {NCCL_GPUS} GPUs (each gets {expected.per_node}), so no pod can "
            "hold two; give one worker both (`gpus: all`), or test across nodes with a "
            "distributed TrainJob (examples/multi-gpu)"
        )
        return checks, {NCCL_CHECK: why}
    return [*checks, nccl_check(covers, runtime_class)], {}


def plan_checks(
    recipe: RecipeResult,
    deployed: Sequence[ComponentRef],
    catalog: Catalog | None = None,
    revisions: Mapping[str, str] | None = None,
    gpus: tuple[GpuExpectation | None, GpuSharing | None] = (None, None),
) -> CheckPlan:
    """The checks for `recipe` given the components actually deployed (`revisions`: each
    one's deployed revision) and the cluster's GPUs (`gpus`: what the stack expects, how the
    device plugin shares them: `gpu_checks`); raises PlatformError for a health check
    that cannot run."""
    names = [c.name for c in deployed]
    runtime_class = gpu_runtime_class(recipe.criteria.service)
    checks: list[ClusterCheck] = [smoke_check(names, runtime_class)]
    gpu, gpu_not_run = gpu_checks(*gpus, names, runtime_class)
    # A GPU pod that cannot start (no GPU free, a RuntimeClass or image it cannot get) fails
    # the short smoke Job first; the longer GPU Jobs are created only once it passed.
    checks += [replace(c, after=(SMOKE_CHECK,)) if c.kind == "gpu-pod" else c for c in gpu]
    for test in health_tests(catalog, list(deployed)):
        checks.append(
            chainsaw_check(
                f"health-{test.component}",
                f"{test.component}'s health check ({test.source})",
                test.doc,
                test.text,
                wait_s=test.budget_s or DEFAULT_WAIT_S,
                covers=(test.component,),
                source=test.source,
                reads=test.reads,
            )
        )
    extra, not_run, covered = validator_checks(recipe, list(deployed), [c.name for c in checks])
    checks += extra
    known = dict(revisions or {})
    return CheckPlan(
        checks=tuple(replace(c, revision=_revision(c.covers, known)) for c in checks),
        not_run={**gpu_not_run, **not_run},
        covered=covered,
    )


def _revision(covers: Sequence[str], revisions: Mapping[str, str]) -> str:
    text = json.dumps([[name, revisions.get(name, "")] for name in covers])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def check_problem(
    catalog: Catalog, recipe: RecipeResult, overrides: PlatformOverrides
) -> str | None:
    """Why the checks of `recipe` as `overrides` deploy it cannot run (a health check that is
    not valid Chainsaw, ...), for the config check before anything registers; None if none."""
    refs = {c.name: c for c in recipe.componentRefs}
    deployed = [refs[n] for n in recipe.deploymentOrder if n in refs and overrides.is_enabled(n)]
    try:
        plan_checks(recipe, deployed, catalog)
    except PlatformError as err:
        return str(err)
    return None
