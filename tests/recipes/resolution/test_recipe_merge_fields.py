"""`merge_component`, field by field, as AICR's `mergeComponentRef` merges a later overlay's
componentRef over an earlier one. Each field is checked on its own, so a merge rule that
ignores one field (a later overlay's `namespace`, `chart` or `source`, or `cleanup`) fails
its own case."""

from __future__ import annotations

from typing import Any

import pytest

from recipes.model.overlays import ComponentRef
from recipes.resolution.merge import deep_merge, merge_component

BASE: dict[str, Any] = {
    "name": "gpu-operator",
    "namespace": "gpu-operator",
    "chart": "nvidia/gpu-operator",
    "type": "Helm",
    "source": "https://helm.ngc.nvidia.com/nvidia",
    "version": "v26.3.1",
    "tag": "base-tag",
    "valuesFile": "components/gpu-operator/values.yaml",
    "path": "base/path",
    "overrides": {"driver": {"enabled": False, "version": "570"}, "keep": 1},
    "patches": ["base.yaml"],
    "dependencyRefs": ["cert-manager"],
    "manifestFiles": ["components/gpu-operator/manifests/a.yaml"],
    "preManifestFiles": ["components/gpu-operator/pre/a.yaml"],
    "expectedResources": [{"kind": "Deployment", "name": "gpu-operator", "namespace": "x"}],
    "healthCheckAsserts": "base asserts",
}
SCALARS = {
    "namespace": "operators",
    "chart": "mirror/gpu-operator",
    "type": "Kustomize",
    "source": "oci://registry.example/charts",
    "version": "v26.7.0",
    "tag": "top-tag",
    "valuesFile": "components/gpu-operator/values-eks.yaml",
    "path": "top/path",
}


def merged(**top: Any) -> ComponentRef:
    return merge_component(
        ComponentRef.model_validate(BASE),
        ComponentRef.model_validate({"name": "gpu-operator", **top}),
    )


@pytest.mark.parametrize("field", sorted(SCALARS))
def test_a_later_scalar_wins(field: str) -> None:
    result = merged(**{field: SCALARS[field]})
    assert getattr(result, field) == SCALARS[field]
    others = {f: getattr(result, f) for f in SCALARS if f != field}
    assert others == {f: BASE[f] for f in SCALARS if f != field}


def test_an_empty_scalar_inherits() -> None:
    result = merged()
    assert {f: getattr(result, f) for f in SCALARS} == {f: BASE[f] for f in SCALARS}
    assert result == ComponentRef.model_validate(BASE)


def test_overrides_deep_merge_and_a_null_is_kept_for_the_values_merge() -> None:
    result = merged(overrides={"driver": {"enabled": True}, "keep": None, "new": {"a": 1}})
    assert result.overrides == {
        "driver": {"enabled": True, "version": "570"},
        "keep": None,
        "new": {"a": 1},
    }


@pytest.mark.parametrize("field", ["patches", "expectedResources"])
def test_lists_that_a_later_overlay_replaces(field: str) -> None:
    value: Any = (
        ["top.yaml"]
        if field == "patches"
        else [{"kind": "DaemonSet", "name": "nvidia-dcgm", "namespace": "gpu-operator"}]
    )
    result = merged(**{field: value})
    dumped = [
        v.model_dump(exclude_defaults=True) if hasattr(v, "model_dump") else v
        for v in getattr(result, field)
    ]
    assert dumped == value


@pytest.mark.parametrize("field", ["dependencyRefs", "manifestFiles", "preManifestFiles"])
def test_lists_that_are_appended_without_duplicates(field: str) -> None:
    result = merged(**{field: [BASE[field][0], "added"]})
    assert getattr(result, field) == [BASE[field][0], "added"]


@pytest.mark.parametrize("field", ["cleanup", "healthCheckSkip"])
def test_flags_are_set_if_true_and_never_cleared(field: str) -> None:
    assert getattr(merged(**{field: True}), field) is True
    set_before = merge_component(
        ComponentRef.model_validate({**BASE, field: True}),
        ComponentRef.model_validate({"name": "gpu-operator", field: False}),
    )
    assert getattr(set_before, field) is True
    assert getattr(merged(), field) is False


def test_inline_health_check_asserts_win() -> None:
    assert merged(healthCheckAsserts="top asserts").healthCheckAsserts == "top asserts"
    assert merged().healthCheckAsserts == "base asserts"


def test_a_merged_map_shares_nothing_with_the_overlay_it_came_from() -> None:
    """Hydration edits merged values in place (stack overrides, nulls deleted): an overlay's
    own document must not change with them."""
    top = {"daemonsets": {"tolerations": [{"key": "gpu"}]}}
    out = deep_merge({"daemonsets": {"priorityClassName": "high"}}, top)
    out["daemonsets"]["tolerations"][0]["key"] = "changed"
    assert top == {"daemonsets": {"tolerations": [{"key": "gpu"}]}}
    fresh = deep_merge({}, top)
    fresh["daemonsets"]["tolerations"].append({"key": "more"})
    assert top["daemonsets"]["tolerations"] == [{"key": "gpu"}]
