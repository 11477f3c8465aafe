"""Resolving a query against a catalog into a RecipeResult, with AICR's semantics.

1. Every pinned query value must appear in some overlay's criteria; otherwise the query is
   a typo or unsupported and fails listing the values the catalog knows.
2. Overlays whose criteria match (asymmetrically, see `recipes.criteria`) are candidates.
   Candidates that are an ancestor of another candidate are dropped (their content still
   arrives through the descendant's chain), the rest sorted least specific first, then by
   name. Starting from the root overlay `base`, each candidate's chain is merged root
   first, skipping overlays already merged. Mixins named along the chains are applied last.
3. Dependencies are checked and ordered, disabled components dropped, and empty fields
   filled from the registry.

Choices between AICR versions (v0.11.1 catalog vs the resolver on AICR's main branch):
- Ancestor filtering ("maximal leaves") is the newer resolver's; the older one applied each
  matching ancestor as its own candidate. For every v0.11.1 query both give the same order.
- `overrides` are deep-merged between overlays (newer); the oldest resolver merged them
  one level deep, which would drop sibling keys such as `driver.rdma` under `driver`.
- `dependencyRefs` are appended without duplicates (newer resolver), not replaced (v0.11.1,
  FIELD-NOTES §4): every v0.11.1 overlay that sets them restates a superset, so results are
  the same, and appending lets the project's catalog add `gpu-time-slicing` to the GPU
  operator's dependencies without naming AICR-only components, which would be unknown when
  the project's catalog is used alone.
- A validation phase a later overlay declares replaces the earlier one (v0.11.1, FIELD-NOTES
  §4); the newer resolver merges phases field by field.
- A mixin may not redefine a constraint of the chain, and may add to a component the
  chain declares only its namespace and manifestFiles (newer resolver, ADR-005).
- A catalog set without `overlays/base.yaml` has an empty root instead of failing as AICR
  does, so the project's catalog resolves on its own and, layered over AICR's, extends
  AICR's base rather than replacing it.
- A query that matches no overlay is an error listing the criteria the catalog supports;
  AICR only warns and returns the base recipe.
- Components disabled with `overrides.enabled: false` are removed from componentRefs and
  deploymentOrder (listed in metadata.disabledComponents), and dependencies on them are
  dropped; AICR keeps them in the result and filters them when bundling.
- A registry `manifest.defaultNamespace` fills the namespace of manifest-only components.
"""

from __future__ import annotations

from functools import lru_cache

from core.errors import did_you_mean
from recipes.catalog import Catalog, Overlay, chain_of
from recipes.criteria import FIELDS, RecipeCriteria
from recipes.errors import RecipeError
from recipes.merge import MIXIN_SAFE_FIELDS, MergedSpec
from recipes.model import ComponentRef
from recipes.ordering import deployment_order
from recipes.result import RecipeResult, ResultMetadata


def resolve(catalog: Catalog, criteria: RecipeCriteria) -> RecipeResult:
    """The recipe for `criteria` (a fresh copy each call; safe to mutate)."""
    return _resolve_cached(catalog, criteria.normalized()).model_copy(deep=True)


@lru_cache(maxsize=256)
def _resolve_cached(catalog: Catalog, query: RecipeCriteria) -> RecipeResult:
    check_query(catalog, query)
    candidates = matching_overlays(catalog, query)
    if not candidates:
        raise RecipeError(no_match_message(catalog, query))
    merged = MergedSpec()
    applied: list[str] = []
    if catalog.base is not None:
        merged.apply(catalog.base.doc.spec)
        applied.append(catalog.base.name)
    for candidate in candidates:
        for overlay in chain_of(catalog, candidate.name):
            if overlay.name not in applied:
                merged.apply(overlay.doc.spec)
                applied.append(overlay.name)
    _apply_mixins(catalog, merged)
    return _finalize(catalog, query, merged, applied)


