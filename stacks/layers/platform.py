"""Graph assembly of the platform layer: a resolved recipe deployed onto the cluster.

`prepare_platform` resolves the recipe and checks the overrides before any resource
registers. Constraints are evaluated against what the stack knows: with the cluster in
this stack, at once (a failure stops the preview); with the cluster read from another
stack, when its `cluster` export resolves. Unknown facts are logged as unchecked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pulumi
import pulumi_kubernetes as k8s
from pydantic import ValidationError

from components.base import InputError
from components.oci.shapes import GPU_SHAPES
from components.oci.vm_config import VmCapacityConfig
from components.platform.overrides import PlatformError, PlatformOverrides
from components.platform.platform_config import PlatformConfig
from components.platform.recipe_releases import RecipeReleases, RecipeReleasesArgs
from core.errors import GpuCiError
from recipes import PROJECT_CATALOG, Catalog, RecipeCriteria, RecipeResult, load_catalog, resolve
from recipes.constraints import ConstraintReport, evaluate
from recipes.resolver import check_query, matching_overlays, no_match_message
from stacks.compose import ClusterReferences
from stacks.config import StackConfig
from stacks.config.problems import ParamCheck, Problem
from stacks.config.stack import NAMESPACE, PLATFORM_CLUSTER_STACK
from stacks.contracts import CLUSTER, ContractError
from stacks.outputs import ClusterOutputs, PlatformOutputs

if TYPE_CHECKING:  # the cluster layer (and pulumi-command) loads only when a stack has one
    from stacks.layers.cluster import ClusterLayer

PROJECT_ROOT = Path(__file__).resolve().parents[2]
TRAINER = "kubeflow-trainer"


@dataclass(frozen=True)
class PreparedPlatform:
    catalog: Catalog
    recipe: RecipeResult
    overrides: PlatformOverrides


PLATFORM = f"{NAMESPACE}:platform"


def prepare_platform(cfg: StackConfig, check: ParamCheck) -> PreparedPlatform | None:
    """Load the catalogs, resolve the recipe and check the overrides: no resources yet.

    What they refuse goes to `check`, at the config keys to fix, with every other problem
    `prepare` finds; None then."""
    platform = cfg.platform
    assert platform is not None and platform.accelerator is not None  # set by validation
    prepared, problems = resolve_recipe(platform, platform.accelerator)
    check.problems += problems
    return prepared


def recipe_problems(values: Mapping[str, Any]) -> list[Problem]:
    """What the recipe refuses, from a config that is invalid elsewhere: as much as can be
    known, so those problems come in the same message as the config's.

    Nothing when `gpu-ci:platform` itself is invalid (its own problems say so); without
    the accelerator (given, or the GPU model of a valid VM shape) the criteria are still
    checked one by one."""
    try:
        platform = PlatformConfig.model_validate(values["platform"])
    except (KeyError, ValidationError):
        return []
    accelerator = platform.accelerator
    if accelerator is None and values.get("capacity") == "vm":
        try:
            vm = VmCapacityConfig.model_validate(values.get("vm") or {})
        except ValidationError:
            vm = None
        shape = GPU_SHAPES.get(vm.shape) if vm is not None else None
        accelerator = shape.gpuModel.lower() if shape is not None else None
    return resolve_recipe(platform, accelerator)[1]


def resolve_recipe(
    platform: PlatformConfig, accelerator: str | None
) -> tuple[PreparedPlatform | None, list[Problem]]:
    """The recipe `platform` asks for, or every problem with it at its full config key.

    `accelerator` None: unknown (the config is invalid): the other criteria are checked,
    but no recipe is resolved."""
    catalog = _catalog(platform)
    if not isinstance(catalog, Catalog):
        return None, catalog
    criteria = {
        "service": platform.service,
        "accelerator": accelerator or "",
        "os": platform.os or "",
        "intent": platform.intent,
        "platform": platform.platform,
    }
    problems = []
    for name, value in criteria.items():  # each on its own: every unsupported one is named
        try:
            check_query(catalog, RecipeCriteria.model_validate({name: value}).normalized())
        except GpuCiError as err:
            message = str(err).removeprefix(f"--{name} {value}: ")
            problems.append(Problem(f"{PLATFORM}.{name}", f"{message} [given: {value!r}]"))
    if problems or accelerator is None:
        return None, problems
    recipe = _recipe(platform, catalog, RecipeCriteria.model_validate(criteria))
    if not isinstance(recipe, RecipeResult):
        return None, recipe
    overrides = platform.overrides
    for component, override in overrides.components.items():  # each: every one is named
        try:
            PlatformOverrides(components={component: override}).check(recipe)
        except PlatformError as err:
            problems += [
                Problem(f"{PLATFORM}.set[{index}]", str(err))
                for index, item in enumerate(platform.set)
                if item.partition(":")[0].strip() == component
            ]
    if problems:
        return None, problems
    return PreparedPlatform(catalog, recipe, overrides), []


def _in_catalogs(platform: PlatformConfig) -> str:
    """Where a problem inside the catalogs is reported: at `catalogs` when the stack adds
    catalogs (the likely cause), else at `gpu-ci:platform`."""
    return f"{PLATFORM}.catalogs" if platform.catalogs else PLATFORM


def _catalog(platform: PlatformConfig) -> Catalog | list[Problem]:
    problems = [
        Problem(
            f"{PLATFORM}.catalogs[{index}]",
            "not a directory"
            + ("" if Path(path).is_absolute() else f" (in the project, {PROJECT_ROOT})")
            + f" [given: {path!r}]",
        )
        for index, path in enumerate(platform.catalogs)
        if not (PROJECT_ROOT / path).is_dir()
    ]
    if problems:
        return problems
    try:
        return load_catalog([PROJECT_ROOT / d for d in platform.catalogs] + [PROJECT_CATALOG])
    except GpuCiError as err:
        return [Problem(_in_catalogs(platform), str(err))]


def _recipe(
    platform: PlatformConfig, catalog: Catalog, criteria: RecipeCriteria
) -> RecipeResult | list[Problem]:
    query = criteria.normalized()
    if not matching_overlays(catalog, query):  # each criterion is known; not all together
        return [Problem(PLATFORM, no_match_message(catalog, query))]
    try:
        return resolve(catalog, criteria)
    except GpuCiError as err:
        return [Problem(_in_catalogs(platform), str(err))]


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


def build_platform_layer(
    cfg: StackConfig,
    prepared: PreparedPlatform,
    cluster: ClusterLayer | None,
    references: ClusterReferences,
) -> Any:
    platform = cfg.platform
    assert platform is not None
    recipe = prepared.recipe
    own = deployed_facts(recipe, prepared.overrides)
    if cluster is not None:
        provider: k8s.Provider = cluster.cluster.provider
        report = check_constraints(recipe, {**cluster.contract.facts, **own})
        constraints: Any = _summary(report)
    else:
        assert platform.clusterStack is not None  # guaranteed by validation
        stack = platform.clusterStack
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
            provider=provider,
            catalog=prepared.catalog,
            recipe=recipe,
            overrides=prepared.overrides,
            runtime_class_patch=_runtime_class_patch(cfg, recipe),
            deployment_checks=platform.deploymentChecks,
        ),
    )
    if cluster is not None:
        cluster.cluster.await_gpus(after=[releases])
    return pulumi.Output.all(releases.release_status, releases.check_results, constraints).apply(
        lambda values: PlatformOutputs(
            criteria=recipe.criteria.model_dump(mode="json"),
            appliedOverlays=list(recipe.metadata.appliedOverlays),
            deploymentOrder=[c.name for c in releases.plan.components],
            releases=values[0],
            checks=values[1],
            constraints=values[2],
        ).model_dump()
    )


def _cluster_contract(raw: Any, stack: str) -> ClusterOutputs:
    """The referenced stack's `cluster`, read as any consumer reads it (versions, nulls)."""
    try:
        return CLUSTER.parse(stack, {CLUSTER.export: raw})
    except ContractError as err:
        raise InputError(f"{PLATFORM_CLUSTER_STACK}: {err}") from None


def _runtime_class_patch(cfg: StackConfig, recipe: RecipeResult) -> bool:
    """kind nodes run GPU pods only under RuntimeClass nvidia (nvkind creates it)."""
    platform = cfg.platform
    assert platform is not None
    if recipe.component(TRAINER) is None:
        return False
    if platform.runtimeClassPatch is not None:
        return platform.runtimeClassPatch
    return platform.service == "kind"
