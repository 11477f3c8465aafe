"""Resolving a query against a catalog into a RecipeResult, as AICR's resolver does
(`MetadataStore.BuildRecipeResult`), by the rules of the catalog's AICR release
(`recipes.model.semantics`: AICR v0.11.1 for `aicr.nvidia.com/v1alpha1`, July 2026 otherwise).

1. The query is normalised (the release's aliases, case) and refused when it pins nothing,
   or pins a value the release does not accept (`recipes.model.criteria_values`; today's also
   takes every value the catalog's overlays pin).
2. Overlays whose criteria match (asymmetrically, `recipes.model.criteria`) are candidates;
   today those that are an ancestor of another candidate are dropped (their content still
   arrives through the descendant's chain; AICR PR #496). Candidates are sorted least
   specific first, then by name (v0.11.1 left ties unordered). Today the OS guard runs on
   them (`recipes.resolution.guards`, AICR PR #1510).
3. Starting from the root overlay `base`, each candidate's chain is merged root first,
   skipping overlays already merged (`recipes.resolution.merge`); the mixins named along the
   chains are merged last. When nothing but the root applies, the result is the root recipe and
   a warning says so (AICR logs the same): a known value no overlay names is not an error.
4. Dependencies are checked (every `dependencyRef` is a declared component; no cycle),
   the enabled components ordered (`recipes.resolution.ordering`), registry defaults filled
   and, today, health checks inlined (`recipes.resolution.defaults`, AICR PR #1231).

Choices that differ from AICR, each for a reason:
- A catalog set without `overlays/base.yaml` has an empty root instead of failing as AICR
  does, so this project's catalog resolves on its own and, layered over AICR's, extends
  AICR's base rather than replacing it.
- gpu-ci's deployer refuses a query that matches no overlay (`stacks/layers/platform.py`,
  with `no_match_message`): deploying the bare root is never what a stack means.
"""

from __future__ import annotations

from functools import lru_cache

from recipes.catalogs.catalog import Catalog, Overlay, semantics_of
from recipes.catalogs.catalog_checks import chain_of
from recipes.errors import RecipeError
from recipes.model.criteria import FIELDS, RecipeCriteria
from recipes.model.criteria_values import unknown_value
from recipes.model.result import RecipeResult, ResultMetadata
from recipes.resolution.defaults import with_defaults, with_health_check
from recipes.resolution.guards import require_criteria, require_os_if_needed
from recipes.resolution.merge import MergedSpec, mixin_conflict
from recipes.resolution.ordering import deployment_order

BASE_ONLY = (
    "no environment-specific overlays matched {criteria}, using base configuration only: "
    "the recipe may not be optimized for your environment"
)


def resolve(catalog: Catalog, criteria: RecipeCriteria) -> RecipeResult:
    """The recipe for `criteria` (a fresh copy each call; safe to mutate)."""
    query = criteria.normalized(semantics_of(catalog).criteria)
    return _resolve_cached(catalog, query).model_copy(deep=True)


@lru_cache(maxsize=256)
def _resolve_cached(catalog: Catalog, query: RecipeCriteria) -> RecipeResult:
    require_criteria(query)
    check_query(catalog, query)
    candidates = matching_overlays(catalog, query)
    if semantics_of(catalog).os_guard:
        require_os_if_needed(catalog, query, candidates)
    merged = MergedSpec()
    applied: list[str] = []
    if catalog.base is not None:
        merged.start(catalog.base.doc.spec)
        applied.append(catalog.base.name)
    for candidate in candidates:
        for overlay in chain_of(catalog, candidate.name):
            if overlay.name not in applied:
                merged.apply(overlay.doc.spec, overlay.validation_merge)
                applied.append(overlay.name)
    _apply_mixins(catalog, merged)
    result = _finalize(catalog, query, merged, applied)
    if len(applied) <= (catalog.base is not None):
        result.warnings.append(BASE_ONLY.format(criteria=query.describe()))
    return result


