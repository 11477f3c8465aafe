"""Which RuntimeClass the GPU check pods run under, per service, and the smoke Job gating the
longer GPU Jobs (`plan.GPU_RUNTIME_CLASS`, `plan.plan_checks`)."""

from __future__ import annotations

from pathlib import Path

from components.platform.checks.gpu_count import GpuExpectation
from components.platform.checks.jobs import check_job
from components.platform.checks.nccl_all_reduce import NCCL_CHECK
from components.platform.checks.plan import SMOKE_CHECK, gpu_runtime_class, plan_checks
from core import yaml_text
from recipes import RecipeResult

ROOT = Path(__file__).parents[4]
MULTI = (GpuExpectation(2, multi=True, per_node=2), None)


def _on(recipe: RecipeResult, service: str) -> RecipeResult:
    criteria = recipe.criteria.model_copy(update={"service": service})
    return recipe.model_copy(update={"criteria": criteria})


def _pods(recipe: RecipeResult) -> dict[str, dict[str, object]]:
    plan = plan_checks(recipe, recipe.componentRefs, gpus=MULTI)
    return {
        c.name: check_job(c, "gpu-ci-checks")["spec"]["template"]["spec"]
        for c in plan.checks
        if c.kind == "gpu-pod"
    }


def test_kind_gpu_pods_run_under_nvkinds_runtime_class(recipe: RecipeResult) -> None:
    pods = _pods(_on(recipe, "kind"))
    assert set(pods) == {SMOKE_CHECK, NCCL_CHECK}
    assert all(pod["runtimeClassName"] == "nvidia" for pod in pods.values())


def test_oke_gpu_pods_use_the_default_runtime_as_oke_workloads_do(recipe: RecipeResult) -> None:
    pods = _pods(_on(recipe, "oke"))
    assert set(pods) == {SMOKE_CHECK, NCCL_CHECK}
    assert all("runtimeClassName" not in pod for pod in pods.values())
    smoke = plan_checks(_on(recipe, "oke"), recipe.componentRefs).by_name[SMOKE_CHECK]
    assert "runtimeClass none" in smoke.command[-1]  # the log says what it ran under


def test_the_oke_evidence_holds_in_the_catalog() -> None:
    """OKE's image has the toolkit, so the recipe leaves the operator's off (its values);
    workloads there get no runtimeClassName (the Trainer patch is kind's default only)."""
    oke = yaml_text.load(
        (ROOT / "recipes/catalog/components/gpu-operator/values-oke-a10.yaml").read_text("utf-8")
    )
    assert oke["toolkit"]["enabled"] is False and oke["driver"]["enabled"] is False
    config = (ROOT / "components/platform/platform_config.py").read_text("utf-8")
    assert "default: on for `service: kind`" in config


def test_other_services_keep_the_operators_runtime_class(upstream: Path) -> None:
    """The operator's chart names RuntimeClass `nvidia` and leaves NRI off, so its
    pre-requisites state creates that RuntimeClass (gpu-operator v26.7.0)."""
    chart = upstream / "helm-charts" / "gpu-operator-v26.7.0" / "values.yaml"
    values = yaml_text.load(chart.read_text("utf-8"))
    assert values["operator"]["runtimeClass"] == "nvidia"
    assert values["cdi"]["nriPluginEnabled"] is False
    assert gpu_runtime_class("eks") == gpu_runtime_class("kind") == "nvidia"
    assert gpu_runtime_class("oke") == ""


def test_longer_gpu_jobs_wait_for_the_smoke_job(recipe: RecipeResult) -> None:
    plan = plan_checks(recipe, recipe.componentRefs, gpus=MULTI)
    assert plan.by_name[NCCL_CHECK].after == (SMOKE_CHECK,)
    assert all(c.after == () for c in plan.checks if c.name != NCCL_CHECK)
