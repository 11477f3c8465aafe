"""`gpu_sharing`: whether the deployed device plugin shares each GPU, read from the recipe as
deployed (the operator's values, the ConfigMap they name, its config)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from components.platform.release_plan import PlatformPlan, plan_platform
from components.platform.releases.component_plan import ComponentPlan
from components.platform.releases.gpu_sharing import GpuSharing, _replicas, gpu_sharing
from components.platform.releases.overrides import PlatformOverrides
from recipes import Catalog, RecipeResult

OFF = ["gpu-time-slicing:enabled=false", "gpu-operator:devicePlugin.config.name="]
GPU4 = {"name": "nvidia.com/gpu", "replicas": 4}


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


def config_text(sharing: dict[str, Any], **top: Any) -> str:
    return yaml.safe_dump({"version": "v1", **top, "sharing": sharing})


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        # struct fields match case-insensitively (encoding/json via sigs.k8s.io/yaml)
        (yaml.safe_dump({"Sharing": {"TimeSlicing": {"resources": [GPU4]}}}), ("timeSlicing", 4)),
        (yaml.safe_dump({"SHARING": {"MPS": {"resources": [GPU4]}}}), ("mps", 4)),
        # ...the last key in sorted order wins: "sharing" sorts after "Sharing"
        (
            yaml.safe_dump(
                {"Sharing": {"timeSlicing": {"resources": [GPU4]}}, "sharing": {"mps": {}}}
            ),
            None,
        ),
        # a name without the prefix gets it (NewResourceName)
        (
            config_text({"timeSlicing": {"resources": [{"name": "gpu", "replicas": 3}]}}),
            ("timeSlicing", 3),
        ),
        # map keys inside a strategy are exact: the plugin refuses these, so nothing is shared
        (config_text({"timeSlicing": {"Resources": [GPU4]}}), None),
        (config_text({"timeSlicing": {"resources": [{"name": "gpu", "Replicas": 4}]}}), None),
        (config_text({"timeSlicing": {"resources": [{"name": "gpu", "replicas": 1}]}}), None),
        (config_text({"timeSlicing": {"resources": [{"name": "gpu", "replicas": "4"}]}}), None),
        (config_text({"timeSlicing": {"resources": [{"name": "gpu", "replicas": True}]}}), None),
        (config_text({"timeSlicing": {"resources": [{"name": "gpu", "replicas": 2.5}]}}), None),
        (config_text({"mps": {"resources": [{"name": "nvidia.com/gpu.x", "replicas": 4}]}}), None),
    ],
)
def test_a_config_is_read_as_the_device_plugin_reads_it(
    config: str, expected: tuple[str, int] | None
) -> None:
    """k8s-device-plugin v0.20.0 `api/config/v1`: config.go (sigs.k8s.io/yaml), sharing.go,
    replicas.go (exact keys, replicas >= 2), resources.go (NewResourceName's prefix)."""
    assert _replicas(config) == expected


def test_an_upper_case_config_still_trips_the_multi_gpu_guard(
    catalog: Catalog, recipe: RecipeResult
) -> None:
    """The guard that keeps multi-GPU jobs off shared GPUs once read only lower-case keys."""
    upper = yaml.safe_dump({"version": "v1", "Sharing": {"TimeSlicing": {"resources": [GPU4]}}})
    inline = {"name": "dp", "create": True, "data": {"any": upper}}
    sharing = gpu_sharing(components_with(planned(catalog, recipe, *OFF), inline))
    assert sharing is not None and (sharing.strategy, sharing.replicas) == ("timeSlicing", 4)
