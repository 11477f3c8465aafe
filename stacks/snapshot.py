"""The plan snapshot: a deterministic, secret-free JSON record of a planned graph.

Format: `{"project", "stack", "resources": [{"urn", "type", "name", "parent",
"dependencies": [urn...], "inputs": {...}}], "outputs": {...}}`, resources sorted by URN,
secrets replaced by "[secret]". The same config gives the same bytes on every run, so two
snapshots can be diffed in a pull request.
"""

from __future__ import annotations

import json
from typing import Any

from stacks.mocks import ProgramRun, mask

Snapshot = dict[str, Any]


def snapshot_of(run: ProgramRun) -> Snapshot:
    resources = [
        {
            "urn": r.urn,
            "type": r.type,
            "name": r.name,
            "parent": r.parent,
            "dependencies": sorted(set(r.dependencies)),
            "inputs": mask(r.inputs),
        }
        for r in run.registrations
    ]
    return {
        "project": run.project,
        "stack": run.stack,
        "resources": sorted(resources, key=lambda r: r["urn"]),
        "outputs": mask(run.exports),
    }


def dumps(snapshot: Snapshot) -> str:
    return json.dumps(snapshot, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


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
