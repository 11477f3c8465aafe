"""Hydrated Helm values for a resolved component (AICR's `GetValuesForComponent`).

- no `valuesFile` and no `overrides`: no values at all (the component's
  `components/<name>/values.yaml`, if any, is not read);
- `valuesFile` is `components/<name>/values.yaml`: that file;
- another `valuesFile`: `components/<name>/values.yaml` when the catalog has it, with the
  valuesFile merged over it;
- then `overrides`, merged over the result.

Each merge is AICR's `mergeValues`: maps merge recursively, anything else replaces. By the
catalog's AICR release (`recipes.model.semantics`): today a `null` in the later layer deletes
the key (Helm's own rule for null values, AICR PR #458); AICR v0.11.1 kept it as a null,
which Helm then reads as "delete the chart's default". A key new to the earlier layer is
taken as written, nested nulls and all, under both. Values are computed on demand, not
during resolution: most callers never need them.
"""

from __future__ import annotations

import copy
from typing import Any

from recipes.catalogs.catalog import Catalog, semantics_of
from recipes.errors import RecipeError
from recipes.model.overlays import ComponentRef
from recipes.model.result import RecipeResult


def component_values(catalog: Catalog, result: RecipeResult, name: str) -> dict[str, Any]:
    """The hydrated values of component `name` in `result` (a fresh, mutable dict)."""
    ref = result.ref(name)
    if ref is None:
        known = ", ".join(c.name for c in result.all_refs())
        raise RecipeError(f"component {name!r} is not in this recipe; components: {known}")
    return ref_values(catalog, ref)


def ref_values(catalog: Catalog, ref: ComponentRef) -> dict[str, Any]:
    """The hydrated values of one resolved componentRef."""
    deletes = semantics_of(catalog).values_null_deletes
    values: dict[str, Any] = {}
    if ref.valuesFile:
        default = f"components/{ref.name}/values.yaml"
        if ref.valuesFile == default:
            values = copy.deepcopy(_mapping(catalog, default))  # read as is, nulls kept
        else:
            if default in catalog.files:
                values = copy.deepcopy(_mapping(catalog, default))
            merge_values(values, _mapping(catalog, ref.valuesFile), null_deletes=deletes)
    if ref.overrides:
        merge_values(values, ref.overrides, null_deletes=deletes)
    return values


def merge_values(dst: dict[str, Any], src: dict[str, Any], *, null_deletes: bool = True) -> None:
    """AICR's `mergeValues`: `src` into `dst` in place; a null in `src` deletes the key
    (`null_deletes`, AICR PR #458) or, as in v0.11.1, is set like any other value."""
    for key, value in src.items():
        if value is None and null_deletes:
            dst.pop(key, None)
            continue
        old = dst.get(key)
        if isinstance(old, dict) and isinstance(value, dict):
            merge_values(old, value, null_deletes=null_deletes)
        else:
            dst[key] = copy.deepcopy(value)


def _mapping(catalog: Catalog, rel: str) -> dict[str, Any]:
    data = catalog.read_yaml(rel)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise RecipeError(f"{rel}: expected a YAML mapping of Helm values")
    return data
