"""The structural CRD validator itself, and ClusterPolicy fields rendered from our values."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from recipes import Catalog, RecipeResult, component_values
from stacks.offline.records import ProgramRun
from tests.oracles.crd_schema import (
    at,
    crd_schema,
    load_crd,
    ssa_merge,
    validate,
    validate_object,
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name"],
    "properties": {
        "name": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 5},
        "size": {
            "x-kubernetes-int-or-string": True,
            "anyOf": [{"type": "integer"}, {"type": "string"}],
        },
        "mode": {"type": "string", "enum": ["a", "b"]},
        "count": {"type": "integer", "minimum": 1},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
        "meta": {"type": "object"},
        "items": {
            "type": "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name"],
            "items": {
                "type": "object",
                "required": ["name"],
                "properties": {"name": {"type": "string"}, "v": {"type": "boolean"}},
            },
        },
        "tags": {"type": "array", "items": {"type": "string"}},
    },
}


def test_a_valid_object_has_no_problems() -> None:
    obj = {
        "name": "ok",
        "size": "1Gi",
        "mode": "a",
        "count": 2,
        "labels": {"a": "b"},
        "free": {"anything": [1, {"x": None}]},
        "meta": {"whatever": 1},
        "items": [{"name": "x", "v": True}, {"name": "y"}],
        "tags": ["t"],
    }
    assert validate(obj, SCHEMA) == []
    assert validate({"name": "ok", "size": 3}, SCHEMA) == []


@pytest.mark.parametrize(
    ("obj", "problem"),
    [
        ({}, "(root): missing required field 'name'"),
        ({"name": "Bad"}, "name: 'Bad' does not match ^[a-z]+$"),
        ({"name": "toolong"}, "name: longer than 5"),
        ({"name": "ok", "typo": 1}, "typo: unknown field"),
        ({"name": "ok", "size": True}, "size: expected an integer or a string"),
        ({"name": "ok", "mode": "c"}, "mode: 'c' is not one of ['a', 'b']"),
        ({"name": "ok", "count": 0}, "count: 0 < minimum 1"),
        ({"name": "ok", "count": "1"}, "count: expected integer, got str"),
        ({"name": "ok", "labels": {"a": 1}}, "labels.a: expected string, got int"),
        ({"name": "ok", "items": [{"name": "x"}, {"name": "x"}]}, "items: duplicate list-map keys"),
        ({"name": "ok", "items": [{"v": True}]}, "items[0]: missing required field 'name'"),
        ({"name": "ok", "tags": "t"}, "tags: expected array, got str"),
        ({"name": None}, "name: null is not allowed"),
    ],
)
def test_problems_name_the_path(obj: dict[str, Any], problem: str) -> None:
    assert any(p.startswith(problem) for p in validate(obj, SCHEMA)), validate(obj, SCHEMA)


def test_ssa_merge_merges_list_maps_by_key_and_replaces_atomic_lists() -> None:
    live = {"name": "a", "items": [{"name": "x", "v": False}, {"name": "y"}], "tags": ["1"]}
    patch = {"items": [{"name": "y", "v": True}, {"name": "z"}], "tags": ["2"]}
    assert ssa_merge(live, patch, SCHEMA) == {
        "name": "a",
        "items": [{"name": "x", "v": False}, {"name": "y", "v": True}, {"name": "z"}],
        "tags": ["2"],
    }


def test_wrong_group_or_kind_is_reported(runtime_crd: dict[str, Any]) -> None:
    assert validate_object(runtime_crd, {"apiVersion": "v1", "kind": "ConfigMap"}) == [
        "apiVersion: 'v1' is not in group trainer.kubeflow.org"
    ]
    wrong_kind = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob"}
    assert validate_object(runtime_crd, wrong_kind)[0].startswith("kind:")


def test_upstream_runtimes_validate_unpatched(
    upstream_runtimes: dict[str, dict[str, Any]], runtime_crd: dict[str, Any]
) -> None:
    for name, obj in upstream_runtimes.items():
        assert validate_object(runtime_crd, obj) == [], name


def test_cluster_policy_fields_from_our_operator_values_validate(
    catalog: Catalog, recipe: RecipeResult, policy_crd: dict[str, Any]
) -> None:
    """The operator chart copies these values into the ClusterPolicy spec (the CI used to
    `kubectl patch clusterpolicy` for devicePlugin.config; the values now set it)."""
    spec = at(crd_schema(policy_crd, "v1"), "spec")
    values = component_values(catalog, recipe, "gpu-operator")
    shared = sorted(k for k in values if k in spec["properties"])
    assert shared == ["cdi", "devicePlugin", "driver", "toolkit"]
    for key in shared:
        assert validate(values[key], spec["properties"][key], f"spec.{key}") == [], key
    assert validate({"config": {"nmae": "x"}}, spec["properties"]["devicePlugin"]) == [
        "config.nmae: unknown field"
    ]


def test_every_registered_custom_resource_and_patch_validates(
    patched: ProgramRun, upstream: Path
) -> None:
    """Whatever RecipeReleases registers for a kind an upstream CRD defines must validate."""
    crds: dict[tuple[str, str], dict[str, Any]] = {}
    for path in sorted((upstream / "crds").glob("*.yaml")):
        crd = load_crd(upstream, path.name)
        crds[(crd["spec"]["group"], crd["spec"]["names"]["kind"])] = crd
    checked = []
    for reg in patched.registrations:
        if not reg.type.startswith("kubernetes:") or "/" not in reg.type:
            continue
        group = reg.type.split(":")[1].split("/")[0]
        kind = reg.type.rsplit(":", 1)[1].removesuffix("Patch")
        schema = crds.get((group, kind))
        if schema is not None:
            assert validate_object(schema, reg.inputs) == [], reg.name
            checked.append(reg.name)
    assert len(checked) == 3  # the three runtime patches; the project ships no other CRs
