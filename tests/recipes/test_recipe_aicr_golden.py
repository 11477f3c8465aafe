"""AICR itself is the oracle: every criteria set of both shared catalogs resolves as the real
`aicr` binary of the catalog's release resolved it.

The goldens in `tests/golden/aicr/` are the output of `aicr recipe --format json` and `aicr
query --selector '' --format json` (v0.11.1 at bc05c6be for `aicr-v0.11.1/`, main at
23e97a7d for `aicr-main-2026-07-09/`), run over each overlay's own criteria by
`tools/aicr_golden.py`, which says how to refresh them. gpu-ci's `python -m recipes recipe`
and `query --selector ''` (the same CLI, run in-process) must give the same documents, key
order aside: applied overlays, constraints, every componentRef, deployment order,
validation phases and every component's merged values, leaf by leaf. A difference is
allowed only if `ON_PURPOSE` lists it with its reason, and each listed difference must
still occur, so the list cannot outlive the behaviour it excuses.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from core import yaml_text
from recipes.cli import run
from recipes.errors import RecipeError
from recipes.resolution.guards import NO_CRITERIA
from tests.recipes.aicr_overlays import OVERLAYS_2026
from tests.recipes.test_recipe_aicr import OVERLAYS
from tools.aicr_digest import canonical, digest, units
from tools.aicr_golden import CATALOGS, criteria_sets, golden_path

ANY = object()
"""Whatever value that side writes."""
ABSENT = object()
"""The key is not written."""


@dataclass(frozen=True)
class OnPurpose:
    """A difference from `aicr` that gpu-ci makes on purpose, and why."""

    catalogs: tuple[str, ...]
    document: str  # "recipe" or "query"
    path: str  # a regular expression over `part/leaf path`
    aicr: object  # what aicr writes there: a value, ANY or ABSENT
    ours: object  # what gpu-ci writes there: a value, ANY or ABSENT
    reason: str

    def allows(self, catalog: str, document: str, path: str, theirs: str, ours: str) -> bool:
        return (
            catalog in self.catalogs
            and document == self.document
            and re.fullmatch(self.path, path) is not None
            and _is(self.aicr, theirs)
            and _is(self.ours, ours)
        )


def _is(expected: object, recorded: str) -> bool:
    if expected is ANY:
        return recorded != ""
    if expected is ABSENT:
        return recorded == ""
    return recorded == digest(canonical(expected))


BOTH = tuple(CATALOGS)
ON_PURPOSE = (
    OnPurpose(
        BOTH,
        "recipe",
        "/metadata.version",
        ANY,
        ABSENT,
        "aicr stamps its own release (`pkg/cli` version, set by the release build); gpu-ci "
        "is no aicr release and writes none",
    ),
    OnPurpose(
        BOTH,
        "query",
        "/metadata.version",
        ANY,
        "",
        "as in the recipe: aicr's hydrated recipe carries its release, gpu-ci's an empty one",
    ),
    OnPurpose(
        BOTH,
        "query",
        r"/metadata\.(excludedOverlays|constraintWarnings)",
        None,
        [],
        "aicr leaves these slices nil, which its JSON writes as null and its YAML (the "
        "default format, and gpu-ci's only one) as []: gpu-ci prints what `aicr query` prints",
    ),
    OnPurpose(
        ("v0.11.1",),
        "recipe",
        "/apiVersion",
        "aicr.nvidia.com/v1alpha1",
        "aicr.run/v1alpha2",
        "gpu-ci writes one RecipeResult format, today's, whatever catalog it read "
        "(`recipes/model/result.py`); the content is what v0.11.1 resolves",
    ),
    OnPurpose(
        ("v0.11.1",),
        "query",
        "/apiVersion",
        "aicr.nvidia.com/v1alpha1",
        "aicr.run/v1alpha2",
        "as for the recipe: the hydrated recipe names gpu-ci's one result format",
    ),
    OnPurpose(
        ("main-2026-07-09",),
        "recipe",
        r"/metadata\.disabledComponents",
        ABSENT,
        ANY,
        "gpu-ci also names the components a recipe disables (`overrides.enabled: false`), "
        "so its deployer lists them as disabled (`recipes/model/result.py`); aicr marks them only "
        "by that override, which gpu-ci keeps too",
    ),
)

CASES = [("v0.11.1", name) for name in OVERLAYS] + [
    ("main-2026-07-09", name) for name in OVERLAYS_2026
]


@cache
def _golden(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(golden_path(name).read_text(encoding="utf-8"))
    return data


@cache
def _ours(upstream: Path, catalog: str, args: tuple[str, ...]) -> dict[str, Any]:
    """gpu-ci's recipe and hydrated recipe for `args`, as `python -m recipes` prints them."""
    data = ["--data", str(upstream / CATALOGS[catalog])]
    return {
        "recipe": yaml_text.load(run(["recipe", *data, *args], [])),
        "query": yaml_text.load(run(["query", *data, *args, "--selector", ""], [])),
    }


