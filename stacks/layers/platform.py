"""Graph assembly of the platform layer: a resolved recipe deployed onto the cluster.

`prepare_platform` resolves the recipe and checks the overrides before any resource
registers. Constraints are evaluated against what the stack knows: with the cluster in
this stack, at once (a failure stops the preview); with the cluster read from another
stack, when its `cluster` export resolves. Unknown facts are logged as unchecked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pulumi

from components.base import InputError
from components.platform.platform_config import PlatformConfig
from components.platform.recipe_releases import RecipeReleases, RecipeReleasesArgs
from components.platform.releases.overrides import PlatformOverrides
from recipes import RecipeResult
from recipes.resolution.constraints import ConstraintReport, evaluate
from stacks.config.recipe import PreparedPlatform
from stacks.config.stack import PLATFORM_CLUSTER_STACK
from stacks.context import ClusterReferenceSource
from stacks.contracts.contract import CLUSTER, ContractError
from stacks.outputs import ClusterOutputs, Export, PlatformOutputs

if TYPE_CHECKING:  # the cluster layer (and pulumi-command) loads only when a stack has one
    from stacks.layers.capacity_arc import ArcCapacity
    from stacks.layers.cluster import ClusterLayer

TRAINER = "kubeflow-trainer"


def deployed_facts(recipe: RecipeResult, overrides: PlatformOverrides) -> dict[str, str]:
    """Facts about what this layer deploys (`Deployment.<component>.version`)."""
    facts = {}
    for component in recipe.componentRefs:
        override = overrides.components.get(component.name)
        if component.version and not (override is not None and override.enabled is False):
            facts[f"Deployment.{component.name}.version"] = component.version
    return facts


def check_constraints(recipe: RecipeResult, facts: dict[str, str]) -> ConstraintReport:
    """Fail on a constraint the facts break; log those no fact can check."""
    report = evaluate(recipe, facts)
    if report.failed:
        lines = [
            f"  - {o.name} {o.expected}: {o.reason}"
            + (f"; fix: {o.remediation}" if o.remediation else "")
            for o in report.failed
        ]
        raise InputError(
            f"gpu-ci:platform: recipe {', '.join(recipe.metadata.appliedOverlays)} does not "
            "fit this stack:\n" + "\n".join(lines)
        )
    if report.unchecked:
        names = ", ".join(sorted({f"{o.name} {o.expected}" for o in report.unchecked}))
        pulumi.log.warn(f"gpu-ci:platform: unchecked recipe constraints (fact unknown): {names}")
    return report


def _summary(report: ConstraintReport) -> dict[str, list[str]]:
    return {
        "passed": sorted({o.name for o in report.passed}),
        "unchecked": sorted({o.name for o in report.unchecked}),
    }


@dataclass(frozen=True)
class PlatformLayer:
    exports: Export
    releases: RecipeReleases


@dataclass(frozen=True)
class PreparedPlatformLayer:
    """The platform's config, and the recipe it resolved to before anything registered."""

    config: PlatformConfig
    resolved: PreparedPlatform


def build_platform_layer(
    prepared: PreparedPlatformLayer,
    cluster: ClusterLayer | None,
    references: ClusterReferenceSource,
    *,
    arc: ArcCapacity | None = None,
    after: list[pulumi.Resource] | None = None,
    overrides: PlatformOverrides | None = None,
) -> PlatformLayer:
    """The recipe on this stack's nvkind cluster, ARC's cluster, or another stack's;
    after what `after` names (the monitoring whose CRDs the recipe's monitors need), with
    `overrides` (default: the config's) applied."""
    platform, recipe = prepared.config, prepared.resolved.recipe
    changes = overrides if overrides is not None else prepared.resolved.overrides
    own = deployed_facts(recipe, changes)
    waits: list[pulumi.Resource] = list(after or [])
    if cluster is not None:
        provider: pulumi.ProviderResource = cluster.cluster.provider
        report = check_constraints(recipe, {**cluster.contract.facts, **own})
        constraints: Any = _summary(report)
    elif arc is not None and platform.clusterStack is None:  # onto ARC's
        provider = arc.provider
        waits += arc.after  # the node pools the operator and its daemonsets run on
        constraints = _summary(check_constraints(recipe, {**arc.facts, **own}))
    else:  # the stack `clusterStack` names: validation allows no fourth place
        stack = references.stack(PLATFORM_CLUSTER_STACK)
        reference = references.get(PLATFORM_CLUSTER_STACK)  # shared with ARC's, if one stack
        provider = reference.provider
        constraints = reference.contract.apply(
            lambda raw: _summary(
                check_constraints(recipe, {**_cluster_contract(raw, stack).facts, **own})
            )
        )
    releases = RecipeReleases(
        "platform",
        RecipeReleasesArgs(
            catalog=prepared.resolved.catalog,
            recipe=recipe,
            overrides=changes,
            runtime_class_patch=_runtime_class_patch(platform, recipe),
            deployment_checks=platform.deploymentChecks,
            gpus=cluster.gpu_checks if cluster is not None else None,
        ),
        pulumi.ResourceOptions(provider=provider, depends_on=waits or None),
    )
    if cluster is not None:
        cluster.await_ready(after=[releases])  # GPUs are allocatable once these run
    exports = pulumi.Output.all(releases.release_status, releases.check_results, constraints).apply(
        lambda values: PlatformOutputs(
            criteria=recipe.criteria.model_dump(mode="json"),
            appliedOverlays=list(recipe.metadata.appliedOverlays),
            deploymentOrder=[c.name for c in releases.plan.components],
            releases=values[0],
            checks=values[1],
            constraints=values[2],
        ).model_dump()
    )
    return PlatformLayer(exports, releases)


def _cluster_contract(raw: Any, stack: str) -> ClusterOutputs:
    """The referenced stack's `cluster`, read as any consumer reads it (versions, nulls)."""
    try:
        return CLUSTER.parse(stack, {CLUSTER.export: raw})
    except ContractError as err:
        raise InputError(f"{PLATFORM_CLUSTER_STACK}: {err}") from None


def _runtime_class_patch(platform: PlatformConfig, recipe: RecipeResult) -> bool:
    """kind nodes run GPU pods only under RuntimeClass nvidia (nvkind creates it)."""
    if recipe.component(TRAINER) is None:
        return False
    if platform.runtimeClassPatch is not None:
        return platform.runtimeClassPatch
    return platform.service == "kind"
