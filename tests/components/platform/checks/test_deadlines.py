"""Each check Job's deadline is its own worst case plus the 60s margin, one test per kind of
check, each computing the worst case here from the Test document (or the GPU pod's command)
on its own: Chainsaw gives every assert and error its own timeout and runs them in series
(kyverno/chainsaw v0.2.15 `pkg/runner/operations/assert.go`, `error.go`: one
`context.WithTimeout` each; `pkg/runner/runner.go`), so a Test waits at most their sum."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from components.platform.checks.aicr_validators import expected_resources
from components.platform.checks.gpu_count import GpuExpectation
from components.platform.checks.jobs import check_job
from components.platform.checks.model import ClusterCheck
from components.platform.checks.plan import SMOKE_CHECK, gpu_checks, plan_checks
from recipes import RecipeResult
from recipes.model.overlays import ExpectedResource, Validation, ValidationPhase

MARGIN = 60
CATALOG = Path(__file__).parents[4] / "recipes" / "catalog" / "components"


def _seconds(text: str) -> int:
    """`5m`, `90s`, `1m30s` (the forms these Tests use) in seconds."""
    parts = re.fullmatch(r"(?:(\d+)m)?(?:(\d+)s)?", text)
    assert parts is not None and text, text
    return int(parts[1] or 0) * 60 + int(parts[2] or 0)


def worst_case(test_text: str, wait_s: int) -> int:
    """The sum of the Test's assert and error timeouts, each from the nearest level."""
    test: dict[str, Any] = yaml.safe_load(test_text)
    spec_level = test["spec"].get("timeouts") or {}
    total = 0
    for step in test["spec"]["steps"]:
        step_level = step.get("timeouts") or {}
        for entry in step["try"]:
            ((kind, body),) = entry.items()
            assert kind in ("assert", "error")
            own = body.get("timeout") or step_level.get(kind) or spec_level.get(kind)
            total += _seconds(own) if own else wait_s
    return total


def _deadline(check: ClusterCheck) -> int:
    deadline: int = check_job(check, "gpu-ci-checks")["spec"]["activeDeadlineSeconds"]
    return deadline


def _chainsaw(check: ClusterCheck) -> int:
    """The deadline a chainsaw check should have, from its Test."""
    return worst_case(check.test, check.wait_s) + MARGIN


def test_gpu_operator_health_check(recipe: RecipeResult) -> None:
    check = plan_checks(recipe, recipe.componentRefs).by_name["health-gpu-operator"]
    text = (CATALOG / "gpu-operator" / "health-check.yaml").read_text(encoding="utf-8")
    assert check.test == text
    assert _deadline(check) == _chainsaw(check) == 8 * 300 + MARGIN  # was 360


def test_kubeflow_trainer_health_check(recipe: RecipeResult) -> None:
    check = plan_checks(recipe, recipe.componentRefs).by_name["health-kubeflow-trainer"]
    assert _deadline(check) == _chainsaw(check) == 9 * 300 + MARGIN  # was 360


def test_every_health_check_of_the_recipe(recipe: RecipeResult) -> None:
    checks = [c for c in plan_checks(recipe, recipe.componentRefs).checks if c.kind == "chainsaw"]
    assert len(checks) >= 5
    for check in checks:
        assert _deadline(check) == _chainsaw(check), check.name


def _with_validators(recipe: RecipeResult, *names: str) -> RecipeResult:
    phase = ValidationPhase(checks=list(names))
    return recipe.model_copy(update={"validation": Validation(deployment=phase)})


@pytest.mark.parametrize(
    ("validator", "operations", "wait"),
    [("robust-controller", 4, 240), ("operator-health", 3, 60)],
)
def test_validator_checks(recipe: RecipeResult, validator: str, operations: int, wait: int) -> None:
    recipe = _with_validators(recipe, validator)
    check = plan_checks(recipe, recipe.componentRefs).by_name[validator]
    assert check.wait_s == wait  # AICR's catalog timeout less the margin, per operation
    assert _deadline(check) == _chainsaw(check) == operations * wait + MARGIN


def test_expected_resources(recipe: RecipeResult) -> None:
    trainer = recipe.component("kubeflow-trainer")
    assert trainer is not None
    trainer.expectedResources = [
        ExpectedResource(kind="Deployment", name="kubeflow-trainer-controller-manager"),
        ExpectedResource(kind="ClusterTrainingRuntime", name="torch-distributed"),
        ExpectedResource(kind="CustomResourceDefinition", name="trainjobs.trainer.kubeflow.org"),
    ]
    check = expected_resources(recipe.componentRefs)
    assert check is not None
    assert _deadline(check) == _chainsaw(check) == 3 * 420 + MARGIN


def test_gpu_count_check() -> None:
    (count,), _ = gpu_checks(GpuExpectation(2, multi=False, per_node=2), None, ("gpu-operator",))
    assert _deadline(count) == _chainsaw(count) == 240 + MARGIN


def _command_bounds(check: ClusterCheck) -> int:
    """The `timeout N` bounds of a GPU pod's command, which run one after another."""
    return sum(int(n) for n in re.findall(r"\btimeout (\d+) ", check.command[-1]))


def test_gpu_pod_smoke_check(recipe: RecipeResult) -> None:
    smoke = plan_checks(recipe, recipe.componentRefs).by_name[SMOKE_CHECK]
    assert _command_bounds(smoke) == 2 * 60  # `nvidia-smi -L`, then `nvidia-smi`
    startup = 300  # scheduling and pulling the CUDA base image (model.STARTUP_S)
    assert _deadline(smoke) == startup + _command_bounds(smoke) + MARGIN


def test_nccl_check() -> None:
    checks, _ = gpu_checks(GpuExpectation(2, multi=True, per_node=2), None, ("gpu-operator",))
    nccl = checks[1]
    assert _command_bounds(nccl) == 300  # `timeout 300 torchrun ...`
    startup = 600  # pulling the PyTorch image, several GB (nccl_all_reduce.NCCL_STARTUP_S)
    assert _deadline(nccl) == startup + _command_bounds(nccl) + MARGIN