Difference = tuple[str, str, str, str]
"""(document, `part/leaf path`, aicr's digest, gpu-ci's digest); "" where one side has none."""


@cache
def _differences(upstream: Path, catalog: str, name: str) -> tuple[Difference, ...]:
    """Every leaf where gpu-ci and aicr part, on purpose or not."""
    golden = _golden(catalog)
    entry = golden["sets"][name]
    ours = _ours(upstream, catalog, tuple(entry["args"]))
    out = []
    for document in ("recipe", "query"):
        recorded = {part: golden["trees"][t] for part, t in entry.get(document, {}).items()}
        mine = units(ours[document])
        for part in sorted(recorded.keys() | mine.keys()):
            a, b = recorded.get(part, {}), mine.get(part, {})
            for path in sorted(a.keys() | b.keys()):
                if a.get(path) != b.get(path):
                    out.append((document, f"{part}/{path}", a.get(path, ""), b.get(path, "")))
    return tuple(out)


def _excuse(catalog: str, difference: Difference) -> int | None:
    """The index of the ON_PURPOSE entry that allows `difference`, if one does."""
    return next((i for i, o in enumerate(ON_PURPOSE) if o.allows(catalog, *difference)), None)


def _what(theirs: str, ours: str) -> str:
    if not ours:
        return "only aicr writes it"
    return "only gpu-ci writes it" if not theirs else "differs"


@pytest.mark.parametrize(("catalog", "name"), CASES)
def test_each_set_resolves_as_the_real_aicr(upstream: Path, catalog: str, name: str) -> None:
    entry = _golden(catalog)["sets"][name]
    if entry["exit"] != 0:  # monitoring-hpa: `intent: any` pins nothing, aicr refuses
        with pytest.raises(RecipeError, match=f"^{re.escape(NO_CRITERIA)}$"):
            _ours(upstream, catalog, tuple(entry["args"]))
        assert NO_CRITERIA.split(":")[0] in entry["error"]
        return
    ours = _ours(upstream, catalog, tuple(entry["args"]))["recipe"]
    flags = " ".join(entry["args"])
    assert ours["metadata"]["appliedOverlays"] == entry["appliedOverlays"], flags
    assert ours["deploymentOrder"] == entry["deploymentOrder"], flags
    components = [[r["name"], r.get("version", "")] for r in ours["componentRefs"]]
    assert components == entry["components"], flags
    unexpected = [
        f"{name} ({flags}): {document} {path}: {_what(theirs, mine)}"
        for document, path, theirs, mine in _differences(upstream, catalog, name)
        if _excuse(catalog, (document, path, theirs, mine)) is None
    ]
    assert not unexpected, "gpu-ci differs from aicr:\n" + "\n".join(unexpected[:30])


def test_every_difference_on_purpose_still_occurs(upstream: Path) -> None:
    used = {
        _excuse(catalog, difference)
        for catalog, name in CASES
        if _golden(catalog)["sets"][name]["exit"] == 0
        for difference in _differences(upstream, catalog, name)
    }
    stale = [o for i, o in enumerate(ON_PURPOSE) if i not in used]
    assert not stale, f"listed as on purpose but no longer different: {stale}"


@pytest.mark.parametrize("catalog", sorted(CATALOGS))
def test_golden_holds_every_criteria_set_of_its_catalog(upstream: Path, catalog: str) -> None:
    """The sets on record are the catalog's, flag for flag, as the tool enumerates them,
    and the parametrisation above names each one."""
    golden = _golden(catalog)
    assert golden["catalog"] == CATALOGS[catalog]
    sets = criteria_sets(upstream / CATALOGS[catalog])
    assert {k: v["args"] for k, v in golden["sets"].items()} == sets
    assert sorted(sets) == sorted(n for c, n in CASES if c == catalog)