def check_query(catalog: Catalog, query: RecipeCriteria) -> None:
    """Fail on a pinned value no overlay mentions, listing the valid ones."""
    for f in FIELDS:
        value = query.value(f)
        if value == "any" or value in catalog.vocabulary[f]:
            continue
        valid = sorted(catalog.vocabulary[f])
        hint = did_you_mean(value, valid)
        tail = f" (did you mean {hint!r}?)" if hint else ""
        raise RecipeError(
            f"--{f} {value}: no overlay in the catalog supports it{tail}; "
            f"valid values: {', '.join(valid) if valid else 'none'} (or any)"
        )


def matching_overlays(catalog: Catalog, query: RecipeCriteria) -> list[Overlay]:
    """Matching overlays minus ancestors of other matches, least specific first."""
    matches = [
        o
        for o in catalog.overlays.values()
        if o.doc.spec.criteria is not None and o.doc.spec.criteria.matches(query)
    ]
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
                    f"{mixin.rel}: spec.constraints[{i}].name: constraint "
                    f"{constraint.name!r} is already set by the overlay chain"
                )
        for i, ref in enumerate(spec.componentRefs):
            extra = sorted(ref.model_fields_set - MIXIN_SAFE_FIELDS)
            if ref.name in merged.components and extra:
                raise RecipeError(
                    f"{mixin.rel}: spec.componentRefs[{i}].{extra[0]}: mixin may only add "
                    f"namespace or manifestFiles to component {ref.name!r}, which the "
                    "overlay chain already declares"
                )
        merged.add(spec.constraints, spec.componentRefs)


def _finalize(
    catalog: Catalog, query: RecipeCriteria, merged: MergedSpec, applied: list[str]
) -> RecipeResult:
    disabled = sorted(n for n, c in merged.components.items() if not c.is_enabled())
    refs = {
        name: _with_defaults(catalog, ref)
        for name, ref in sorted(merged.components.items())
        if name not in disabled
    }
    for name, ref in refs.items():
        unknown = [d for d in ref.dependencyRefs if d not in refs and d not in disabled]
        if unknown:
            raise RecipeError(
                f"component {name!r} depends on unknown component(s): {', '.join(unknown)}"
            )
        if any(d in disabled for d in ref.dependencyRefs):
            kept = [d for d in ref.dependencyRefs if d not in disabled]
            refs[name] = ref.model_copy(update={"dependencyRefs": kept})
    order = deployment_order({n: r.dependencyRefs for n, r in refs.items()})
    return RecipeResult(
        metadata=ResultMetadata(appliedOverlays=applied, disabledComponents=disabled),
        criteria=query,
        constraints=[merged.constraints[n] for n in sorted(merged.constraints)],
        componentRefs=list(refs.values()),
        deploymentOrder=order,
        validation=merged.validation,
    )


def _with_defaults(catalog: Catalog, ref: ComponentRef) -> ComponentRef:
    config = catalog.registry[ref.name]
    kind = ref.type or config.default_type()
    update: dict[str, object] = {"type": kind}
    if kind == "Helm" and config.helm is not None:
        helm = config.helm
        chart = helm.defaultChart.rsplit("/", 1)[-1]
        for name, default in (
            ("source", helm.defaultRepository),
            ("version", helm.defaultVersion),
            ("namespace", helm.defaultNamespace),
            ("chart", chart),
        ):
            if not getattr(ref, name) and default:
                update[name] = default
    if kind == "Kustomize" and config.kustomize is not None:
        kust = config.kustomize
        for name, default in (
            ("source", kust.defaultSource),
            ("tag", kust.defaultTag),
            ("path", kust.defaultPath),
        ):
            if not getattr(ref, name) and default:
                update[name] = default
    if not ref.namespace and "namespace" not in update and config.manifest is not None:
        update["namespace"] = config.manifest.defaultNamespace
    return ref.model_copy(update=update)
