"""Deployment checks: one model (GPU pod, Chainsaw), their Jobs, RBAC, re-runs, plan."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest

from components.pins import CHECK_PINS
from components.platform.chainsaw.reads import Read
from components.platform.chainsaw.schema import first_error
from components.platform.checks.jobs import (
    DIGEST_ANNOTATION,
    POD_BUILDERS,
    TEST_FILE,
    check_job,
    config_map_name,
    reader_rules,
)
from components.platform.checks.model import CHECKS_NAMESPACE, ClusterCheck
from components.platform.checks.plan import SMOKE_CHECK, plan_checks, smoke_check
from components.platform.releases.overrides import PlatformError, PlatformOverrides
from core import yaml_text
from recipes import Catalog, RecipeResult
from recipes.model.overlays import ComponentRef, ExpectedResource, Validation, ValidationPhase
from stacks.offline.engine.records import ProgramRun
from tests.components.platform.platform_helpers import CHECKS, CONFIGMAP, JOB, run_platform

DEV_CHECKS = [
    "check-nvidia-smi",
    "health-gpu-time-slicing",
    "health-gpu-operator",
    "health-kubeflow-trainer",
    "operator-health",
    "robust-controller",
]


def _job(run: ProgramRun, check: str) -> Any:
    return run.one(JOB, f"platform-checks-{check}")


def test_every_check_of_the_recipe_is_a_job(patched: ProgramRun) -> None:
    assert set(patched.exports["checks"]) == set(DEV_CHECKS)
    jobs = {r.name.removeprefix("platform-checks-") for r in patched.by_type(JOB)}
    # and the Chainsaw pods' start Job, which is no check of the recipe (test_starts.py)
    assert jobs == {*DEV_CHECKS, "chainsaw-pods-start"}
    tests = {r.name.removeprefix("platform-checks-") for r in patched.by_type(CONFIGMAP)}
    assert tests >= set(DEV_CHECKS) - {SMOKE_CHECK}  # every chainsaw check has its Test


def test_smoke_job_is_a_gpu_pod(patched: ProgramRun) -> None:
    job = _job(patched, SMOKE_CHECK)
    spec = job.inputs["spec"]
    assert job.inputs["metadata"]["namespace"] == CHECKS_NAMESPACE
    assert "name" not in job.inputs["metadata"]  # autonamed: a replacement is created first
    assert spec["backoffLimit"] == 0
    # Its worst case: 300s to be scheduled and start, two nvidia-smi calls of 60s, + 60s.
    assert spec["activeDeadlineSeconds"] == 300 + 2 * 60 + 60
    pod = spec["template"]["spec"]
    assert pod["runtimeClassName"] == "nvidia"  # service kind: nvkind's RuntimeClass
    assert pod["restartPolicy"] == "Never"
    assert pod["automountServiceAccountToken"] is False
    (container,) = pod["containers"]
    assert container["resources"] == {"limits": {"nvidia.com/gpu": 1}}
    assert container["image"] == CHECK_PINS.cuda_image
    assert container["terminationMessagePolicy"] == "FallbackToLogsOnError"
    script = container["command"][-1]
    assert "timeout 60 nvidia-smi -L && timeout 60 nvidia-smi;" in script
    assert "gpu-ci check check-nvidia-smi: FAILED" in script  # the log tail names the check


def test_chainsaw_job_runs_the_mounted_test_read_only(patched: ProgramRun) -> None:
    job = _job(patched, "health-gpu-operator")
    pod = job.inputs["spec"]["template"]["spec"]
    # Its Test: 8 operations of 5m each, in series (test_deadlines.py), + 60s.
    assert job.inputs["spec"]["activeDeadlineSeconds"] == 8 * 300 + 60
    assert pod["serviceAccountName"] == "gpu-ci-checks"
    assert pod["securityContext"]["runAsNonRoot"] is True
    (container,) = pod["containers"]
    assert container["image"] == CHECK_PINS.chainsaw_image
    assert "args" not in container
    shell, flag, script = container["command"]
    assert (shell, flag) == ("/bin/sh", "-c")  # chainsaw/script.py around the binary
    assert script.startswith("want=gpu-operator-health-check\n")
    run = (
        f"/ko-app/chainsaw test --test-dir /checks --namespace {CHECKS_NAMESPACE} "
        "--assert-timeout=5m --error-timeout=5m --no-color --report-format JSON "
        "--report-path /tmp --report-name chainsaw-report >/tmp/chainsaw.log 2>&1 &"
    )
    assert script.splitlines()[1] == run  # no --quiet: each step is logged as it starts
    assert "( sleep 2430 && " in script  # the worst case + 30s, 30s before the deadline
    assert container["terminationMessagePolicy"] == "FallbackToLogsOnError"
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    mount = container["volumeMounts"][0]
    assert mount == {"name": "test", "mountPath": f"/checks/{TEST_FILE}", "subPath": TEST_FILE}
    test = patched.one(CONFIGMAP, "platform-checks-health-gpu-operator")
    volume = pod["volumes"][0]
    assert volume == {"name": "test", "configMap": {"name": test.inputs["metadata"]["name"]}}
    assert test.inputs["immutable"] is True
    text = test.inputs["data"][TEST_FILE]
    assert text.startswith("# gpu-operator's health check")
    assert test.urn in job.dependencies


def test_every_check_job_is_bounded_and_carries_its_digest(patched: ProgramRun) -> None:
    for check in DEV_CHECKS:
        job = _job(patched, check)
        deadline = job.inputs["spec"]["activeDeadlineSeconds"]
        wait = f"{deadline + 120}s"
        assert job.options["customTimeouts"] == {"create": wait, "update": wait}
        assert job.options["replaceOnChanges"] == ["spec"]
        assert job.inputs["metadata"]["annotations"] == {"pulumi.com/replaceUnready": "true"}
        template = job.inputs["spec"]["template"]["metadata"]
        assert re.fullmatch(r"[0-9a-f]{16}", template["annotations"][DIGEST_ANNOTATION])


def _digests(run: ProgramRun) -> dict[str, str]:
    return {
        r.name.removeprefix("platform-checks-"): r.inputs["spec"]["template"]["metadata"][
            "annotations"
        ][DIGEST_ANNOTATION]
        for r in run.by_type(JOB)
    }


def test_a_change_reruns_exactly_the_checks_of_what_changed(
    catalog: Catalog, recipe: RecipeResult, patched: ProgramRun
) -> None:
    changed = run_platform(
        catalog,
        recipe,
        overrides=PlatformOverrides.parse(["gpu-operator:a=1"]),
        runtime_class_patch=True,
    )
    before, after = _digests(patched), _digests(changed)
    rerun = sorted(c for c in before if before[c] != after[c])
    # the start Job of the Chainsaw pods runs again before the Chainsaw checks that do
    assert rerun == [
        "chainsaw-pods-start",
        "check-nvidia-smi",
        "health-gpu-operator",
        "operator-health",
    ]


def test_a_changed_test_is_a_new_config_map_and_job(recipe: RecipeResult) -> None:
    deployed = recipe.componentRefs
    trainer = recipe.component("kubeflow-trainer")
    assert trainer is not None
    old = plan_checks(recipe, deployed).by_name["health-kubeflow-trainer"]
    trainer.healthCheckAsserts = trainer.healthCheckAsserts.replace("5m", "6m")
    new = plan_checks(recipe, deployed).by_name["health-kubeflow-trainer"]
    assert new.digest != old.digest
    assert config_map_name(new) != config_map_name(old)
    assert config_map_name(replace(old, revision="other")) == config_map_name(old)
    assert new.timeout_s == 9 * 360 + 60  # nine operations, each now 6m
    old_job, new_job = check_job(old, "ns"), check_job(new, "ns")
    assert old_job["spec"]["template"] != new_job["spec"]["template"]  # replaced: .spec.template


def test_checks_rbac_reads_exactly_what_the_tests_read(patched: ProgramRun) -> None:
    checks = patched.one(CHECKS)
    role = patched.one("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole")
    assert role.parent == checks.urn
    rules = role.inputs["rules"]
    assert all(set(r["verbs"]) <= {"get", "list"} for r in rules)
    granted = {(g, r) for rule in rules for g in rule["apiGroups"] for r in rule["resources"]}
    assert granted == {
        ("", "configmaps"),
        ("", "nodes"),
        ("", "pods"),
        ("", "namespaces"),
        ("admissionregistration.k8s.io", "validatingwebhookconfigurations"),
        ("apiextensions.k8s.io", "customresourcedefinitions"),
        ("apps", "deployments"),
        ("discovery.k8s.io", "endpointslices"),
        ("nvidia.com", "clusterpolicies"),
        ("trainer.kubeflow.org", "clustertrainingruntimes"),
    }
    (own,) = [r for r in rules if r["resources"] == ["namespaces"]]
    assert own == {
        "apiGroups": [""],
        "resources": ["namespaces"],
        "verbs": ["get"],
        "resourceNames": [CHECKS_NAMESPACE],
    }
    binding = patched.one("kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding")
    assert binding.inputs["subjects"] == [
        {"kind": "ServiceAccount", "name": "gpu-ci-checks", "namespace": CHECKS_NAMESPACE}
    ]


def test_no_rbac_without_a_chainsaw_check() -> None:
    from components.platform.checks.plan import CheckPlan

    assert reader_rules(CheckPlan(checks=(smoke_check(["gpu-operator"]),))) == []


def test_plan_maps_the_recipes_validators(recipe: RecipeResult) -> None:
    recipe.validation = Validation(
        deployment=ValidationPhase(
            checks=["operator-health", "check-nvidia-smi", "gpu-operator-version"]
        ),
        conformance=ValidationPhase(
            checks=["platform-health", "dra-support", "robust-controller", "made-up"]
        ),
    )
    plan = plan_checks(recipe, recipe.componentRefs)
    assert plan.names[0] == SMOKE_CHECK
    assert "operator-health" in plan.names and "robust-controller" in plan.names
    assert plan.covered == {"platform-health": "health-"}
    assert set(plan.not_run) == {"gpu-operator-version", "dra-support", "made-up"}
    assert "aicr validate" in plan.not_run["made-up"]
    without = plan_checks(recipe, [c for c in recipe.componentRefs if c.name != "gpu-operator"])
    assert without.not_run["operator-health"] == (
        "its read-only form here checks gpu-operator, which is not deployed"
    )


def test_generated_checks_are_valid_chainsaw_tests(recipe: RecipeResult) -> None:
    trainer = recipe.component("kubeflow-trainer")
    assert trainer is not None
    trainer.expectedResources = [ExpectedResource(kind="DaemonSet", name="d")]
    plan = plan_checks(recipe, recipe.componentRefs)
    for check in plan.checks:
        if check.kind == "chainsaw":
            assert first_error(yaml_text.load(check.test)) is None, check.name


def test_expected_resources_of_deployed_components_are_checked(recipe: RecipeResult) -> None:
    trainer = recipe.component("kubeflow-trainer")
    assert trainer is not None
    trainer.expectedResources = [
        ExpectedResource(kind="Deployment", name="kubeflow-trainer-controller-manager"),
        ExpectedResource(kind="ClusterTrainingRuntime", name="torch-distributed"),
    ]
    check = plan_checks(recipe, recipe.componentRefs).by_name["expected-resources"]
    assert check.covers == ("kubeflow-trainer",)
    # Two asserts of AICR's 8m less the margin each, in series, + the margin.
    assert check.timeout_s == 2 * 420 + 60
    steps = yaml_text.load(check.test)["spec"]["steps"]
    assert steps[0]["try"][0]["assert"]["resource"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "kubeflow-trainer-controller-manager", "namespace": "kubeflow-system"},
        "status": {"(availableReplicas > `0`)": True},
    }
    assert steps[1]["try"][0]["assert"]["resource"] == {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "ClusterTrainingRuntime",
        "metadata": {"name": "torch-distributed"},
    }
    assert set(check.reads) == {
        Read("apps", "deployments"),
        Read("trainer.kubeflow.org", "clustertrainingruntimes"),
    }


def test_unknown_expected_kind_is_an_error() -> None:
    ref = ComponentRef(name="c", expectedResources=[ExpectedResource(kind="Secret", name="s")])
    recipe = RecipeResult.model_validate({"criteria": {}, "componentRefs": [ref.model_dump()]})
    with pytest.raises(
        PlatformError, match=r"c: expectedResources\[0\]: kind 'Secret' cannot be checked"
    ):
        plan_checks(recipe, [ref])


def test_a_new_kind_is_one_builder() -> None:
    assert set(POD_BUILDERS) == {"chainsaw", "gpu-pod"}
    check = ClusterCheck(
        name="gpu-count",
        kind="gpu-pod",
        summary="s",
        timeout_s=120,
        image=CHECK_PINS.cuda_image,
        command=("nvidia-smi",),
        gpus=2,
    )
    pod = check_job(check, "ns")["spec"]["template"]["spec"]
    assert pod["containers"][0]["resources"] == {"limits": {"nvidia.com/gpu": 2}}
    assert pod["containers"][0]["name"] == "gpu-count"


def test_checks_can_be_turned_off(catalog: Catalog, recipe: RecipeResult) -> None:
    run = run_platform(catalog, recipe, deployment_checks=False)
    assert run.by_type(JOB) == []
    assert run.by_type(CHECKS) == []
    assert run.exports["checks"] == {}
