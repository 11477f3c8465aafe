"""An oracle of AICR's resolver (`aicr recipe` + `aicr query`), in two releases.

A line-by-line reading of AICR's Go source over the raw YAML of a catalog, sharing no
code with `recipes/`: `MetadataStore.BuildRecipeResult`, `FindMatchingOverlays`,
`RecipeMetadataSpec.Merge`, `mergeComponentRef`, `deepMergeMap`, `TopologicalSort`,
`ApplyRegistryDefaults`, `ComponentConfig.GetType` and `GetValuesForComponent` /
`mergeValues` (`pkg/recipe/metadata.go`, `metadata_store.go`, `components.go`,
`criteria.go`). `V0_11_1` is the tag v0.11.1 (bc05c6be, 2026-03-21); `JULY_2026` is main of
July 2026. What differs between them is each named with the AICR change that made it:

- candidates: every match (v0.11.1) / maximal leaves only (PR #496); both sorted by
  specificity. v0.11.1 left equal specificities in map order; the oracle takes them in
  both name orders and insists the result is the same;
- validation phases: replaced (v0.11.1) / merged field by field (issue #1000);
- values: a null in a later layer kept (v0.11.1) / deleting the key (PR #458);
- health checks: not in the recipe (v0.11.1) / the registry's assert file inlined (#1231);
- mixins (ADR-005), `preManifestFiles`, `healthCheckSkip`, disabled components left out of
  the deployment order (#1465): after v0.11.1, whose catalog uses none of them.

Query parsing (value lists, the OS guard) is not modelled: it decides whether a query is
answered, and the sets asked here are each overlay's own criteria.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

FIELDS = ("service", "accelerator", "intent", "os", "platform")
_SCALARS = ("namespace", "chart", "type", "source", "version", "tag", "valuesFile", "path")
_APPENDED = ("dependencyRefs", "manifestFiles", "preManifestFiles")


@dataclass(frozen=True)
class Release:
    """The rules of one AICR release that differ from the other's."""

    maximal_leaves: bool
    fieldwise_validation: bool
    null_deletes: bool
    inline_health_checks: bool
    mixins: bool
    disabled_out_of_order: bool


V0_11_1 = Release(False, False, False, False, False, False)
JULY_2026 = Release(True, True, True, True, True, True)


@dataclass
class Data:
    """A catalog directory read raw: overlays and mixins by name, registry entries by name."""

    root: Path
    base: dict[str, Any]
    overlays: dict[str, dict[str, Any]]
    mixins: dict[str, dict[str, Any]]
    registry: dict[str, dict[str, Any]]

    @classmethod
    def load(cls, root: Path) -> Data:
        docs = [yaml.safe_load(p.read_text()) for p in sorted(root.glob("overlays/*.yaml"))]
        mixins = [yaml.safe_load(p.read_text()) for p in sorted(root.glob("mixins/*.yaml"))]
        registry = yaml.safe_load((root / "registry.yaml").read_text())["components"]
        overlays = {d["metadata"]["name"]: d for d in docs}
        return cls(
            root,
            overlays.pop("base"),
            overlays,
            {m["metadata"]["name"]: m for m in mixins},
            {c["name"]: c for c in registry},
        )

    def yaml(self, rel: str) -> Any:
        path = self.root / rel
        return yaml.safe_load(path.read_text()) if path.is_file() else None


def _is_any(value: Any) -> bool:
    return value in (None, "", "any")


def matches(recipe: dict[str, Any], query: dict[str, Any]) -> bool:
    """`Criteria.Matches`: a recipe wildcard matches all; a query wildcard only wildcards."""
    for f in FIELDS:
        r, q = recipe.get(f), query.get(f)
        if not _is_any(r) and (_is_any(q) or r != q):
            return False
    nodes = recipe.get("nodes", 0) or 0
    return nodes == 0 or nodes == (query.get("nodes") or 0)


def specificity(criteria: dict[str, Any]) -> int:
    return sum(not _is_any(criteria.get(f)) for f in FIELDS) + bool(criteria.get("nodes"))


def chain(data: Data, name: str) -> list[dict[str, Any]]:
    """`resolveInheritanceChain` without the root: root-most first."""
    out: list[dict[str, Any]] = []
    while name and name != "base":
        doc = data.overlays[name]
        out.insert(0, doc)
        name = doc["spec"].get("base", "")
    return out


