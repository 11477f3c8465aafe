"""Stack-config overrides: aicr `--set` strings and the map form, and their errors."""

from __future__ import annotations

from typing import Any

import pytest

from components.platform.overrides import ComponentOverride, PlatformError, PlatformOverrides
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


def test_the_map_form() -> None:
    found = PlatformOverrides.parse(
        {
            "gpu-operator": {"values": {"toolkit": {"env": [{"name": "A", "value": "1"}]}}},
            "kubeflow-trainer": {"enabled": False},
        }
    )
    assert found.values_for("gpu-operator") == {"toolkit": {"env": [{"name": "A", "value": "1"}]}}
    assert not found.is_enabled("kubeflow-trainer")
    assert PlatformOverrides.parse(None) == PlatformOverrides()


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (["gpu-operator"], "expected COMPONENT:PATH=VALUE"),
        (["gpu-operator:driver.enabled"], "expected COMPONENT:PATH=VALUE"),
        ([":driver.enabled=true"], "expected COMPONENT:PATH=VALUE"),
        (["c:a..b=1"], "empty key in values path 'a..b'"),
        (["c:env[0].name=x"], "list indexes are not supported"),
        (["c:enabled=no"], "`enabled` takes true or false, got 'no'"),
        ({"c": {"enable": False}}, "unknown field 'enable' \\(did you mean 'enabled'\\?\\)"),
        ({"c": {"enabled": "maybe"}}, "platform override 'c': enabled: Input should be"),
        ({"c": ["x"]}, "expected a map with `enabled` and/or `values`"),
        ("c:a=1", "expected a list of COMPONENT:PATH=VALUE strings or a map"),
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
