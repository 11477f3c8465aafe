"""The deployer follows AICR's recipe: pre-manifests before the chart, health checks carried
with each component, components the recipe disables listed as disabled and not deployed."""

from __future__ import annotations

from pathlib import Path

from components.platform.release_plan import plan_platform
from recipes import RecipeCriteria, load_catalog, resolve
from tests.components.platform.platform_helpers import (
    COMPONENT,
    CONFIGMAP,
    NAMESPACE,
    RELEASE,
    releases,
    run_platform,
    short,
)
from tests.recipes.recipe_helpers import WriteCatalog, overlay, registry

ASSERTS = (
    "apiVersion: chainsaw.kyverno.io/v1alpha1\nkind: Test\nmetadata: {name: app}\n"
    "spec: {steps: []}\n"
)


def _catalog(write_catalog: WriteCatalog) -> Path:
    reg = registry("app", "off")
    reg["components"][0]["healthCheck"] = {"assertFile": "checks/app/health-check.yaml"}  # type: ignore[index]
    return write_catalog(
        {
            "registry.yaml": reg,
            "checks/app/health-check.yaml": ASSERTS,
            "components/app/manifests/ns.yaml": (
                "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns-app\n  labels:\n"
                "    pod-security.kubernetes.io/enforce: privileged\n"
            ),
            "components/app/manifests/pre.yaml": (
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: before-chart}\ndata: {a: b}\n"
            ),
            "overlays/app.yaml": overlay(
                "app",
                criteria={"service": "kind"},
                componentRefs=[
                    {
                        "name": "app",
                        "preManifestFiles": [
                            "components/app/manifests/ns.yaml",
                            "components/app/manifests/pre.yaml",
                        ],
                        "dependencyRefs": ["off"],
                    },
                    {"name": "off", "overrides": {"enabled": False}},
                ],
            ),
        }
    )


def test_pre_manifests_come_before_the_release(write_catalog: WriteCatalog) -> None:
    catalog = load_catalog([_catalog(write_catalog)])
    recipe = resolve(catalog, RecipeCriteria(service="kind"))
    run = run_platform(catalog, recipe, deployment_checks=False)
    release = run.one(RELEASE, "platform-app")
    configmap = run.one(CONFIGMAP)
    namespace = run.one(NAMESPACE)
    assert configmap.name == "platform-app-pre-configmap-before-chart"
    assert configmap.inputs["metadata"]["namespace"] == "ns-app"
    assert namespace.name == "platform-app-pre-namespace-ns-app"  # the pre-manifest's own
    labels = namespace.inputs["metadata"]["labels"]
    assert labels == {"pod-security.kubernetes.io/enforce": "privileged"}
    assert {configmap.name, namespace.name} <= short(release.dependencies)


def test_health_checks_travel_with_the_component(write_catalog: WriteCatalog) -> None:
    catalog = load_catalog([_catalog(write_catalog)])
    recipe = resolve(catalog, RecipeCriteria(service="kind"))
    plan = plan_platform(catalog, recipe)
    assert plan.by_name["app"].health_check_asserts == ASSERTS
    run = run_platform(catalog, recipe, deployment_checks=False)
    assert run.one(COMPONENT).outputs["healthChecks"] == {"app": ASSERTS}


def test_a_component_the_recipe_disables_is_listed_and_not_deployed(
    write_catalog: WriteCatalog,
) -> None:
    catalog = load_catalog([_catalog(write_catalog)])
    recipe = resolve(catalog, RecipeCriteria(service="kind"))
    assert recipe.metadata.disabledComponents == ["off"]
    plan = plan_platform(catalog, recipe)
    assert [c.name for c in plan.components] == ["app"]
    assert plan.disabled == ("off",)
    assert plan.by_name["app"].depends_on == ()  # the disabled dependency counts as satisfied
    run = run_platform(catalog, recipe, deployment_checks=False)
    assert [r.inputs["name"] for r in releases(run)] == ["app"]
    assert run.one(COMPONENT).outputs["disabled"] == ["off"]


def test_the_project_recipe_exports_its_health_checks(write_catalog: WriteCatalog) -> None:
    """Its registry gives each component a health check (recipes/catalog/registry.yaml)."""
    from tests.components.platform.platform_helpers import project_catalog, project_recipe

    catalog = project_catalog()
    run = run_platform(catalog, project_recipe(catalog), deployment_checks=False)
    health = run.one(COMPONENT).outputs["healthChecks"]
    assert set(health) == {"gpu-operator", "gpu-time-slicing", "kubeflow-trainer"}
    assert health["gpu-operator"] == catalog.read_text("components/gpu-operator/health-check.yaml")
