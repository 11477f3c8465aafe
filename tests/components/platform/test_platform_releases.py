"""RecipeReleases under the recording mocks: releases, order, edges, namespaces, values."""

from __future__ import annotations

from pathlib import Path

import pytest

from components.platform.release_plan import PSA_ENFORCE, chart_source, plan_platform
from components.platform.releases.overrides import PlatformError, PlatformOverrides
from recipes import Catalog, RecipeResult, component_values, load_catalog, resolve
from recipes.model.criteria import RecipeCriteria
from recipes.model.overlays import ComponentRef
from recipes.resolution.merge import deep_merge
from stacks.offline.engine.records import ProgramRun
from tests.components.platform.platform_helpers import (
    CHECKS,
    COMPONENT,
    CONFIGMAP,
    NAMESPACE,
    RELEASE,
    RUNTIME_PATCH,
    releases,
    run_platform,
    short,
)
from tests.recipes.recipe_helpers import WriteCatalog, overlay, registry

TIME_SLICING = "platform-gpu-time-slicing-configmap-gpu-time-slicing-config"


def test_one_release_per_chart_component_in_deployment_order(
    patched: ProgramRun, recipe: RecipeResult
) -> None:
    charted = [c for c in recipe.deploymentOrder if recipe.component(c).chart]  # type: ignore[union-attr]
    assert charted == ["gpu-operator", "kubeflow-trainer"]
    assert [r.inputs["name"] for r in releases(patched)] == charted
    assert [r.name for r in releases(patched)] == [f"platform-{c}" for c in charted]


def test_chart_sources_https_and_oci(patched: ProgramRun) -> None:
    operator = patched.one(RELEASE, "platform-gpu-operator").inputs
    assert operator["chart"] == "gpu-operator"
    assert operator["repositoryOpts"] == {"repo": "https://helm.ngc.nvidia.com/nvidia"}
    assert operator["version"] == "v26.7.0"
    assert operator["namespace"] == "gpu-operator"
    trainer = patched.one(RELEASE, "platform-kubeflow-trainer").inputs
    assert trainer["chart"] == "oci://ghcr.io/kubeflow/charts/kubeflow-trainer"
    assert "repositoryOpts" not in trainer
    assert trainer["version"] == "2.3.0"
    assert trainer["namespace"] == "kubeflow-system"
    for release in (operator, trainer):
        assert release["waitForJobs"] is True
        assert release["timeout"] == 900


def test_depends_on_follows_dependency_refs(patched: ProgramRun, recipe: RecipeResult) -> None:
    configmap = patched.one(
        CONFIGMAP, "platform-gpu-time-slicing-configmap-gpu-time-slicing-config"
    )
    operator = patched.one(RELEASE, "platform-gpu-operator")
    trainer = patched.one(RELEASE, "platform-kubeflow-trainer")
    assert recipe.component("gpu-operator").dependencyRefs == ["gpu-time-slicing"]  # type: ignore[union-attr]
    assert recipe.component("kubeflow-trainer").dependencyRefs == ["gpu-operator"]  # type: ignore[union-attr]
    assert short(configmap.dependencies) == {"platform-ns-gpu-operator"}
    assert short(operator.dependencies) == {
        "platform-ns-gpu-operator",
        configmap.name,  # gpu-time-slicing is manifest-only: its objects are what it "is"
    }
    assert short(trainer.dependencies) == {"platform-ns-kubeflow-system", operator.name}


def test_namespaces_and_the_privileged_label(patched: ProgramRun) -> None:
    namespaces = {r.inputs["metadata"]["name"]: r for r in patched.by_type(NAMESPACE)}
    assert set(namespaces) == {"gpu-operator", "kubeflow-system", "gpu-ci-checks"}
    labels = namespaces["gpu-operator"].inputs["metadata"]["labels"]
    assert labels[PSA_ENFORCE] == "privileged"
    assert PSA_ENFORCE not in namespaces["kubeflow-system"].inputs["metadata"]["labels"]


def test_release_values_are_the_hydrated_values(
    patched: ProgramRun, catalog: Catalog, recipe: RecipeResult
) -> None:
    for name in ("gpu-operator", "kubeflow-trainer"):
        values = patched.one(RELEASE, f"platform-{name}").inputs["values"]
        assert values == component_values(catalog, recipe, name)
    operator = patched.one(RELEASE, "platform-gpu-operator").inputs["values"]
    assert operator["devicePlugin"]["config"] == {
        "name": "gpu-time-slicing-config",
        "default": "any",
    }


