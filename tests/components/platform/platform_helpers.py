"""Helpers for platform tests: the project recipe, and RecipeReleases run under the mocks."""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from components.platform.recipe_releases import RecipeReleases, RecipeReleasesArgs
from components.platform.releases.overrides import PlatformOverrides
from recipes import PROJECT_CATALOG, Catalog, RecipeCriteria, RecipeResult, load_catalog, resolve
from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import ProgramRun, Registration

KUBECONFIG = """\
apiVersion: v1
kind: Config
clusters: [{name: kind, cluster: {server: "https://127.0.0.1:6443"}}]
contexts: [{name: kind, context: {cluster: kind, user: ci}}]
current-context: kind
users: [{name: ci, user: {token: not-a-real-token}}]
"""
KUBEFLOW = RecipeCriteria(service="kind", accelerator="a10", intent="training", platform="kubeflow")
RELEASE = "kubernetes:helm.sh/v3:Release"
NAMESPACE = "kubernetes:core/v1:Namespace"
CONFIGMAP = "kubernetes:core/v1:ConfigMap"
JOB = "kubernetes:batch/v1:Job"
RUNTIME_PATCH = "kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntimePatch"
COMPONENT = "gpu-ci:platform:RecipeReleases"
CHECKS = "gpu-ci:platform:DeploymentChecks"


def project_catalog() -> Catalog:
    return load_catalog([PROJECT_CATALOG])


def project_recipe(catalog: Catalog, criteria: RecipeCriteria = KUBEFLOW) -> RecipeResult:
    return resolve(catalog, criteria)


def run_platform(
    catalog: Catalog,
    recipe: RecipeResult,
    *,
    overrides: PlatformOverrides | None = None,
    preview: bool = False,
    **args: Any,
) -> ProgramRun:
    """A tiny program: a Provider from a dummy kubeconfig and one RecipeReleases."""

    def program() -> None:
        provider = k8s.Provider("kind", kubeconfig=KUBECONFIG, enable_server_side_apply=True)
        platform = RecipeReleases(
            "platform",
            RecipeReleasesArgs(
                catalog=catalog,
                recipe=recipe,
                overrides=overrides or PlatformOverrides(),
                **args,
            ),
            pulumi.ResourceOptions(provider=provider),
        )
        pulumi.export("releases", platform.release_status)
        pulumi.export("checks", platform.check_results)

    return run_program(program, project="gpu-ci", stack="platform-test", config={}, preview=preview)


def short(urns: list[str]) -> set[str]:
    """Resource names of `urns`."""
    return {u.rsplit("::", 1)[-1] for u in urns}


def releases(run: ProgramRun) -> list[Registration]:
    return run.by_type(RELEASE)
