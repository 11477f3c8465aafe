"""Both shared AICR catalogs, set by set: each overlay's own criteria resolve as the AICR
release of the catalog's format resolves them (`tests/oracles/aicr_resolver.py`, a reading
of AICR's Go source sharing no code with `recipes/`): v0.11.1's catalog as v0.11.1, the
July 2026 catalog as July 2026's AICR. Compared: the applied overlays, the constraints,
every componentRef (defaults and health checks included), the deployment order, the
validation phases and every component's hydrated Helm values, nulls and all."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from recipes import Catalog, RecipeError, component_values, resolve
from recipes.criteria import FIELDS
from recipes.guards import NO_CRITERIA
from tests.oracles.aicr_resolver import JULY_2026, V0_11_1, Data, Release, build
from tests.recipes.aicr_overlays import OVERLAYS_2026
from tests.recipes.test_recipe_aicr import OVERLAYS

CASES = [("aicr", name) for name in OVERLAYS] + [("aicr2026", name) for name in OVERLAYS_2026]
RELEASES: dict[str, tuple[str, Release]] = {
    "aicr": ("aicr_dir", V0_11_1),
    "aicr2026": ("aicr2026_dir", JULY_2026),
}


@cache
def _data(root: Path) -> Data:
    return Data.load(root)


def _pruned(value: Any, keep: tuple[str, ...] = ("overrides",)) -> Any:
    """`omitempty`: empty fields dropped; inside `keep` fields, whose content counts as
    written (a null override), nothing is."""
    if isinstance(value, dict):
        out = {k: v if k in keep else _pruned(v, keep) for k, v in value.items()}
        return {k: v for k, v in out.items() if v not in (None, "", [], {}, False)}
    if isinstance(value, list):
        return [_pruned(v, keep) for v in value]
    return value


@pytest.mark.parametrize(("fixture", "name"), CASES)
def test_each_set_resolves_as_its_aicr_release(
    request: pytest.FixtureRequest, fixture: str, name: str
) -> None:
    catalog: Catalog = request.getfixturevalue(fixture)
    root_fixture, release = RELEASES[fixture]
    data = _data(request.getfixturevalue(root_fixture))
    criteria = catalog.overlays[name].doc.spec.criteria
    assert criteria is not None
    if criteria.normalized().specificity() == 0:  # monitoring-hpa: `intent: any` pins nothing
        with pytest.raises(RecipeError, match=f"^{re.escape(NO_CRITERIA)}$"):
            resolve(catalog, criteria)
        return
    query: dict[str, Any] = {f: criteria.value(f).lower() for f in FIELDS}
    query["nodes"] = criteria.nodes
    expected = build(data, query, release)
    result = resolve(catalog, criteria)
    assert result.metadata.appliedOverlays == expected["appliedOverlays"]
    assert result.deploymentOrder == expected["deploymentOrder"]
    ours = [c.model_dump(mode="json") for c in result.constraints]
    assert _pruned(ours) == _pruned(expected["constraints"])
    refs = [r.model_dump(mode="json") for r in result.all_refs()]
    assert _pruned(refs) == _pruned(expected["componentRefs"])
    validation = result.validation.model_dump(mode="json") if result.validation else None
    assert _pruned(validation, ()) == _pruned(expected["validation"], ())
    values = {r.name: component_values(catalog, result, r.name) for r in result.all_refs()}
    assert values == expected["values"]