def test_overrides_merge_into_values(catalog: Catalog, recipe: RecipeResult) -> None:
    overrides = PlatformOverrides.parse(
        ["gpu-operator:dcgmExporter.enabled=false", "gpu-operator:devicePlugin.config.name=mine"]
    )
    run = run_platform(catalog, recipe, overrides=overrides, deployment_checks=False)
    values = run.one(RELEASE, "platform-gpu-operator").inputs["values"]
    expected = deep_merge(
        component_values(catalog, recipe, "gpu-operator"),
        {"dcgmExporter": {"enabled": False}, "devicePlugin": {"config": {"name": "mine"}}},
    )
    assert values == expected
    assert values["devicePlugin"]["config"]["default"] == "any"  # siblings kept


def test_disabled_component_is_absent(catalog: Catalog, recipe: RecipeResult) -> None:
    overrides = PlatformOverrides.parse(["kubeflow-trainer:enabled=false"])
    run = run_platform(catalog, recipe, overrides=overrides, runtime_class_patch=True)
    assert [r.inputs["name"] for r in releases(run)] == ["gpu-operator"]
    assert run.by_type(RUNTIME_PATCH) == []
    names = {r.inputs["metadata"]["name"] for r in run.by_type(NAMESPACE)}
    assert "kubeflow-system" not in names
    outputs = run.one(COMPONENT).outputs
    assert outputs["disabled"] == ["kubeflow-trainer"]
    assert outputs["deploymentOrder"] == ["gpu-time-slicing", "gpu-operator"]


def test_disabling_a_dependency_drops_the_edge(catalog: Catalog, recipe: RecipeResult) -> None:
    overrides = PlatformOverrides.parse(["gpu-operator:enabled=false"])
    plan = plan_platform(catalog, recipe, overrides)
    assert [c.name for c in plan.components] == ["gpu-time-slicing", "kubeflow-trainer"]
    assert plan.by_name["kubeflow-trainer"].depends_on == ()


def test_manifest_objects_get_the_component_namespace(patched: ProgramRun) -> None:
    configmap = patched.one(
        CONFIGMAP, "platform-gpu-time-slicing-configmap-gpu-time-slicing-config"
    ).inputs
    assert configmap["metadata"] == {"name": "gpu-time-slicing-config", "namespace": "gpu-operator"}
    assert "replicas: 2" in configmap["data"]["any"]


def test_runtime_patches_depend_on_the_trainer_release(patched: ProgramRun) -> None:
    trainer = patched.one(RELEASE, "platform-kubeflow-trainer")
    patches = patched.by_type(RUNTIME_PATCH)
    assert {p.inputs["metadata"]["name"] for p in patches} == {
        "torch-distributed",
        "jax-distributed",
        "torchtune-qwen2.5-1.5b",
    }
    for patch in patches:
        assert trainer.urn in patch.dependencies
        meta = patch.inputs["metadata"]
        assert meta["annotations"]["pulumi.com/patchFieldManager"] == "gpu-ci-runtime-patch"
        assert meta["annotations"]["gpu-ci/trainer-chart-version"] == "2.3.0"
        for job in patch.inputs["spec"]["template"]["spec"]["replicatedJobs"]:
            pod = job["template"]["spec"]["template"]["spec"]
            assert pod["runtimeClassName"] == "nvidia"
            assert pod["volumes"] == [{"name": "dshm", "emptyDir": {"medium": "Memory"}}]
            for container in pod["containers"]:
                assert container["volumeMounts"] == [{"name": "dshm", "mountPath": "/dev/shm"}]


def test_no_runtime_patches_unless_the_host_needs_them(
    catalog: Catalog, recipe: RecipeResult
) -> None:
    run = run_platform(catalog, recipe, runtime_class_patch=False)
    assert run.by_type(RUNTIME_PATCH) == []
    assert run.one(COMPONENT).outputs["runtimePatches"] == []


def test_checks_run_after_everything(patched: ProgramRun) -> None:
    checks = patched.one(CHECKS)
    platform = patched.one(COMPONENT)
    deployed = [
        r.urn
        for r in patched.registrations
        if r.parent == platform.urn and r.custom and r.type != NAMESPACE
    ]
    assert set(deployed) <= set(checks.dependencies)
    # the checks' namespace waits for all of it, and every object of the checks for it
    namespace = patched.one(NAMESPACE, "platform-checks-ns")
    assert set(deployed) <= set(namespace.dependencies)
    for obj in (r for r in patched.registrations if r.parent == checks.urn and r != namespace):
        if obj.type.endswith(("Job", "ConfigMap", "ServiceAccount")):
            assert namespace.urn in obj.dependencies, obj.name


