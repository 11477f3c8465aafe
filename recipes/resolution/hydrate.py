"""The hydrated recipe `query` reads, and selector look-ups into it (AICR's `HydrateResult`
and `Select`, `pkg/recipe/query.go`).

The hydrated recipe is a plain map: kind, apiVersion, metadata (version, appliedOverlays,
excludedOverlays, constraintWarnings), deploymentOrder, criteria (every field, `any` when
open), constraints, and `components`, keyed by name, each with name, type, source and,
when set, namespace, chart, version, tag, path, dependencyRefs and its hydrated `values`.
Every component of the recipe is there, disabled ones too, as in AICR.

A selector is a dot path into that map; a leading `.` is dropped and an empty selector (or
`.`) selects the whole recipe. Only maps are descended into, as in AICR: a list is a leaf.
"""

from __future__ import annotations

from typing import Any

from recipes.catalogs.catalog import Catalog
from recipes.errors import RecipeError
from recipes.model.result import RecipeResult
from recipes.resolution.values import ref_values

_OPTIONAL = ("namespace", "chart", "version", "tag", "path")


def hydrate(catalog: Catalog, result: RecipeResult) -> dict[str, Any]:
    """The fully hydrated recipe: component values merged, not file references."""
    meta = result.metadata
    hydrated: dict[str, Any] = {
        "kind": result.kind,
        "apiVersion": result.apiVersion,
        "metadata": {
            "version": meta.version,
            "appliedOverlays": list(meta.appliedOverlays),
            "excludedOverlays": [],
            "constraintWarnings": [],
        },
        "deploymentOrder": list(result.deploymentOrder),
        "criteria": result.criteria.model_dump(mode="json"),
    }
    if result.constraints:
        hydrated["constraints"] = [
            c.model_dump(mode="json", exclude_none=True) for c in result.constraints
        ]
    components: dict[str, Any] = {}
    for ref in result.all_refs():
        comp: dict[str, Any] = {"name": ref.name, "type": ref.type, "source": ref.source}
        comp.update({k: getattr(ref, k) for k in _OPTIONAL if getattr(ref, k)})
        if ref.dependencyRefs:
            comp["dependencyRefs"] = list(ref.dependencyRefs)
        values = ref_values(catalog, ref)
        if values:
            comp["values"] = values
        components[ref.name] = comp
    hydrated["components"] = components
    return hydrated


def select(catalog: Catalog, result: RecipeResult, selector: str) -> Any:
    """AICR `query --selector`: `components.NAME.values.PATH`, `deploymentOrder`, '' ..."""
    return select_path(hydrate(catalog, result), selector)


def select_path(hydrated: dict[str, Any], selector: str) -> Any:
    """The value at dot path `selector` in `hydrated` (AICR's `Select`)."""
    path = selector.removeprefix(".")
    if not path:
        return hydrated
    node: Any = hydrated
    for part in path.split("."):
        if not isinstance(node, dict):
            raise RecipeError(
                f"--selector {selector}: cannot descend into non-map value at {part!r}"
            )
        if part not in node:
            available = ", ".join(sorted(node))
            raise RecipeError(
                f"--selector {selector}: key {part!r} not found, available keys: {available}"
            )
        node = node[part]
    return node
