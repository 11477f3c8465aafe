"""Helpers for recipe tests: tiny catalog documents."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

V1 = "aicr.nvidia.com/v1alpha1"
"""AICR v0.11's format."""
CURRENT = "aicr.run/v1alpha2"
"""The format of AICR's catalog today, and of this project's."""
WriteCatalog = Callable[[dict[str, object]], Path]


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
