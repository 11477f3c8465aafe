"""The queries AICR refuses before merging anything.

- No criteria at all (`aicr recipe` with no flag): AICR's CLI refuses it rather than return
  the bare root recipe (`buildRecipeFromCmdWithConfig`).
- The OS guard (AICR's `requireOSIfNeeded`, in the July 2026 resolver): a query that states
  a service but no OS, where no matching overlay carries that service with that accelerator
  (`any` for none) and overlays exist that an OS would reach, is refused naming the OSes
  (`service 'gke' has no OS-agnostic recipe for accelerator 'h100'; specify an OS (valid:
  cos)`). Answering it would drop the OS-gated overlays silently, and on an OS such as COS
  the driver story differs (AICR's reason; ADR-020 later generalised the rule).
"""

from __future__ import annotations

from collections.abc import Iterable

from recipes.catalogs.catalog import Catalog, Overlay
from recipes.errors import RecipeError
from recipes.model.criteria import ANY, RecipeCriteria

NO_CRITERIA = (
    "no criteria provided: specify at least one of --service, --accelerator (--gpu), "
    "--intent, --os, --platform or --nodes"
)


def _open(value: str) -> str:
    return "" if value in ("", ANY) else value.lower()


def require_criteria(query: RecipeCriteria) -> None:
    """Refuse a query that pins nothing."""
    if query.specificity() == 0:
        raise RecipeError(NO_CRITERIA)


def os_choices(catalog: Catalog, query: RecipeCriteria) -> list[str]:
    """The OSes an OS-gated overlay would match the query with (AICR's
    `availableOSForCriteria`)."""
    found = set()
    for overlay in catalog.overlays.values():
        crit = overlay.doc.spec.criteria
        if crit is None or _open(crit.os) == "":
            continue
        if crit.matches(query.model_copy(update={"os": crit.os.lower()})):
            found.add(crit.os.lower())
    return sorted(found)


def require_os_if_needed(
    catalog: Catalog, query: RecipeCriteria, matched: Iterable[Overlay]
) -> None:
    """AICR's `requireOSIfNeeded` over the matched overlays (the maximal leaves)."""
    service = _open(query.service)
    if not service or _open(query.os):
        return
    accelerator = _open(query.accelerator)
    for overlay in matched:
        crit = overlay.doc.spec.criteria
        if crit is None:
            continue
        if _open(crit.service) == service and _open(crit.accelerator) == accelerator:
            return
    choices = os_choices(catalog, query)
    if choices:
        raise RecipeError(
            f"service {service!r} has no OS-agnostic recipe for accelerator "
            f"{accelerator or ANY!r}; specify an OS (valid: {', '.join(choices)})"
        )
