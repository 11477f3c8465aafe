"""Every `gpu-ci:platform.set` item is checked against its chart, whatever the items before
it were: an item that does not parse, an `enabled` switch or a component the recipe lacks
is left to its own check, and the unknown paths after it are still each reported at their
own index (a config with two typos names both, in one run)."""

from __future__ import annotations

from components.platform.chart_values.lookup import set_problems
from recipes import RecipeResult
from tests.components.platform.platform_helpers import project_catalog, project_recipe

TAGG = (
    "platform override 'kubeflow-trainer:{path}': the kubeflow-trainer chart (2.3.0) has no "
    "value '{path}' (did you mean 'image.tag'?); keys under 'image': pullPolicy, pullSecrets, "
    "registry, repository, tag"
)


def _recipe() -> RecipeResult:
    return project_recipe(project_catalog())


def test_a_typo_after_an_item_that_does_not_parse_is_reported() -> None:
    items = ["no-colon-or-equals", "kubeflow-trainer:image.tagg=test", "gpu-operator=x"]
    items += ["kubeflow-trainer:image.tagx=1"]
    assert set_problems(items, _recipe()) == [
        (1, TAGG.format(path="image.tagg")),
        (3, TAGG.format(path="image.tagx")),
    ]


def test_a_typo_after_a_switch_or_an_unknown_component_is_reported() -> None:
    items = ["kubeflow-trainer:enabled=false", "kubeflow-trainer:image.tagg=test"]
    items += ["no-such-component:a.b=1", "kubeflow-trainer:image.tagx=1"]
    assert set_problems(items, _recipe()) == [
        (1, TAGG.format(path="image.tagg")),
        (3, TAGG.format(path="image.tagx")),
    ]
