"""Which inputs of a resource change on the next `pulumi up`, as the lifecycle reads them.

Inputs the plans show differently (less those the old plan could not know), secrets whose
digests differ, and inputs unknown at preview because what they come from changes: each
unknown one with the reason it is only a guess, or none when it is certain.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stacks.offline.lifecycle.delete_first import SECRET, UNKNOWN
from stacks.offline.lifecycle.replacement_rules import Rules
from stacks.offline.snapshot.paths import InputChange, flatten, input_changes, segments

CERTAIN = ""
"""The reason of an input that is certainly unknown at preview (none)."""


def unknown_leaves(inputs: Mapping[str, Any], prop: str) -> list[str]:
    """The leaves under input `prop` that a preview cannot know (or the input itself)."""
    if prop not in inputs:
        return []
    leaves = [
        path for path, value in flatten(inputs[prop], prop).items() if value in (UNKNOWN, SECRET)
    ]
    return leaves or [prop]


def secret_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[InputChange]:
    """Secrets whose digests differ. Only a path with a digest on both sides, of one scheme,
    can be compared: a secret that was unknown (or is no longer), or one digested by an
    older snapshot's scheme, tells nothing (an added or removed secret input shows as an
    input change)."""
    a, b = old.get("secretDigests") or {}, new.get("secretDigests") or {}
    return [
        InputChange(path, SECRET, SECRET)
        for path in sorted(set(a) & set(b))
        if _scheme(a[path]) == _scheme(b[path]) and a[path] != b[path]
    ]


def seen_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[InputChange]:
    """Input changes, less those at or under a path the old plan could not know.

    An input unknown in the old plan was known to the engine (it is in the state); a plan
    of the same resource that knows it now (a newer gpu-ci knows a running VM's address)
    tells nothing about whether it changed, as two unknowns do not. If what it comes from
    changes, it is unknown in the new plan too, and `upstream_unknown` counts it."""
    present = [segments(p) for p in flatten(dict(new))]
    unknown = [
        u
        for u in (segments(p) for p, v in flatten(dict(old)).items() if v == UNKNOWN)
        if any(n[: len(u)] == u for n in present)  # an input no longer given is a change
    ]

    def seen(change: InputChange) -> bool:
        have = segments(change.path)
        return not any(have[: len(u)] == u for u in unknown)

    return [c for c in input_changes(old, new) if seen(c)]


def _scheme(digest: str) -> str:
    """`id1:` of `id1:0123abcd` (empty for the older URN-salted digests)."""
    head, colon, _ = str(digest).rpartition(":")
    return head + colon


def sourceless_unknown(r: Mapping[str, Any]) -> list[str]:
    """Inputs unknown in the plan with no recorded source: a lookup whose arguments hold an
    id the offline preview cannot know. The SDK answers such an invoke with an unknown
    result and no dependencies (pulumi 3.272.0 `runtime/invoke.py` `_invoke`: `if
    rpc.struct_contains_unknowns(inputs): return (InvokeResult(None, is_secret=False,
    is_known=False), None)`), so the plan loses where it comes from; the engine, with the
    id in its state, knows it. The OKE provider's kubeconfig (`get_cluster_kube_config` of
    the cluster's id) is one. Its sources are read as the resource's dependencies."""
    recorded = r.get("propertyDependencies") or {}
    digests = r.get("secretDigests") or {}
    out = []
    for prop, value in sorted((r.get("inputs") or {}).items()):
        if prop in recorded:
            continue
        leaves = flatten(value, prop)
        if any(v == UNKNOWN or (v == SECRET and p not in digests) for p, v in leaves.items()):
            out.append(prop)
    return out


def upstream_unknown(
    r: Mapping[str, Any],
    ops: Mapping[str, str | None],
    new: Mapping[str, Mapping[str, Any]],
    rules: Rules,
) -> dict[str, str]:
    """Inputs of `r` unknown at preview -> `CERTAIN`, or why it is a guess.

    Certain: what it comes from is created or replaced (a new id, a new name, a new
    cluster). A guess: what it comes from may be replaced, or is a command that only
    re-runs (`outputsUnknownOnUpdate`): `pulumi preview` shows the input unknown, but the
    `up` reads the re-run's output before it diffs, and an idempotent step prints what it
    printed before."""
    sources_of = {p: list(s) for p, s in (r.get("propertyDependencies") or {}).items()}
    for prop in sourceless_unknown(r):
        sources_of[prop] = list(r.get("dependencies") or [])
    inputs = r.get("inputs") or {}
    out: dict[str, str] = {}
    for prop, sources in sorted(sources_of.items()):
        reason: str | None = None
        for source in sources:
            op = ops.get(source)
            name = str(new[source]["name"]) if source in new else source
            if op in ("create", "replace"):
                reason = CERTAIN
                break
            if reason is None and op == "may-replace":
                reason = f"it comes from {name}, which may be replaced"
            rerun = source in new and rules.for_type(new[source]["type"]).outputs_unknown_on_update
            if reason is None and op == "update" and rerun:
                reason = (
                    f"it comes from {name}, which re-runs: unknown at preview (so `pulumi "
                    "preview` shows a replacement), read again before the `up` diffs it"
                )
        if reason is not None:
            out.update((leaf, reason) for leaf in unknown_leaves(inputs, prop))
    return out
