"""AICR-compatible recipe catalogs: load, resolve, hydrate values, check constraints.

A recipe says which GPU-stack components (GPU operator, Kubeflow Trainer, ...) to deploy,
at which versions and with which Helm values, for a cluster described by criteria
(service, accelerator, os, intent, platform). The formats (every AICR catalog apiVersion,
`recipes.versions`) and the resolution semantics are NVIDIA AICR's, so AICR's own catalogs
and this project's extend each other.
"""

from recipes.catalog import PROJECT_CATALOG, Catalog, load_catalog
from recipes.criteria import RecipeCriteria
from recipes.errors import RecipeError
from recipes.hydrate import hydrate, select
from recipes.resolver import resolve
from recipes.result import RecipeResult
from recipes.values import component_values

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
