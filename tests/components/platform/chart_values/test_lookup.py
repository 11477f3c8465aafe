"""Which chart values data `chart_values` finds for a recipe's chart reference and version,
what a did-you-mean shows for a typo before the last key, and which values `unknown_paths`
walks into: a list only where the chart describes its items, a map only as a map."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from components.platform.chart_values.lookup import (
    ChartValues,
    chart_name,
    chart_values,
    set_problems,
    unknown_paths,
)
from components.platform.chart_values.schema import from_schema
from tests.components.platform.platform_helpers import project_catalog, project_recipe

SCHEMA = {
    "type": "object",
    "properties": {
        "tolerations": {"type": "array", "items": {"type": "object", "properties": {"key": {}}}},
        "labels": {"type": "object", "properties": {"team": {}}},
    },
}
TRAINER_TOP = (
    "top-level keys: commonLabels, crds, dataCache, fullnameOverride, global, image, jobset, "
    "lws, manager, nameOverride, runtimes, webhook"
)


@pytest.mark.parametrize(
    ("chart", "name"),
    [
        ("nvidia/gpu-operator", "gpu-operator"),
        (
            "oci://ghcr.io/actions/actions-runner-controller-charts/gha-runner-scale-set",
            "gha-runner-scale-set",
        ),
        ("kube-prometheus-stack", "kube-prometheus-stack"),
    ],
)
def test_the_chart_name_is_the_last_part_of_its_reference(chart: str, name: str) -> None:
    assert chart_name(chart) == name


def _folder(root: Path, name: str) -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "values.schema.json").write_text(json.dumps(SCHEMA))
    return folder


def test_a_chart_shipping_only_a_schema_is_read_from_it(tmp_path: Path) -> None:
    _folder(tmp_path, "svc-1.0.0")
    chart = chart_values("repo/svc", "1.0.0", tmp_path)
    assert chart == ChartValues("svc", "1.0.0", from_schema(SCHEMA, SCHEMA))
    assert chart_values("repo/svc", "1.0.1", tmp_path) is None  # no other version guessed


def test_a_version_is_found_with_or_without_its_v(tmp_path: Path) -> None:
    _folder(tmp_path, "svc-1.0.0")
    _folder(tmp_path, "svc-v2.0.0")
    found = chart_values("svc", "v1.0.0", tmp_path)
    assert found is not None and found.version == "1.0.0"
    found = chart_values("svc", "2.0.0", tmp_path)
    assert found is not None and found.version == "v2.0.0"


def test_a_typo_before_the_last_key_suggests_the_whole_path_where_it_exists() -> None:
    recipe = project_recipe(project_catalog())
    items = ["kubeflow-trainer:imag.tag=x", "kubeflow-trainer:imag.zzz=x"]
    prefix = "platform override 'kubeflow-trainer:{}': the kubeflow-trainer chart (2.3.0) "
    assert set_problems(items, recipe) == [
        (
            0,
            prefix.format("imag.tag")
            + f"has no value 'imag' (did you mean 'image.tag'?); {TRAINER_TOP}",
        ),
        (
            1,
            prefix.format("imag.zzz")
            + f"has no value 'imag' (did you mean 'image'?); {TRAINER_TOP}",
        ),
    ]


def test_a_typo_below_the_top_suggests_up_to_the_guess_where_the_rest_is_not_there() -> None:
    """`image.tag` is a string: nothing is under it, so the hint stops at the guessed key."""
    recipe = project_recipe(project_catalog())
    assert set_problems(["kubeflow-trainer:image.tagg.zzz=x"], recipe) == [
        (
            0,
            "platform override 'kubeflow-trainer:image.tagg.zzz': the kubeflow-trainer chart "
            "(2.3.0) has no value 'image.tagg' (did you mean 'image.tag'?); keys under "
            "'image': pullPolicy, pullSecrets, registry, repository, tag",
        )
    ]


def test_an_index_at_the_top_is_refused_as_the_values_map() -> None:
    chart = ChartValues("svc", "1.0.0", from_schema(SCHEMA, SCHEMA))
    assert chart.miss([0]) == (
        "'the values' is a map in the svc chart (1.0.0), not a list [given: '[0]']"
    )


def test_only_a_list_the_chart_describes_is_walked_into() -> None:
    chart = ChartValues("svc", "1.0.0", from_schema(SCHEMA, SCHEMA))
    # a value of another shape replaces the chart's: nothing under it to check
    assert unknown_paths(chart, {"tolerations": 5, "labels": [{"x": 1}]}) == []
    assert unknown_paths(chart, {"tolerations": "none", "labels": "x"}) == []
    assert unknown_paths(chart, {"tolerations": [{"key": 1}, {"kee": 2}]}) == [
        "tolerations[1].kee: the svc chart (1.0.0) has no value 'tolerations[1].kee' (did you "
        "mean 'tolerations[1].key'?); keys under 'tolerations[1]': key"
    ]
