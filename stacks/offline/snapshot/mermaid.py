"""Render a snapshot's graph as a Mermaid flowchart (GitHub renders it in markdown).

Components are subgraphs holding their children; arrows go from a dependency to the
resource that waits for it.
"""

from __future__ import annotations

from typing import Any

from stacks.offline.snapshot.graph import collapsed_dependencies
from stacks.offline.snapshot.shape import Snapshot


def _label(r: dict[str, Any]) -> str:
    short = r["type"].split(":")[-1]
    return f'"{r["name"]}<br/><small>{short}</small>"'


def render_mermaid(snap: Snapshot) -> str:
    resources = snap["resources"]
    ids = {r["urn"]: f"r{i}" for i, r in enumerate(resources)}
    by_urn = {r["urn"]: r for r in resources}
    children: dict[str, list[dict[str, Any]]] = {}
    for r in resources:
        children.setdefault(r["parent"] if r["parent"] in by_urn else "", []).append(r)
    lines = ["flowchart TD"]

    def emit(parent: str, indent: str) -> None:
        for r in children.get(parent, []):
            if r["urn"] in children:
                lines.append(f"{indent}subgraph {ids[r['urn']]}[{_label(r)}]")
                emit(r["urn"], indent + "  ")
                lines.append(f"{indent}end")
            else:
                lines.append(f"{indent}{ids[r['urn']]}[{_label(r)}]")

    emit("", "  ")
    deps_of = collapsed_dependencies(snap)
    for r in resources:
        for dep in deps_of[r["urn"]]:
            if dep in ids:
                lines.append(f"  {ids[dep]} --> {ids[r['urn']]}")
    return "\n".join(lines) + "\n"
