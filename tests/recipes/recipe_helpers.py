"""Helpers for recipe tests: tiny catalog documents, resolving an overlay by its criteria."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from recipes import Catalog, RecipeCriteria, RecipeError, resolve
from recipes.resolution.guards import NO_CRITERIA

V1 = "aicr.nvidia.com/v1alpha1"
"""AICR v0.11's format."""
CURRENT = "aicr.run/v1alpha2"
"""The format of AICR's catalog today, and of this project's."""
WriteCatalog = Callable[[dict[str, object]], Path]


def write_files(root: Path, files: dict[str, object]) -> Path:
    """Write {relative path: document or raw text} under `root`; return it."""
    for rel, doc in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        text = doc if isinstance(doc, str) else yaml.safe_dump(doc, sort_keys=False)
        path.write_text(text, encoding="utf-8")
    return root


def registry(*names: str, api: str = CURRENT) -> dict[str, object]:
    """A registry.yaml document with a Helm entry per name."""
    return {
        "apiVersion": api,
        "kind": "ComponentRegistry",
        "components": [
            {
                "name": n,
                "helm": {
                    "defaultRepository": f"https://charts.example/{n}",
                    "defaultChart": f"example/{n}",
                    "defaultVersion": "1.0.0",
                    "defaultNamespace": f"ns-{n}",
                },
            }
            for n in names
        ],
    }


def overlay(name: str, api: str = CURRENT, **spec: object) -> dict[str, object]:
    """An overlays/<name>.yaml document."""
    return {"kind": "RecipeMetadata", "apiVersion": api, "metadata": {"name": name}, "spec": spec}


def mixin(name: str, api: str = CURRENT, **spec: object) -> dict[str, object]:
    """A mixins/<name>.yaml document."""
    return {"kind": "RecipeMixin", "apiVersion": api, "metadata": {"name": name}, "spec": spec}


def resolve_own(catalog: Catalog, name: str) -> None:
    """Resolve overlay `name` by its own criteria, as `aicr recipe` with those flags would.

    An overlay that pins nothing (v0.11.1's and the 2026 catalog's monitoring-hpa, criteria
    `intent: any`) cannot be asked for: AICR refuses a query with no criteria. It matches
    every query instead, so it is checked in another recipe."""
    criteria = catalog.overlays[name].doc.spec.criteria
    assert criteria is not None
    if criteria.normalized().specificity() == 0:
        with pytest.raises(RecipeError, match=f"^{re.escape(NO_CRITERIA)}$"):
            resolve(catalog, criteria)
        criteria = RecipeCriteria(service="eks")
    result = resolve(catalog, criteria)
    assert result.metadata.appliedOverlays[0] == "base"
    assert name in result.metadata.appliedOverlays
    assert sorted(result.deploymentOrder) == sorted(c.name for c in result.componentRefs)
