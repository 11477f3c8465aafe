"""Deployment checks: the GPU smoke Job, resource checks, RBAC, plan, bounded timeouts."""

from __future__ import annotations

import re
from typing import Any

import pytest

from components.pins import CHECK_PINS
from components.platform.check_jobs import (
    CHECKS_NAMESPACE,
    REVISION_ANNOTATION,
    gpu_smoke_job,
    reader_rules,
    resource_check_job,
)
from components.platform.check_plan import ExpectedObject, plan_checks
from components.platform.overrides import PlatformError, PlatformOverrides
from recipes import Catalog, RecipeResult
from recipes.model import ComponentRef, ExpectedResource, Validation, ValidationPhase
from stacks.offline.records import ProgramRun
from tests.components.platform.platform_helpers import CHECKS, JOB, run_platform


def _job(run: ProgramRun, check: str) -> Any:
    return run.one(JOB, f"platform-checks-{check}")


def test_smoke_job_spec(patched: ProgramRun) -> None:
    job = _job(patched, "check-nvidia-smi")
    spec = job.inputs["spec"]
    assert job.inputs["metadata"]["namespace"] == CHECKS_NAMESPACE
    assert "name" not in job.inputs["metadata"]  # autonamed: a changed platform re-runs it
    assert spec["backoffLimit"] == 0
    assert spec["activeDeadlineSeconds"] == 600
    pod = spec["template"]["spec"]
    assert pod["runtimeClassName"] == "nvidia"
    assert pod["restartPolicy"] == "Never"
    (container,) = pod["containers"]
    assert container["resources"] == {"limits": {"nvidia.com/gpu": 1}}
    assert container["image"] == CHECK_PINS.cuda_image
    assert re.fullmatch(
        r"nvidia/cuda:12\.8\.1-base-ubuntu24\.04@sha256:[0-9a-f]{64}", CHECK_PINS.cuda_image
    )
    assert container["terminationMessagePolicy"] == "FallbackToLogsOnError"
    script = container["command"][-1]
    assert "nvidia-smi" in script
    assert "gpu-ci check check-nvidia-smi: FAILED" in script  # the log tail names the check


def test_check_jobs_are_bounded_and_replaced_when_the_platform_changes(
    patched: ProgramRun,
) -> None:
    for check in ("check-nvidia-smi", "operator-health"):
        job = _job(patched, check)
        assert job.options["customTimeouts"] == {"create": "720s", "update": "720s"}
        assert job.options["replaceOnChanges"] == ["spec"]
        assert job.inputs["metadata"]["annotations"] == {"pulumi.com/replaceUnready": "true"}
        template = job.inputs["spec"]["template"]["metadata"]
        assert re.fullmatch(r"[0-9a-f]{16}", template["annotations"][REVISION_ANNOTATION])


def test_revision_follows_values(
    catalog: Catalog, recipe: RecipeResult, patched: ProgramRun
) -> None:
    changed = run_platform(catalog, recipe, overrides=PlatformOverrides.parse(["gpu-operator:a=1"]))

    def revision(run: ProgramRun) -> str:
        meta = _job(run, "check-nvidia-smi").inputs["spec"]["template"]["metadata"]
        return str(meta["annotations"][REVISION_ANNOTATION])

    assert revision(changed) != revision(patched)


