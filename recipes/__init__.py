"""AICR-compatible recipe catalogs: load, resolve, hydrate values, check constraints.

A recipe says which GPU-stack components (GPU operator, Kubeflow Trainer, ...) to deploy,
at which versions and with which Helm values, for a cluster described by criteria
(service, accelerator, os, intent, platform). The formats (every AICR catalog apiVersion,
`recipes.catalogs.versions`) and the resolution semantics are NVIDIA AICR's, so AICR's own
catalogs and this project's extend each other.

Layers, lowest first: `errors.py` (the one error type), `model/` (the typed documents and
the resolved result), `catalogs/` (reading catalogs), `resolution/` (resolving a query,
values, constraints), then this package's API below and the CLI (`cli.py`, `python -m
recipes`). Outside `recipes`, it may import `core` only.
"""

from recipes.catalogs.catalog import Catalog
from recipes.catalogs.load import PROJECT_CATALOG, load_catalog
from recipes.errors import RecipeError
from recipes.model.criteria import RecipeCriteria
from recipes.model.result import RecipeResult
from recipes.resolution.hydrate import hydrate, select
from recipes.resolution.resolver import resolve
from recipes.resolution.values import component_values

__all__ = [
    "PROJECT_CATALOG",
    "Catalog",
    "RecipeCriteria",
    "RecipeError",
    "RecipeResult",
    "component_values",
    "hydrate",
    "load_catalog",
    "resolve",
    "select",
]