def check_query(catalog: Catalog, query: RecipeCriteria) -> None:
    """Fail on a pinned value the catalog's AICR release does not accept, listing the valid
    ones."""
    rules = semantics_of(catalog).criteria
    for f in FIELDS:
        problem = unknown_value(f, query.value(f), catalog.vocabulary, rules)
        if problem:
            raise RecipeError(problem)


def matching_overlays(catalog: Catalog, query: RecipeCriteria) -> list[Overlay]:
    """Matching overlays (today minus ancestors of other matches), least specific first."""
    matches = [
        o
        for o in catalog.overlays.values()
        if o.doc.spec.criteria is not None and o.doc.spec.criteria.matches(query)
    ]
    leaves = matches
    if semantics_of(catalog).maximal_leaves:
        ancestors = {a.name for o in matches for a in chain_of(catalog, o.name)[:-1]}
        leaves = [o for o in matches if o.name not in ancestors]

    def key(o: Overlay) -> tuple[int, str]:
        assert o.doc.spec.criteria is not None
        return (o.doc.spec.criteria.specificity(), o.name)

    return sorted(leaves, key=key)


def no_match_message(catalog: Catalog, query: RecipeCriteria) -> str:
    """Why nothing matched, with the criteria sets that would (closest to the query)."""
    options = []
    for o in catalog.overlays.values():
        crit = o.doc.spec.criteria
        if crit is None:
            continue
        agrees = all(
            crit.value(f) in ("", "any") or query.value(f) in ("any", crit.value(f).lower())
            for f in FIELDS
        )
        if agrees:
            options.append(crit.flags())
    if not options:
        options = [
            o.doc.spec.criteria.flags() for o in catalog.overlays.values() if o.doc.spec.criteria
        ]
    listing = "\n  ".join(sorted(set(options)))
    return f"no overlay matches {query.flags()}; valid completions:\n  {listing}"


def _apply_mixins(catalog: Catalog, merged: MergedSpec) -> None:
    for name in merged.mixins:
        mixin = catalog.mixins[name]
        spec = mixin.doc.spec
        for i, constraint in enumerate(spec.constraints):
            if constraint.name in merged.constraints:
                raise RecipeError(
                    f"{mixin.rel}: spec.constraints[{i}].name: constraint {constraint.name!r} "
                    "conflicts with the inheritance chain or another mixin"
                )
        for i, ref in enumerate(spec.componentRefs):
            offending = mixin_conflict(ref) if ref.name in merged.components else None
            if offending:
                raise RecipeError(
                    f"{mixin.rel}: spec.componentRefs[{i}].{offending}: a mixin may only add "
                    f"namespace, manifestFiles or preManifestFiles to component {ref.name!r}, "
                    "which the overlay chain already declares"
                )
        merged.add(spec.constraints, spec.componentRefs)


def _finalize(
    catalog: Catalog, query: RecipeCriteria, merged: MergedSpec, applied: list[str]
) -> RecipeResult:
    deps = {name: ref.dependencyRefs for name, ref in merged.components.items()}
    disabled = [n for n, ref in merged.components.items() if not ref.is_enabled()]
    if disabled:
        deployment_order(deps)  # AICR refuses unknown dependencies and cycles among all
    order = deployment_order(deps, set(disabled))
    refs = [with_defaults(catalog, r) for r in merged.components.values()]
    if semantics_of(catalog).inline_health_checks:
        refs = [with_health_check(catalog, r) for r in refs]
    return RecipeResult(
        metadata=ResultMetadata(appliedOverlays=applied, disabledComponents=sorted(disabled)),
        criteria=query,
        constraints=list(merged.constraints.values()),
        componentRefs=[r for r in refs if r.name not in disabled],
        disabledRefs=[r for r in refs if r.name in disabled],
        deploymentOrder=order,
        validation=merged.validation,
        refOrder=[r.name for r in refs],
    )
