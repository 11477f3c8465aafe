"""Stack-config overrides: aicr `--set` strings and the map form, and their errors."""

from __future__ import annotations

from typing import Any

import pytest

from components.platform.platform_config import PlatformConfig
from components.platform.releases.overrides import (
    ComponentOverride,
    PlatformError,
    PlatformOverrides,
)
from recipes import RecipeResult


def test_set_strings_build_nested_typed_values() -> None:
    found = PlatformOverrides.parse(
        [
            "gpu-operator:driver.enabled=true",
            "gpu-operator:devicePlugin.config.name=my-config",
            "gpu-operator:operator.replicas=2",
            "gpu-operator:operator.version=007",
            "gpu-operator:mig.strategy=null",
            "gpu-operator:daemonsets.nodeSelector.nvidia\\.com/gpu\\.present=true",
            "kubeflow-trainer:image.tag=v2.3.0",
            "kubeflow-trainer:enabled=false",
        ]
    )
    assert found.values_for("gpu-operator") == {
        "driver": {"enabled": True},
        "devicePlugin": {"config": {"name": "my-config"}},
        "operator": {"replicas": 2, "version": "007"},
        "mig": {"strategy": None},
        "daemonsets": {"nodeSelector": {"nvidia.com/gpu.present": True}},
    }
    assert found.is_enabled("gpu-operator")
    assert not found.is_enabled("kubeflow-trainer")
    assert found.values_for("kubeflow-trainer") == {"image": {"tag": "v2.3.0"}}
    assert found.values_for("unnamed") == {}


def test_a_number_with_a_trailing_newline_stays_text() -> None:
    found = PlatformOverrides.parse(["gpu-operator:operator.replicas=2\n"])
    assert found.values_for("gpu-operator") == {"operator": {"replicas": "2\n"}}


def test_a_later_set_wins_and_enabled_can_be_turned_back_on() -> None:
    found = PlatformOverrides.parse(
        ["c:a.b=1", "c:a.b=2", "c:a.d=x", "c:enabled=false", "c:enabled=true"]
    )
    assert found.components["c"] == ComponentOverride(
        enabled=True, values={"a": {"b": 2, "d": "x"}}
    )


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (["gpu-operator"], "expected COMPONENT:PATH=VALUE"),
        (["gpu-operator:driver.enabled"], "expected COMPONENT:PATH=VALUE"),
        ([":driver.enabled=true"], "expected COMPONENT:PATH=VALUE"),
        (["c:a..b=1"], "empty key in values path 'a..b'"),
        (["c:env[0].name=x"], "list indexes are not supported"),
        (["c:enabled=no"], "`enabled` takes true or false, got 'no'"),
        ({"c": {"enabled": False}}, "expected a list of COMPONENT:PATH=VALUE strings, got dict"),
        ("c:a=1", "expected a list of COMPONENT:PATH=VALUE strings, got str"),
    ],
)
def test_parse_errors(raw: Any, message: str) -> None:
    with pytest.raises(PlatformError, match=message):
        PlatformOverrides.parse(raw)


def test_unknown_component_gets_a_did_you_mean(recipe: RecipeResult) -> None:
    found = PlatformOverrides.parse(["gpu-operater:driver.enabled=false"])
    with pytest.raises(PlatformError) as err:
        found.check(recipe)
    assert str(err.value) == (
        "platform override 'gpu-operater': component is not in the recipe "
        "kind-a10/kind-a10-training-kubeflow (did you mean 'gpu-operator'?)"
    )


def test_unknown_component_without_a_near_miss_lists_the_components(
    recipe: RecipeResult,
) -> None:
    with pytest.raises(PlatformError, match="components: gpu-operator, gpu-time-slicing"):
        PlatformOverrides.parse(["nvsentinel:enabled=false"]).check(recipe)


def test_a_component_the_recipe_disables_cannot_be_configured(recipe: RecipeResult) -> None:
    recipe.metadata.disabledComponents.append("nvsentinel")
    PlatformOverrides.parse(["nvsentinel:enabled=false"]).check(recipe)  # harmless
    with pytest.raises(PlatformError, match="'nvsentinel': the recipe disables this component"):
        PlatformOverrides.parse(["nvsentinel:enabled=true"]).check(recipe)
    with pytest.raises(PlatformError, match="the recipe disables this component"):
        PlatformOverrides.parse(["nvsentinel:a=1"]).check(recipe)


def test_a_list_index_is_refused_with_a_fix_that_platform_set_accepts() -> None:
    """The fix names the catalogs key, which takes a list value; `platform.set` takes only
    strings (its model is `list[str]`), so a map form there would be refused again."""
    with pytest.raises(PlatformError) as err:
        PlatformOverrides.parse(["c:env[0].name=x"])
    assert str(err.value) == (
        "platform override 'c:env[0].name=x': expected COMPONENT:PATH=VALUE: list indexes are "
        "not supported in a platform.set path; to set a list, give its component's values in "
        "a catalog of your own (gpu-ci:platform.catalogs, an overlay's "
        "componentRefs[].overrides: docs/recipes.md)"
    )
    assert PlatformConfig.model_fields["set"].annotation == list[str]


def test_a_values_path_deeper_than_a_stack_file_may_nest_is_one_message() -> None:
    """500 keys once ended in a RecursionError and 161 KB of traceback."""
    deepest = "c:" + ".".join(["k"] * 100) + "=1"
    assert PlatformOverrides.parse([deepest]).values_for("c")["k"]["k"]["k"]
    too_deep = "c:" + ".".join(["k"] * 101) + "=1"
    with pytest.raises(PlatformError) as err:
        PlatformOverrides.parse([too_deep])
    assert str(err.value).endswith(
        ": a values path of 101 keys; at most 100, as deep as a stack file may nest (this "
        "project's stack files are under 8 KiB and nest at most 8 deep)"
    )
    with pytest.raises(PlatformError, match="a values path of 500 keys"):
        PlatformOverrides.parse(["c:" + ".".join(["k"] * 500) + "=1"])
