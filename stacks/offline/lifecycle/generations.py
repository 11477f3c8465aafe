"""A resource's generation: a digest, from one plan alone, that changes when the engine
would make the resource anew (create or replace it) and stays when it would update it in
place or leave it alone.

It is what a stack reading another stack's exports sees: a kubeconfig is the same text
until the cluster step that prints it runs anew, so a consumer stack's plan carries the
generation of what the producer's plan builds the export from (`export_identities`), and
the consumer's diff shows its provider replaced exactly when the producer's cluster is.

A generation covers what `stacks.offline.lifecycle.fate` replaces on: the resource's identity
(its type and name chain, without the stack), its provider's generation, the values at its
replace-on-change paths (its `replaceOnChanges` and its provider's rules, less
`ignoreChanges`, secrets by digest), and the generations of the resources those inputs are
built from. Unlike a preview it does not count an update of a command as a possible change
of its output: the reader is planned after the producer's `up`, when the output is known
again (a re-run kubeconfig step prints the same kubeconfig).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from stacks.offline.lifecycle.fate import forces, replace_patterns
from stacks.offline.lifecycle.replacement_rules import Rules, load_rules
from stacks.offline.snapshot.graph import identity_keys, run_order
from stacks.offline.snapshot.paths import flatten, matches, segments

GENERATION_CHARS = 16


def _digest(value: Any) -> str:
    """A digest of plain JSON values (a snapshot's, loaded or from `snapshot_of`). A
    consumer stack's plan holds it (its kubeconfig's secret digest), so its spelling stays:
    another would show the consumer's provider replaced against a base plan written before."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:GENERATION_CHARS]


def _forcing(r: Mapping[str, Any], patterns: list[str]) -> tuple[dict[str, Any], set[str]]:
    """The inputs a change of which replaces `r` (leaf paths, and secrets by digest), and
    the top-level inputs they are in."""
    ignore = list((r.get("options") or {}).get("ignoreChanges") or [])

    def forcing(path: str) -> bool:
        return any(forces(p, path) for p in patterns) and not any(matches(i, path) for i in ignore)

    values = {
        path: value
        for prop, tree in (r.get("inputs") or {}).items()
        for path, value in flatten(tree, prop).items()
        if forcing(path)
    }
    secrets = {
        path: digest for path, digest in (r.get("secretDigests") or {}).items() if forcing(path)
    }
    props = {str(segments(path)[0]) for path in [*values, *secrets]}
    return {"values": values, "secrets": secrets}, props


def generations(snap: Mapping[str, Any], rules: Rules | None = None) -> dict[str, str]:
    """Each resource's URN -> its generation in this plan."""
    rules = rules or load_rules()
    resources = {r["urn"]: r for r in snap["resources"]}
    keys = identity_keys(snap)
    providers = {urn: r.get("inputs") or {} for urn, r in resources.items()}
    out: dict[str, str] = {}
    for urn in run_order(snap):
        r = resources[urn]
        provider = (r.get("options") or {}).get("provider") or ""
        type_rules = rules.for_type(str(r["type"]), providers.get(provider))
        patterns = replace_patterns(r, type_rules, rules)
        if r.get("custom", True) and not r.get("read") and not rules.known(str(r["type"])):
            patterns = [""]  # no rules: any input may make it anew (rules.json `unknownTypes`)
        forcing, props = _forcing(r, patterns)
        upstream = sorted(
            out[source]  # run_order puts each source first; a program has no cycles
            for prop, sources in (r.get("propertyDependencies") or {}).items()
            if prop in props
            for source in sources
        )
        out[urn] = _digest(
            [keys[urn], forcing, upstream, out[provider] if provider else ""],
        )
    return out


def export_identities(
    snap: Mapping[str, Any], sources: Mapping[str, list[str]], rules: Rules | None = None
) -> dict[str, str]:
    """Each export built from resources -> the digest of their generations: it changes when
    one of them would be made anew, and so would the value a reader gets."""
    found = generations(snap, rules)
    return {
        name: _digest(sorted(found[urn] for urn in urns))  # every source registered
        for name, urns in sources.items()
        if urns
    }
