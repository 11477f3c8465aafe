"""The changed part of a plan graph as a Mermaid flowchart, for the markdown diff.

Only the changed resources, their direct dependencies and dependents (as context), and the
edges that touch a changed resource: a PR comment shows what the change reaches, not the
whole graph.
"""

from __future__ import annotations

from stacks.offline.diff.changes import PlanDiff, ResourceChange, identity_deps
from stacks.offline.snapshot.graph import identity_keys
from stacks.offline.snapshot.shape import Snapshot

_CONTEXT_LIMIT = 60  # past this many changed resources, neighbours are left out
_STYLE = {
    "create": "added",
    "delete": "removed",
    "replace": "replaced",
    "may-replace": "mayreplace",
}


def render_changed_mermaid(d: PlanDiff, base: Snapshot, head: Snapshot) -> str:
    """The changed resources, their direct dependencies and dependents (as context), and
    the edges between them: solid as in head, dotted where base had an edge head lacks."""
    # Resources by identity chain, so a base planned with the old URN spelling (or under
    # another stack name) draws each resource once, as the diff compares them.
    chain = {**identity_keys(base), **identity_keys(head)}
    info = {chain[r["urn"]]: r for r in (*base["resources"], *head["resources"])}
    old_deps, new_deps = identity_deps(base), identity_deps(head)
    # A default provider is in neither plan (`lifecycle._default_providers`): not drawn.
    style = {chain[r.key]: _STYLE.get(r.op, "changed") for r in d.resources if r.key in chain}
    shown = set(style)
    if len(shown) <= _CONTEXT_LIMIT:
        for deps in (old_deps, new_deps):
            for key, on in deps.items():
                if key in style:
                    shown |= on  # what a changed resource waits for
                if on & style.keys():
                    shown.add(key)  # what waits for a changed resource
    keys = sorted(shown & set(info))
    ids = {k: f"n{i}" for i, k in enumerate(keys)}
    lines = ["flowchart TD"]
    maybe = {chain[r.key]: r for r in d.resources if r.op == "may-replace" and r.key in chain}
    for k in keys:
        name = str(info[k]["name"]).replace('"', "'")
        kind = str(info[k]["type"]).split(":")[-1]
        comments, more = _may_replace(ids[k], maybe[k]) if k in maybe else ([], "")
        lines += comments
        lines.append(
            f'  {ids[k]}["{name}<br/><small>{kind}</small>{more}"]:::{style.get(k, "context")}'
        )
    for k in keys:  # only edges that touch a changed resource
        now, before = new_deps.get(k, set()), old_deps.get(k, set())
        for dep in sorted(now & set(ids)):
            if k in style or dep in style:
                lines.append(f"  {ids[dep]} --> {ids[k]}")
        for dep in sorted((before - now) & set(ids)):
            if k in style or dep in style:
                lines.append(f"  {ids[dep]} -.-> {ids[k]}")
    lines += [
        "  classDef added fill:#dafbe1,stroke:#1a7f37",
        "  classDef removed fill:#ffebe9,stroke:#cf222e,stroke-dasharray:4 3",
        "  classDef replaced fill:#ffebe9,stroke:#cf222e,stroke-width:3px",
        "  classDef changed fill:#fff8c5,stroke:#9a6700",
        "  classDef context fill:#f6f8fa,stroke:#d0d7de,color:#57606a",
    ]
    if maybe:
        lines.append(f"  classDef mayreplace {MAY_REPLACE_STYLE}")
    return "\n".join(lines) + "\n"


MAY_REPLACE_STYLE = "fill:#fff1e5,stroke:#bc4c00,stroke-width:3px,stroke-dasharray:6 3"


def _may_replace(node: str, r: ResourceChange) -> tuple[list[str], str]:
    """A `may-replace` node's reason: the inputs that may force it in its label, and each
    with why the plans cannot know in a comment beside it."""
    paths = ", ".join(p for p, _ in r.maybe) or "no rules for its type"
    label = f"<br/><small>may replace: {paths}</small>".replace('"', "'")
    comments = [
        f"  %% {node} may replace, {path}: {why}".replace("\n", " ") for path, why in r.maybe
    ]
    if r.cannot_predict:
        comments.append(f"  %% {node} cannot be predicted: no replacement rules for {r.type}")
    return comments, label
