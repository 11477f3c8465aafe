"""Hydrated Helm values for a resolved component, and selector look-ups into them.

Values are the deep merge of `components/<name>/values.yaml` (when the catalog has it),
then the component's `valuesFile` (when it is a different file), then its `overrides`.
They are computed on demand, not during resolution: most callers never need them.
"""

from __future__ import annotations

from typing import Any

from recipes.catalog import Catalog
from recipes.errors import RecipeError
from recipes.merge import deep_merge
from recipes.result import RecipeResult


def component_values(catalog: Catalog, result: RecipeResult, name: str) -> dict[str, Any]:
    """The hydrated values of component `name` in `result` (a fresh, mutable dict)."""
    ref = result.component(name)
    if ref is None:
        if name in result.metadata.disabledComponents:
            raise RecipeError(f"component {name!r} is disabled in this recipe")
        known = ", ".join(sorted(c.name for c in result.componentRefs))
        raise RecipeError(f"component {name!r} is not in this recipe; components: {known}")
    default = f"components/{name}/values.yaml"
    layers = [default] if default in catalog.files else []
    if ref.valuesFile and ref.valuesFile != default:
        layers.append(ref.valuesFile)
    values: dict[str, Any] = {}
    for rel in layers:
        values = deep_merge(values, _mapping(catalog, rel))
    return deep_merge(values, ref.overrides)


def _mapping(catalog: Catalog, rel: str) -> dict[str, Any]:
    data = catalog.read_yaml(rel)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise RecipeError(f"{rel}: expected a YAML mapping of Helm values")
    return data


def select(catalog: Catalog, result: RecipeResult, selector: str) -> Any:
    """AICR `query --selector`: `components.NAME.values.PATH`, `deploymentOrder`, ..."""
    parts = selector.split(".")
    if parts[0] == "components" and len(parts) >= 2:
        name = parts[1]
        if len(parts) == 2:
            ref = result.component(name)
            if ref is None:
                component_values(catalog, result, name)  # raises the right error
            assert ref is not None
            return ref.model_dump(mode="json", exclude_defaults=True)
        if parts[2] != "values":
            raise RecipeError(f"--selector {selector}: expected components.{name}.values[.PATH]")
        return _walk(component_values(catalog, result, name), parts[3:], selector)
    data = result.to_dict()
    if parts[0] not in data:
        raise RecipeError(
            f"--selector {selector}: unknown field {parts[0]!r}; "
            f"use components.NAME.values.PATH or one of: {', '.join(data)}"
        )
    return _walk(data, parts, selector)


def _walk(data: Any, path: list[str], selector: str) -> Any:
    node = data
    for i, key in enumerate(path):
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            at = ".".join(path[:i]) or "(top)"
            raise RecipeError(f"--selector {selector}: no key {key!r} under {at}")
    return node