def candidates(data: Data, query: dict[str, Any], rel: Release, reverse: bool) -> list[str]:
    found = [n for n, d in data.overlays.items() if matches(d["spec"].get("criteria") or {}, query)]
    found = [n for n in found if data.overlays[n]["spec"].get("criteria") is not None]
    if rel.maximal_leaves:
        ancestors = {a["metadata"]["name"] for n in found for a in chain(data, n)[:-1]}
        found = [n for n in found if n not in ancestors]
    found.sort(reverse=reverse)  # the order equal specificities keep
    return sorted(found, key=lambda n: specificity(data.overlays[n]["spec"]["criteria"]))


def deep_merge_map(dst: dict[str, Any], src: dict[str, Any]) -> None:
    """`deepMergeMap`: maps recurse; anything else (a null too) is set."""
    for key, value in src.items():
        if isinstance(value, dict) and isinstance(dst.get(key), dict):
            deep_merge_map(dst[key], value)
        else:
            dst[key] = copy.deepcopy(value)


def merge_ref(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    """`mergeComponentRef`."""
    out = copy.deepcopy(base)
    for key in _SCALARS:
        if top.get(key):
            out[key] = top[key]
    if top.get("overrides"):
        deep_merge_map(out.setdefault("overrides", {}), top["overrides"])
    for key in ("patches", "expectedResources"):
        if top.get(key):
            out[key] = list(top[key])
    for key in _APPENDED:
        if top.get(key):
            out[key] = list(dict.fromkeys([*out.get(key, []), *top[key]]))
    for key in ("cleanup", "healthCheckSkip"):
        if top.get(key):
            out[key] = True
    if top.get("healthCheckAsserts"):
        out["healthCheckAsserts"] = top["healthCheckAsserts"]
    return out


def merge_phase(base: dict[str, Any] | None, top: dict[str, Any] | None) -> Any:
    """`mergeValidationPhase` (issue #1000)."""
    if top is None:
        return base
    if base is None:
        return copy.deepcopy(top)
    out = {k: top.get(k) or base.get(k) for k in ("timeout", "infrastructure")}
    out["nodeSelection"] = copy.deepcopy(top.get("nodeSelection") or base.get("nodeSelection"))
    checks = [*(base.get("checks") or []), *(top.get("checks") or [])]
    if top.get("checks") == []:  # an explicit empty list clears; an omitted one inherits
        out["checks"] = []
    elif checks:
        out["checks"] = list(dict.fromkeys(checks))
    merged: dict[str, Any] = {c["name"]: c for c in base.get("constraints") or []}
    merged.update({c["name"]: c for c in top.get("constraints") or []})
    if top.get("constraints") == []:
        out["constraints"] = []
    elif merged:
        out["constraints"] = list(merged.values())
    return {k: v for k, v in out.items() if v is not None}


class Spec:
    """The `RecipeMetadataSpec` being merged."""

    def __init__(self, base: dict[str, Any]) -> None:  # initBaseMergedSpec
        self.constraints = {c["name"]: c for c in base.get("constraints") or []}
        self.refs = {r["name"]: copy.deepcopy(r) for r in base.get("componentRefs") or []}
        self.validation: dict[str, Any] | None = copy.deepcopy(base.get("validation"))
        self.mixins: list[str] = []

    def merge(self, spec: dict[str, Any], rel: Release) -> None:
        for c in spec.get("constraints") or []:
            self.constraints[c["name"]] = c
        self.constraints = dict(sorted(self.constraints.items()))
        for r in spec.get("componentRefs") or []:
            old = self.refs.get(r["name"])
            self.refs[r["name"]] = copy.deepcopy(r) if old is None else merge_ref(old, r)
        self.refs = dict(sorted(self.refs.items()))
        top = spec.get("validation")
        if top is not None and self.validation is None:
            self.validation = copy.deepcopy(top)
        elif top is not None and self.validation is not None:
            for phase, block in top.items():
                if block is not None:
                    old = self.validation.get(phase)
                    fieldwise = rel.fieldwise_validation
                    self.validation[phase] = merge_phase(old, block) if fieldwise else block
        if rel.mixins:
            self.mixins += [m for m in spec.get("mixins") or [] if m not in self.mixins]


def enabled(ref: dict[str, Any]) -> bool:
    return (ref.get("overrides") or {}).get("enabled") is not False


def topological_sort(refs: list[dict[str, Any]]) -> list[str]:
    """`TopologicalSort`: Kahn's algorithm, the ready queue kept sorted."""
    names = {r["name"] for r in refs}
    degree = {r["name"]: len([d for d in r.get("dependencyRefs", []) if d in names]) for r in refs}
    order: list[str] = []
    queue = sorted(n for n, d in degree.items() if d == 0)
    while queue:
        node = queue.pop(0)
        order.append(node)
        for r in refs:
            if node in r.get("dependencyRefs", []):
                degree[r["name"]] -= 1
                if degree[r["name"]] == 0:
                    queue = sorted([*queue, r["name"]])
    return order


def registry_defaults(ref: dict[str, Any], config: dict[str, Any] | None) -> dict[str, Any]:
    """`ApplyRegistryDefaults` with `GetType`: Kustomize when it has a default source."""
    if config is None:
        return ref
    assert not config.get("manifestFiles"), "registry manifestFiles: not modelled"
    kust = config.get("kustomize") or {}
    out = dict(ref, type=ref.get("type") or ("Kustomize" if kust.get("defaultSource") else "Helm"))
    helm = config.get("helm") or {}
    pairs = {
        "Helm": {
            "source": helm.get("defaultRepository"),
            "version": helm.get("defaultVersion"),
            "namespace": helm.get("defaultNamespace"),
            "chart": (helm.get("defaultChart") or "").rsplit("/", 1)[-1],
        },
        "Kustomize": {
            "source": kust.get("defaultSource"),
            "tag": kust.get("defaultTag"),
            "path": kust.get("defaultPath"),
        },
    }[out["type"]]
    for key, default in pairs.items():
        if not out.get(key) and default:
            out[key] = default
    return out


def merge_values(dst: dict[str, Any], src: dict[str, Any], null_deletes: bool) -> None:
    """`mergeValues`: v0.11.1 sets a null like any value; PR #458 made it delete the key."""
    for key, value in src.items():
        if value is None and null_deletes:
            dst.pop(key, None)
        elif isinstance(value, dict) and isinstance(dst.get(key), dict):
            merge_values(dst[key], value, null_deletes)
        else:
            dst[key] = copy.deepcopy(value)


def values(data: Data, ref: dict[str, Any], rel: Release) -> dict[str, Any]:
    """`GetValuesForComponent`: base values.yaml, then valuesFile, then overrides."""
    out: dict[str, Any] = {}
    if ref.get("valuesFile"):
        default = f"components/{ref['name']}/values.yaml"
        out = copy.deepcopy(data.yaml(default) or {})
        if ref["valuesFile"] != default:
            merge_values(out, data.yaml(ref["valuesFile"]) or {}, rel.null_deletes)
    if ref.get("overrides"):
        merge_values(out, ref["overrides"], rel.null_deletes)
    return out


def _build(data: Data, query: dict[str, Any], rel: Release, reverse: bool) -> dict[str, Any]:
    spec = Spec(data.base["spec"])
    applied = ["base"]
    for name in candidates(data, query, rel, reverse):
        for doc in chain(data, name):
            if doc["metadata"]["name"] not in applied:
                spec.merge(doc["spec"], rel)
                applied.append(doc["metadata"]["name"])
    for name in spec.mixins:
        spec.merge(data.mixins[name]["spec"], rel)
    refs = [registry_defaults(r, data.registry.get(r["name"])) for r in spec.refs.values()]
    on = [r for r in refs if enabled(r)] if rel.disabled_out_of_order else refs
    for ref in refs:
        config = data.registry.get(ref["name"]) or {}
        assert_file = (config.get("healthCheck") or {}).get("assertFile")
        skip = ref.get("healthCheckSkip") or ref.get("healthCheckAsserts")
        if rel.inline_health_checks and assert_file and not skip:
            ref["healthCheckAsserts"] = (data.root / assert_file).read_text()
    return {
        "appliedOverlays": applied,
        "constraints": list(spec.constraints.values()),
        "componentRefs": refs,
        "deploymentOrder": topological_sort(on),
        "validation": spec.validation,
        "values": {r["name"]: values(data, r, rel) for r in refs},
    }


def build(data: Data, query: dict[str, Any], rel: Release) -> dict[str, Any]:
    """The recipe for `query`, the same whichever order equal specificities are taken in."""
    result = _build(data, query, rel, reverse=False)
    assert result == _build(data, query, rel, reverse=True), "result depends on map order"
    return result
