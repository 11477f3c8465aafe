"""Resolving a query against a catalog into a recipe, and what a resolved recipe gives.

The resolver (`resolver.py`) with the queries AICR refuses (`guards.py`), its overlay
merges (`merge.py`), registry defaults and health checks (`defaults.py`) and deployment
order (`ordering.py`); then a component's Helm values (`values.py`), the hydrated recipe
`query` reads (`hydrate.py`) and the recipe's constraints checked against known facts
(`constraints.py`). It may import `recipes.catalogs`, `recipes.model`, `recipes.errors`
and `core`.
"""
