"""Which recipe a platform resolves, what it deploys and where its problems are reported,
without a program run (mutation-testing survivors of stacks/config/recipe.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from components.host.config.compat import Finding, Predicate, Report, Rule
from components.platform.platform_config import PlatformConfig
from stacks.config import StackConfig, load_config, raw_from_flat
from stacks.config.param_problems import ParamCheck
from stacks.config.problems import Problem
from stacks.config.recipe import (
    DEVICE_PLUGIN,
    GPU_OPERATOR,
    PreparedPlatform,
    compatibility,
    compatibility_problems,
    deployed_version,
    prepare_platform,
    resolve_recipe,
)
from stacks.config.recipe import _in_catalogs as in_catalogs
from stacks.offline.plan import REPO
from stacks.offline.stack_file.read import read_stack_file

PLUGIN_ALONE = Rule(
    id="plugin-alone",
    when=Predicate(device_plugin_only=True),
    reason="the device plugin without the operator.",
    fix="deploy the operator.",
)
NO_OVERLAY = "no overlay in the catalog supports it; valid values:"


def dev() -> StackConfig:
    file = read_stack_file(REPO, "dev")
    return load_config(raw_from_flat(file.config, set(file.secret_keys)), "dev")


def prepared(*set_: str, accelerator: str = "a10") -> PreparedPlatform:
    platform, problems = resolve_recipe(PlatformConfig(set=list(set_)), accelerator)
    assert problems == [] and platform is not None
    return platform


def renamed(platform: PreparedPlatform, names: dict[str, str]) -> PreparedPlatform:
    """`platform` with its recipe's components renamed (a recipe of other components)."""
    refs = [
        ref.model_copy(update={"name": names.get(ref.name, ref.name)})
        for ref in platform.recipe.componentRefs
    ]
    recipe = platform.recipe.model_copy(update={"componentRefs": refs})
    return PreparedPlatform(platform.catalog, recipe, platform.overrides)


def test_an_unsupported_criterion_names_the_values_the_catalog_pins() -> None:
    platform, problems = resolve_recipe(PlatformConfig(service="eks"), "a10")
    assert platform is None
    assert [str(p) for p in problems] == [
        f"gpu-ci:platform.service: {NO_OVERLAY} kind, oke (or any) [given: 'eks']"
    ]


def test_a_criterion_no_overlay_pins_accepts_any_value() -> None:
    assert resolve_recipe(PlatformConfig(os="ubuntu"), "a10")[1] == []


def test_an_overlay_that_accepts_any_value_leaves_the_criterion_open(tmp_path: Path) -> None:
    assert [str(p) for p in resolve_recipe(PlatformConfig(), "h100")[1]] == [
        f"gpu-ci:platform.accelerator: {NO_OVERLAY} a10 (or any) [given: 'h100']"
    ]
    (tmp_path / "overlays").mkdir()
    (tmp_path / "registry.yaml").write_text(
        "apiVersion: aicr.run/v1alpha2\nkind: ComponentRegistry\ncomponents: []\n"
    )
    (tmp_path / "overlays" / "kind-any.yaml").write_text(
        "kind: RecipeMetadata\napiVersion: aicr.run/v1alpha2\nmetadata:\n  name: kind-any\n"
        "spec:\n  criteria:\n    service: kind\n    accelerator: any\n"
    )
    platform, problems = resolve_recipe(PlatformConfig(catalogs=[str(tmp_path)]), "h100")
    assert problems == [] and platform is not None


def test_a_broken_catalog_is_reported_at_the_catalogs_key(tmp_path: Path) -> None:
    platform, problems = resolve_recipe(PlatformConfig(catalogs=[str(tmp_path)]), "a10")
    assert platform is None
    assert [str(p) for p in problems] == [
        f"gpu-ci:platform.catalogs: --data {tmp_path}: registry.yaml is required, as in aicr: "
        "every data directory has one (it is merged by component name with the directories "
        "before it)"
    ]
    assert in_catalogs(PlatformConfig()) == "gpu-ci:platform"  # then the project's own catalog


def test_prepare_adds_the_recipes_problems_to_those_found_before() -> None:
    cfg = dev()
    assert cfg.platform is not None
    earlier = Problem("gpu-ci:runner.group", "refused")
    check = ParamCheck()
    check.problems.append(earlier)
    assert isinstance(prepare_platform(cfg, check), PreparedPlatform)
    assert check.problems == [earlier]
    eks = cfg.model_copy(update={"platform": cfg.platform.model_copy(update={"service": "eks"})})
    assert prepare_platform(eks, check) is None
    assert [str(p) for p in check.problems] == [
        "gpu-ci:runner.group: refused",
        f"gpu-ci:platform.service: {NO_OVERLAY} kind, oke (or any) [given: 'eks']",
    ]


def test_prepare_needs_the_accelerator_validation_sets() -> None:
    cfg = dev()
    assert cfg.platform is not None
    unset = cfg.platform.model_copy(update={"accelerator": None})
    with pytest.raises(AssertionError):
        prepare_platform(cfg.model_copy(update={"platform": unset}), ParamCheck())


def test_the_deployed_version_follows_the_overrides() -> None:
    assert deployed_version(prepared(), GPU_OPERATOR) == "v26.7.0"
    assert deployed_version(prepared("gpu-operator:driver.enabled=false"), GPU_OPERATOR) == (
        "v26.7.0"
    )
    assert deployed_version(prepared("gpu-operator:enabled=false"), GPU_OPERATOR) is None
    assert deployed_version(prepared(), DEVICE_PLUGIN) is None  # not in the recipe


def _errors(cfg: StackConfig, platform: PreparedPlatform) -> list[str]:
    report = compatibility(cfg, platform, rules=(PLUGIN_ALONE,))
    assert report is not None
    return [f.rule for f in report.errors]


def test_the_device_plugin_alone_is_what_the_rules_see() -> None:
    cfg = dev()
    plugin = renamed(prepared(), {GPU_OPERATOR: DEVICE_PLUGIN})
    assert deployed_version(plugin, DEVICE_PLUGIN) == "v26.7.0"
    assert _errors(cfg, plugin) == ["plugin-alone"]
    assert _errors(cfg, prepared()) == []  # the operator alone
    assert _errors(cfg, prepared("gpu-operator:enabled=false")) == []  # neither
    both = renamed(prepared(), {"kubeflow-trainer": DEVICE_PLUGIN})
    assert deployed_version(both, DEVICE_PLUGIN) is not None
    assert _errors(cfg, both) == []


def test_a_stack_with_the_host_but_no_cluster_checks_nothing() -> None:
    cfg = dev()
    assert compatibility(cfg.model_copy(update={"cluster": None}), prepared()) is None


def test_every_known_bad_finding_is_in_the_one_problem() -> None:
    report = Report(
        errors=(
            Finding(rule="one", reason="first.", fix="a."),
            Finding(rule="two", reason="second.", fix="b."),
        )
    )
    assert [str(p) for p in compatibility_problems(report)] == [
        "gpu-ci:host.versions: known-bad combination with the recipe's GPU software: "
        "[one] first. Fix: a. [two] second. Fix: b."
    ]
    assert compatibility_problems(Report()) == []
    assert compatibility_problems(None) == []