def test_every_resource_is_inside_the_component_and_uses_the_provider(
    patched: ProgramRun,
) -> None:
    components = {r.urn for r in patched.registrations if not r.custom}
    for reg in patched.registrations:
        if reg.type.startswith("kubernetes:"):
            assert reg.parent in components, reg.name
            assert "pulumi:providers:kubernetes::kind" in reg.options["provider"], reg.name


def test_outputs(patched: ProgramRun) -> None:
    assert patched.exports["releases"] == {
        "gpu-operator": {
            "name": "gpu-operator",
            "namespace": "gpu-operator",
            "chart": "gpu-operator",
            "version": "v26.7.0",
            "status": None,
            "revision": None,
        },
        "kubeflow-trainer": {
            "name": "kubeflow-trainer",
            "namespace": "kubeflow-system",
            "chart": "oci://ghcr.io/kubeflow/charts/kubeflow-trainer",
            "version": "2.3.0",
            "status": None,
            "revision": None,
        },
    }
    assert set(patched.exports["checks"]) == {
        "check-nvidia-smi",
        "health-gpu-time-slicing",
        "health-gpu-operator",
        "health-kubeflow-trainer",
        "operator-health",
        "robust-controller",
    }
    outputs = patched.one(COMPONENT).outputs
    assert outputs["deploymentOrder"] == ["gpu-time-slicing", "gpu-operator", "kubeflow-trainer"]
    assert outputs["checksNotRun"] == {}


def test_preview_leaves_release_status_unknown(catalog: Catalog, recipe: RecipeResult) -> None:
    run = run_platform(catalog, recipe, preview=True)
    assert run.exports["releases"] == "[unknown]"
    assert len(releases(run)) == 2


def test_override_errors_stop_the_program(catalog: Catalog, recipe: RecipeResult) -> None:
    overrides = PlatformOverrides.parse(["gpu-operater:driver.enabled=true"])
    with pytest.raises(PlatformError, match=r"did you mean 'gpu-operator'"):
        run_platform(catalog, recipe, overrides=overrides)


def test_manifest_only_components_take_no_values(catalog: Catalog, recipe: RecipeResult) -> None:
    overrides = PlatformOverrides.parse(["gpu-time-slicing:foo=1"])
    with pytest.raises(PlatformError, match="manifest-only"):
        plan_platform(catalog, recipe, overrides)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"chart": "x", "version": "1", "source": "http://charts.example"}, "must be an https://"),
        ({"chart": "x", "version": "1", "source": ""}, "must be an https://"),
        ({"chart": "x", "source": "https://charts.example"}, "has no version"),
        ({"type": "Kustomize", "path": "a"}, "Kustomize"),
        ({}, "neither a chart nor manifestFiles"),
    ],
)
def test_chart_source_errors(fields: dict[str, str], message: str) -> None:
    ref = ComponentRef(name="c", **fields)
    with pytest.raises(PlatformError, match=message):
        chart_source(ref)


def test_chart_source_strips_a_repo_alias() -> None:
    ref = ComponentRef(
        name="gpu-operator", chart="nvidia/gpu-operator", version="v1", source="https://h/nvidia"
    )
    assert chart_source(ref) == ("gpu-operator", "https://h/nvidia")


def test_manifests_of_a_chart_component_come_after_its_release(
    write_catalog: WriteCatalog,
) -> None:
    root: Path = write_catalog(
        {
            "registry.yaml": registry("app"),
            "overlays/app.yaml": overlay(
                "app",
                criteria={"service": "kind"},
                componentRefs=[
                    {"name": "app", "manifestFiles": ["components/app/manifests/cr.yaml"]}
                ],
            ),
            "components/app/manifests/cr.yaml": (
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: after-chart}\ndata: {a: b}\n"
                "---\n"
                "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata: {name: policy}\n"
                "spec: {driver: {enabled: false}}\n"
            ),
        }
    )
    catalog = load_catalog([root])
    recipe = resolve(catalog, RecipeCriteria(service="kind"))
    run = run_platform(catalog, recipe, deployment_checks=False)
    release = run.one(RELEASE, "platform-app")
    configmap = run.one(CONFIGMAP)
    policy = run.one("kubernetes:nvidia.com/v1:ClusterPolicy")
    assert release.inputs["chart"] == "app"  # registry "example/app", alias stripped
    assert configmap.inputs["metadata"]["namespace"] == "ns-app"
    assert "namespace" not in policy.inputs["metadata"]  # cluster-scoped
    for obj in (configmap, policy):
        assert short(obj.dependencies) == {"platform-app"}