def test_operator_health_checks_the_operator_deployment(patched: ProgramRun) -> None:
    pod = _job(patched, "operator-health").inputs["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == "gpu-ci-checks"
    (wait,) = pod["initContainers"]
    (rollout,) = pod["containers"]
    assert wait["command"] == [
        "/bin/kubectl",
        "wait",
        "--for=create",
        "deployments.apps/gpu-operator",
        "-n",
        "gpu-operator",
        "--timeout=285s",
    ]
    assert rollout["name"] == "deployment-gpu-operator"
    assert rollout["command"][:4] == [
        "/bin/kubectl",
        "rollout",
        "status",
        "deployments.apps/gpu-operator",
    ]
    assert rollout["image"] == CHECK_PINS.kubectl_image


def test_checks_rbac_is_read_only(patched: ProgramRun) -> None:
    checks = patched.one(CHECKS)
    role = patched.one("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole")
    assert role.parent == checks.urn
    assert role.inputs["rules"] == [
        {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get", "list", "watch"]}
    ]
    binding = patched.one("kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding")
    assert binding.inputs["subjects"] == [
        {"kind": "ServiceAccount", "name": "gpu-ci-checks", "namespace": CHECKS_NAMESPACE}
    ]


def test_plan_maps_recipe_checks(recipe: RecipeResult) -> None:
    recipe.validation = Validation(
        deployment=ValidationPhase(
            checks=[
                "operator-health",
                "check-nvidia-smi",
                "gpu-operator-version",
                "expected-resources",
            ]
        )
    )
    plan = plan_checks(recipe, recipe.componentRefs)
    assert plan.names == ["check-nvidia-smi", "operator-health"]
    assert set(plan.not_run) == {"gpu-operator-version", "expected-resources"}
    without_operator = plan_checks(
        recipe, [c for c in recipe.componentRefs if c.name != "gpu-operator"]
    )
    assert (
        without_operator.not_run["operator-health"] == "the gpu-operator component is not deployed"
    )


def test_expected_resources_of_deployed_components_are_checked(recipe: RecipeResult) -> None:
    trainer = recipe.component("kubeflow-trainer")
    assert trainer is not None
    trainer.expectedResources = [
        ExpectedResource(kind="Deployment", name="kubeflow-trainer-controller-manager"),
        ExpectedResource(kind="ClusterTrainingRuntime", name="torch-distributed"),
    ]
    plan = plan_checks(recipe, recipe.componentRefs)
    objects = plan.resource_checks["expected-resources"]
    assert objects == (
        ExpectedObject(
            "kubeflow-trainer",
            "Deployment",
            "kubeflow-trainer-controller-manager",
            "kubeflow-system",
        ),
        ExpectedObject("kubeflow-trainer", "ClusterTrainingRuntime", "torch-distributed", None),
    )
    job = resource_check_job("expected-resources", CHECKS_NAMESPACE, objects, "r", 300)
    commands = [c["command"][1:] for c in job["spec"]["template"]["spec"]["containers"]]
    assert commands == [
        [
            "rollout",
            "status",
            "deployments.apps/kubeflow-trainer-controller-manager",
            "-n",
            "kubeflow-system",
            "--timeout=135s",
        ],
        ["get", "clustertrainingruntimes.trainer.kubeflow.org/torch-distributed", "-o", "name"],
    ]
    assert reader_rules(objects) == [
        {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get", "list", "watch"]},
        {
            "apiGroups": ["trainer.kubeflow.org"],
            "resources": ["clustertrainingruntimes"],
            "verbs": ["get", "list", "watch"],
        },
    ]


def test_unknown_expected_kind_is_an_error() -> None:
    ref = ComponentRef(name="c", expectedResources=[ExpectedResource(kind="Secret", name="s")])
    recipe = RecipeResult.model_validate({"criteria": {}, "componentRefs": [ref.model_dump()]})
    with pytest.raises(
        PlatformError, match="c: expectedResources: kind 'Secret' cannot be checked"
    ):
        plan_checks(recipe, [ref])


def test_smoke_job_without_a_recipe_check_list(recipe: RecipeResult) -> None:
    recipe.validation = None
    plan = plan_checks(recipe, recipe.componentRefs)
    assert plan.names == ["check-nvidia-smi"]
    job = gpu_smoke_job("ns", "rev", 120)
    assert job["spec"]["activeDeadlineSeconds"] == 120
    assert (
        "timeout 60 nvidia-smi" in job["spec"]["template"]["spec"]["containers"][0]["command"][-1]
    )


def test_checks_can_be_turned_off(catalog: Catalog, recipe: RecipeResult) -> None:
    run = run_platform(catalog, recipe, deployment_checks=False)
    assert run.by_type(JOB) == []
    assert run.by_type(CHECKS) == []
    assert run.exports["checks"] == {}
