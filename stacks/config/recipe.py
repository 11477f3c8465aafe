"""The recipe a stack's `gpu-ci:platform` asks for, resolved while the config is checked.

`prepare_platform` (for a valid config) and `recipe_problems` (for one invalid elsewhere)
load the catalogs, resolve the recipe and check the overrides (their components, and each
`set` path against the pinned chart's values: `components/platform/chart_values/lookup.py`)
before any resource registers, so what the recipe refuses is reported at its full config
key with every other problem. Nothing here needs a provider SDK.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from components.host.config.compat import RULES, Report, Rule, check
from components.host.config.versions import combination
from components.oci.shapes import GPU_SHAPES
from components.oci.vm_config import VmCapacityConfig
from components.platform.chart_values.lookup import set_problems
from components.platform.checks.plan import check_problem
from components.platform.platform_config import PlatformConfig
from components.platform.release_plan import dangling_names, plan_platform
from components.platform.releases.gpu_sharing import gpu_sharing
from components.platform.releases.overrides import PlatformError, PlatformOverrides
from core.errors import GpuCiError
from recipes import PROJECT_CATALOG, Catalog, RecipeCriteria, RecipeResult, load_catalog, resolve
from recipes.resolution.resolver import check_query, matching_overlays, no_match_message
from stacks.config.param_problems import ParamCheck
from stacks.config.problems import Problem
from stacks.config.stack import NAMESPACE, StackConfig

PROJECT_ROOT = Path(__file__).resolve().parents[2]
"""This checkout: the project a run without a root directory (a test's mocks) reads."""


@dataclass(frozen=True)
class PreparedPlatform:
    catalog: Catalog
    recipe: RecipeResult
    overrides: PlatformOverrides


PLATFORM = f"{NAMESPACE}:platform"


def prepare_platform(
    cfg: StackConfig, check: ParamCheck, project_dir: Path = PROJECT_ROOT
) -> PreparedPlatform | None:
    """Load the catalogs, resolve the recipe and check the overrides: no resources yet.

    What they refuse goes to `check`, at the config keys to fix, with every other problem
    `prepare` finds; None then."""
    platform = cfg.platform
    assert platform is not None and platform.accelerator is not None  # set by validation
    prepared, problems = resolve_recipe(platform, platform.accelerator, project_dir)
    check.problems += problems + (sharing_problems(cfg, prepared) if prepared else [])
    return prepared


def sharing_problems(cfg: StackConfig, prepared: PreparedPlatform) -> list[Problem]:
    """A multi-GPU expectation (`cluster.expectGpus` of 2 or more) on a recipe whose device
    plugin shares GPUs (`components/platform/releases/gpu_sharing.py`): refused, with the
    switches."""
    expect = cfg.cluster.expectGpus if cfg.cluster is not None else None
    if expect is None or expect < 2:
        return []
    try:
        planned = plan_platform(prepared.catalog, prepared.recipe, prepared.overrides)
        sharing = gpu_sharing(planned.components)
    except PlatformError:
        return []  # what the platform plan refuses is reported when the layer plans it
    if sharing is None:
        return []
    switches = " and ".join(f"`{item}`" for item in sharing.switch_off())
    return [
        Problem(
            f"{NAMESPACE}:cluster.expectGpus",
            f"expects {expect} GPUs for multi-GPU jobs, but the recipe's {sharing.describe()}: "
            f"nvidia.com/gpu then counts {sharing.replicas} per GPU, a pod given {expect} may "
            "get one GPU twice, and NCCL refuses two ranks on one device; turn the sharing "
            f"off with gpu-ci:platform.set {switches}, or remove expectGpus [given: {expect}]",
        )
    ]


def recipe_problems(values: Mapping[str, Any], project_dir: Path = PROJECT_ROOT) -> list[Problem]:
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
    return resolve_recipe(platform, accelerator, project_dir)[1]


def resolve_recipe(
    platform: PlatformConfig, accelerator: str | None, project_dir: Path = PROJECT_ROOT
) -> tuple[PreparedPlatform | None, list[Problem]]:
    """The recipe `platform` asks for, or every problem with it at its full config key.

    Relative `catalogs` are folders of `project_dir`, the folder of Pulumi.yaml, as every
    other path a stack file names (`pulumi up` runs the program there).

    `accelerator` None: unknown (the config is invalid): the other criteria are checked,
    but no recipe is resolved."""
    catalog = _catalog(platform, project_dir)
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
        query = RecipeCriteria.model_validate({name: value}).normalized()
        try:
            check_query(catalog, query)
        except GpuCiError as err:
            message = str(err).removeprefix(f"--{name} {value}: ")
            problems.append(Problem(f"{PLATFORM}.{name}", f"{message} [given: {value!r}]"))
            continue
        wanted = query.value(name)
        pinned = catalog.vocabulary.get(name, set())
        if wanted != "any" and wanted not in pinned and not _left_open(catalog, name):
            problems.append(Problem(f"{PLATFORM}.{name}", _unsupported(pinned, value)))
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
    named = {p.key for p in problems}
    problems += [  # a values path the pinned chart does not know (one problem per entry)
        Problem(f"{PLATFORM}.set[{index}]", message)
        for index, message in set_problems(platform.set, recipe)
        if f"{PLATFORM}.set[{index}]" not in named
    ]
    if problems:
        return None, problems
    for dangling in dangling_names(catalog, recipe, overrides):  # at the switch that made it
        switches = [
            f"{PLATFORM}.set[{index}]"
            for index, item in enumerate(platform.set)
            if item.partition(":")[0].strip() == dangling.disabled
            and item.partition("=")[0].strip().endswith(":enabled")
        ]
        problems += [Problem(key, dangling.message()) for key in switches or [PLATFORM]]
    if problem := check_problem(catalog, recipe, overrides):  # e.g. a health check's schema
        problems.append(Problem(_in_catalogs(platform), problem))
    if problems:
        return None, problems
    return PreparedPlatform(catalog, recipe, overrides), []


def _left_open(catalog: Catalog, name: str) -> bool:
    """Whether some overlay accepts any value of criterion `name` (it does not pin it)."""
    return any(
        o.doc.spec.criteria.value(name).lower() in ("", "any")
        for o in catalog.overlays.values()
        if o.doc.spec.criteria is not None
    )


def _unsupported(pinned: set[str], value: str) -> str:
    """A value AICR knows but no overlay of these catalogs has (`pinned`: the values they
    pin, `Catalog.vocabulary`): AICR would resolve its bare base recipe, which a stack never
    means to deploy."""
    return (
        f"no overlay in the catalog supports it; valid values: {', '.join(sorted(pinned))} "
        f"(or any) [given: {value!r}]"
    )


def _in_catalogs(platform: PlatformConfig) -> str:
    """Where a problem inside the catalogs is reported: at `catalogs` when the stack adds
    catalogs (the likely cause), else at `gpu-ci:platform`."""
    return f"{PLATFORM}.catalogs" if platform.catalogs else PLATFORM


def _catalog(platform: PlatformConfig, project_dir: Path) -> Catalog | list[Problem]:
    problems = [
        Problem(
            f"{PLATFORM}.catalogs[{index}]",
            "not a directory"
            + ("" if Path(path).is_absolute() else f" (in the project, {project_dir})")
            + f" [given: {path!r}]",
        )
        for index, path in enumerate(platform.catalogs)
        if not (project_dir / path).is_dir()
    ]
    if problems:
        return problems
    try:
        return load_catalog([project_dir / d for d in platform.catalogs] + [PROJECT_CATALOG])
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


GPU_OPERATOR = "gpu-operator"
DEVICE_PLUGIN = "nvidia-device-plugin"


def deployed_version(prepared: PreparedPlatform, name: str) -> str | None:
    """The version of component `name` the recipe deploys, or None when it deploys none."""
    component = prepared.recipe.component(name)
    override = prepared.overrides.components.get(name)
    if component is None or (override is not None and override.enabled is False):
        return None
    return component.version or None


def compatibility(
    cfg: StackConfig, prepared: PreparedPlatform, rules: tuple[Rule, ...] = RULES
) -> Report | None:
    """The host and the GPU software the recipe puts on its cluster, checked together by
    the compatibility rules (`components/host/config/compat.py`); None unless this stack has the
    host, the cluster and the platform (a platform on another stack's cluster cannot know
    that host)."""
    host = cfg.host
    if host is None or cfg.cluster is None:
        return None
    operator = deployed_version(prepared, GPU_OPERATOR)
    plugin_alone = operator is None and deployed_version(prepared, DEVICE_PLUGIN) is not None
    return check(
        combination(
            host.versions,
            cdi=host.cdi,
            gpu_operator_version=operator,
            device_plugin_only=plugin_alone,
        ),
        rules,
    )


def compatibility_problems(report: Report | None) -> list[Problem]:
    """A known-bad host x recipe combination, at the host's versions key."""
    if report is None or report.ok:
        return []
    return [
        Problem(
            f"{NAMESPACE}:host.versions",
            "known-bad combination with the recipe's GPU software: "
            + " ".join(str(finding) for finding in report.errors),
        )
    ]
