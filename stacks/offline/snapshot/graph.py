"""A snapshot's graph as a reader needs it: components whole, identities, run order.

The tree, the Mermaid pictures and the diff read these, never the raw dependency lists:
`depends_on=[component]` reaches the engine as every resource inside it, the same
resource has two URN spellings across old and new snapshots, and a diff lists changes in
the order `pulumi up` runs them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stacks.offline.snapshot.shape import Snapshot


def _children(snap: Snapshot) -> dict[str, list[str]]:
    urns = {r["urn"] for r in snap["resources"]}
    kids: dict[str, list[str]] = {}
    for r in snap["resources"]:
        if r["parent"] in urns:
            kids.setdefault(r["parent"], []).append(r["urn"])
    return kids


def _ancestors(snap: Snapshot) -> dict[str, set[str]]:
    parent = {r["urn"]: r["parent"] for r in snap["resources"]}
    out: dict[str, set[str]] = {}
    for urn in parent:
        seen: set[str] = set()
        p = parent.get(urn, "")
        while p in parent and p not in seen:
            seen.add(p)
            p = parent[p]
        out[urn] = seen
    return out


def collapsed_dependencies(snap: Snapshot) -> dict[str, list[str]]:
    """Each resource's dependencies, with a whole component shown as the component.

    `depends_on=[component]` reaches the engine as every resource inside it; for reading,
    a set of dependencies that covers everything inside a component becomes that
    component (the outermost one that is fully covered).
    """
    kids = _children(snap)
    ancestors = _ancestors(snap)

    def leaves(urn: str) -> set[str]:
        found: set[str] = set()
        for kid in kids.get(urn, []):
            found |= leaves(kid) if kid in kids else {kid}
        return found

    components = sorted(kids, key=lambda u: len(ancestors[u]))
    inside = {c: leaves(c) for c in components}
    out: dict[str, list[str]] = {}
    for r in snap["resources"]:
        deps = set(r["dependencies"])
        for comp in components:
            if comp in ancestors[r["urn"]] or comp == r["urn"]:
                continue
            if inside[comp] and inside[comp] <= deps:
                deps = (deps - inside[comp]) | {comp}
        out[r["urn"]] = sorted(deps)
    return out


def identity_keys(snap: Mapping[str, Any]) -> dict[str, tuple[tuple[str, str], ...]]:
    """Each resource's (type, name) chain from the stack down: the same resource under both
    URN spellings (the mock engine's, which kept only the parent's last type and prefixed
    the stack's, and the engine's, which keeps the whole chain)."""
    by_urn = {r["urn"]: r for r in snap["resources"]}
    out: dict[str, tuple[tuple[str, str], ...]] = {}

    def key(urn: str, seen: frozenset[str] = frozenset()) -> tuple[tuple[str, str], ...]:
        if urn in out:
            return out[urn]
        r = by_urn[urn]
        parent = r.get("parent") or ""
        own = ((str(r["type"]), str(r["name"])),)
        inside = parent in by_urn and parent not in seen
        result = key(parent, seen | {urn}) + own if inside else own
        out[urn] = result
        return result

    for urn in by_urn:
        key(urn)
    return out


def run_order(snap: Mapping[str, Any]) -> list[str]:
    """URNs so that each comes after what it depends on, its parent and its provider."""
    resources = {r["urn"]: r for r in snap["resources"]}
    deps: dict[str, set[str]] = {}
    for urn, r in resources.items():
        on = set(r.get("dependencies") or [])
        for value in (r.get("propertyDependencies") or {}).values():
            on |= set(value)
        on.add(r.get("parent") or "")
        on.add((r.get("options") or {}).get("provider") or "")
        deps[urn] = on & set(resources)
    order: list[str] = []
    pending = set(resources)
    while pending:
        ready = sorted(u for u in pending if not deps[u] & pending) or sorted(pending)[:1]
        order += ready
        pending -= set(ready)
    return order
