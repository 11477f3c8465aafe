"""`gpu_sharing`: whether the deployed device plugin shares each GPU, read from the recipe as
deployed (the operator's values, the ConfigMap they name, its config)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from components.platform.gpu_sharing import GpuSharing, gpu_sharing
from components.platform.overrides import PlatformOverrides
from components.platform.release_plan import ComponentPlan, PlatformPlan, plan_platform
from recipes import Catalog, RecipeResult

OFF = ["gpu-time-slicing:enabled=false", "gpu-operator:devicePlugin.config.name="]


def planned(catalog: Catalog, recipe: RecipeResult, *items: str) -> PlatformPlan:
    return plan_platform(catalog, recipe, PlatformOverrides.parse(list(items)))


def components_with(plan: PlatformPlan, config: dict[str, Any]) -> list[ComponentPlan]:
    """The plan's components, the GPU operator's `devicePlugin.config` replaced by `config`."""
    return [
        replace(c, values={**c.values, "devicePlugin": {"config": config}})
        if c.name == "gpu-operator"
        else c
        for c in plan.components
    ]


def sharing_config(strategy: str = "timeSlicing", replicas: int = 4) -> str:
    return yaml.safe_dump(
        {
            "version": "v1",
            "sharing": {
                strategy: {"resources": [{"name": "nvidia.com/gpu", "replicas": replicas}]}
            },
        }
    )


def test_the_projects_recipe_time_slices_each_gpu_two_ways(
    catalog: Catalog, recipe: RecipeResult, upstream: Path
) -> None:
    sharing = gpu_sharing(planned(catalog, recipe).components)
    assert sharing == GpuSharing(
        strategy="timeSlicing",
        replicas=2,
        component="gpu-operator",
        path="devicePlugin.config",
        config_map="gpu-time-slicing-config",
        shipped_by="gpu-time-slicing",
    )
    assert sharing.switch_off() == OFF
    # The 2 is Trainer's own ConfigMap's (the project's copy is unmodified).
    upstream_doc = yaml.safe_load((upstream / "kubeflow-trainer/gpu-time-slicing.yml").read_text())
    resources = yaml.safe_load(upstream_doc["data"]["any"])["sharing"]["timeSlicing"]["resources"]
    assert resources == [{"name": "nvidia.com/gpu", "replicas": sharing.replicas}]


def test_the_two_switches_turn_it_off(catalog: Catalog, recipe: RecipeResult) -> None:
    assert gpu_sharing(planned(catalog, recipe, *OFF).components) is None


def test_a_config_map_the_values_do_not_name_shares_nothing(
    catalog: Catalog, recipe: RecipeResult
) -> None:
    components = components_with(planned(catalog, recipe), {"name": "another-config"})
    assert gpu_sharing(components) is None


def test_an_inline_config_the_chart_creates_is_read(catalog: Catalog, recipe: RecipeResult) -> None:
    inline = {"name": "dp", "create": True, "data": {"any": sharing_config("mps", 3)}}
    sharing = gpu_sharing(components_with(planned(catalog, recipe, *OFF), inline))
    assert sharing is not None
    assert (sharing.strategy, sharing.replicas, sharing.shipped_by) == ("mps", 3, "gpu-operator")
    assert sharing.switch_off() == ["gpu-operator:devicePlugin.config.name="]


def test_the_default_entry_decides_and_one_replica_is_no_sharing(
    catalog: Catalog, recipe: RecipeResult
) -> None:
    data = {"plain": sharing_config(replicas=1), "shared": sharing_config(replicas=4)}
    base = planned(catalog, recipe, *OFF)
    inline = {"name": "dp", "create": True, "data": data}
    assert gpu_sharing(components_with(base, {**inline, "default": "plain"})) is None
    chosen = gpu_sharing(components_with(base, {**inline, "default": "shared"}))
    assert chosen is not None and chosen.replicas == 4
    anyone = gpu_sharing(components_with(base, inline))  # no default: any entry may be used
    assert anyone is not None and anyone.replicas == 4


def test_a_config_that_is_not_yaml_shares_nothing(catalog: Catalog, recipe: RecipeResult) -> None:
    inline = {"name": "dp", "create": True, "data": {"any": "sharing: [unclosed"}}
    assert gpu_sharing(components_with(planned(catalog, recipe, *OFF), inline)) is None
