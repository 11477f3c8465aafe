"""What the next `pulumi up` does to each resource: the engine's rules, offline.

Two plan snapshots (the stack as deployed, and as changed) are compared the way the engine
and the providers would compare the state with the new program: a resource is *created*
when nothing in the old plan has its URN or one of its aliases; *deleted* when nothing in
the new plan claims it; *replaced* when an input changes that the resource's options
(`replaceOnChanges`) or its provider's own rules (`stacks/offline/replacements/`) say cannot change
in place, or when its provider is replaced; *updated* when any other input changes; and
otherwise left alone. `ignoreChanges` paths are dropped first, as the engine drops them.

A replacement deletes the old resource first when the resource's own `deleteBeforeReplace`
says so, or else when its provider's `Diff` asks (`delete_first`): pulumi-kubernetes only
for a named object that keeps its name and namespace; Helm, pulumi-command and OCI never.
A resource replaced because of its provider never reaches the provider's `Diff`, so then
only its own option counts.

An input whose value comes from a resource that is created or replaced (or updated, for
providers whose outputs are unknown until they run, see `outputsUnknownOnUpdate`) is unknown
at preview: it counts as changed, as it does for the provider deciding on a replacement.
That is how a replaced cluster step reaches the Kubernetes provider built from its output,
and through it every release on the cluster.

Old snapshots (written before options were recorded) are read with the engine's defaults.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from stacks.offline.delete_first import SECRET, UNKNOWN, delete_first
from stacks.offline.diff_paths import (
    InputChange,
    flatten,
    input_changes,
    matches,
    rule_segments,
    segments,
)
from stacks.offline.replacement_rules import Rules, TypeRules, load_rules
from stacks.offline.snapshot_graph import identity_keys, run_order

Op = Literal["create", "update", "replace", "delete"]
KNOWN = "[known]"
"""The old side of an input that is known now and unknown until an upstream change runs."""
PROVIDER = "provider"
"""The `replaceBecause` entry of a resource replaced because its provider is."""


@dataclass(frozen=True)
class Fate:
    """What the engine does to one resource on the next `pulumi up`."""

    urn: str
    """The resource's URN in the new plan (the old one, for a deletion)."""
    type: str
    name: str
    op: Op | None
    """None: left as it is."""
    replace_because: tuple[str, ...] = ()
    delete_before_replace: bool = False
    inputs: tuple[InputChange, ...] = ()
    """The changed inputs, after `ignoreChanges`."""
    ignored: tuple[str, ...] = ()
    """Changed inputs the engine leaves alone (`ignoreChanges`)."""
    unknown: tuple[str, ...] = ()
    """Inputs unknown at preview because a resource they come from changes."""
    protected: bool = False
    """A replacement or deletion the engine refuses (`protect`)."""
    retained: bool = False
    """Deleted from state only: the cloud resource stays (`retainOnDelete`)."""
    previous_urn: str = ""
    """The old URN, when the resource is found through an alias or a renamed URN form."""


@dataclass
class Lifecycle:
    fates: list[Fate] = field(default_factory=list)

    @property
    def changed(self) -> list[Fate]:
        return [f for f in self.fates if f.op is not None]

    def of(self, name: str, type_: str | None = None) -> Fate:
        found = [f for f in self.fates if f.name == name and type_ in (None, f.type)]
        if len(found) != 1:
            raise LookupError(f"expected one resource named {name!r}, found {len(found)}")
        return found[0]


def _custom(r: Mapping[str, Any]) -> bool:
    if "custom" in r:
        return bool(r["custom"])
    return not str(r["type"]).startswith("gpu-ci:")  # snapshots older than `custom`


def _options(r: Mapping[str, Any]) -> dict[str, Any]:
    return dict(r.get("options") or {})


def _unknown_leaves(inputs: Mapping[str, Any], prop: str) -> list[str]:
    """The leaves under input `prop` that a preview cannot know (or the input itself)."""
    if prop not in inputs:
        return []
    leaves = [
        path for path, value in flatten(inputs[prop], prop).items() if value in (UNKNOWN, SECRET)
    ]
    return leaves or [prop]


def _secret_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[InputChange]:
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


def _seen_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[InputChange]:
    """Input changes, less those at or under a path the old plan could not know.

    An input unknown in the old plan was known to the engine (it is in the state); a plan
    of the same resource that knows it now (a newer gpu-ci knows a running VM's address)
    tells nothing about whether it changed, as two unknowns do not. If what it comes from
    changes, it is unknown in the new plan too, and `_upstream_unknown` counts it."""
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


def _match_base(base: Mapping[str, Any], head: Mapping[str, Any]) -> dict[str, str]:
    """Head URN -> the base URN it continues (same URN, an alias, or the same identity)."""
    base_urns = {r["urn"] for r in base["resources"]}
    base_keys: dict[tuple[tuple[str, str], ...], str] = {}
    for urn, key in identity_keys(base).items():
        base_keys.setdefault(key, urn)
    head_keys = identity_keys(head)
    out: dict[str, str] = {}
    taken: set[str] = set()
    for r in head["resources"]:
        urn = r["urn"]
        candidates = [urn, *(r.get("aliases") or [])]
        found = next((c for c in candidates if c in base_urns and c not in taken), None)
        if found is None:
            by_key = base_keys.get(head_keys[urn])
            found = by_key if by_key is not None and by_key not in taken else None
        if found is not None:
            out[urn] = found
            taken.add(found)
    return out


def classify(
    base: Mapping[str, Any], head: Mapping[str, Any], rules: Rules | None = None
) -> Lifecycle:
    """Every resource of `head` and every resource of `base` that `head` drops, with the
    operation the engine would run on it."""
    rules = rules or load_rules()
    old = {r["urn"]: r for r in base["resources"]}
    new = {r["urn"]: r for r in head["resources"]}
    matched = _match_base(base, head)
    provider_inputs = {urn: r.get("inputs") or {} for urn, r in new.items()}
    ops: dict[str, Op | None] = {}
    fates: list[Fate] = []
    for urn in run_order(head):
        r = new[urn]
        before = old[matched[urn]] if urn in matched else None
        fate = _fate(r, before, ops, new, provider_inputs, rules, matched)
        ops[urn] = fate.op
        fates.append(fate)
    for urn, r in old.items():
        if urn not in matched.values():
            opts = _options(r)
            fates.append(
                Fate(
                    urn,
                    r["type"],
                    r["name"],
                    None if r.get("read") else "delete",
                    protected=bool(opts.get("protect")),
                    retained=bool(opts.get("retainOnDelete")),
                )
            )
    return Lifecycle(fates)


def _upstream_unknown(
    r: Mapping[str, Any],
    ops: Mapping[str, Op | None],
    new: Mapping[str, Mapping[str, Any]],
    rules: Rules,
) -> list[str]:
    """Inputs of `r` built from outputs that are unknown at preview."""
    unknown: list[str] = []
    for prop, sources in sorted((r.get("propertyDependencies") or {}).items()):
        for source in sources:
            op = ops.get(source)
            unknown_on_update = (
                source in new and rules.for_type(new[source]["type"]).outputs_unknown_on_update
            )
            if op in ("create", "replace") or (op == "update" and unknown_on_update):
                unknown += _unknown_leaves(r.get("inputs") or {}, prop)
                break
    return unknown


def _fate(
    r: Mapping[str, Any],
    before: Mapping[str, Any] | None,
    ops: Mapping[str, Op | None],
    new: Mapping[str, Mapping[str, Any]],
    provider_inputs: Mapping[str, Mapping[str, Any]],
    rules: Rules,
    matched: Mapping[str, str],
) -> Fate:
    urn, type_, name = r["urn"], r["type"], r["name"]
    previous = before["urn"] if before is not None and before["urn"] != urn else ""
    if before is None:
        return Fate(urn, type_, name, None if r.get("read") else "create")
    if r.get("read") or not _custom(r):
        return Fate(urn, type_, name, None, previous_urn=previous)
    opts = _options(r)
    old_opts = _options(before)
    changes = _seen_changes(before.get("inputs") or {}, r.get("inputs") or {})
    changes += _secret_changes(before, r)
    unknown = _upstream_unknown(r, ops, new, rules)
    seen = {c.path for c in changes}
    changes += [InputChange(p, KNOWN, UNKNOWN) for p in unknown if p not in seen]
    ignore = list(opts.get("ignoreChanges") or [])
    kept = [c for c in changes if not any(matches(i, c.path) for i in ignore)]
    ignored = tuple(c.path for c in changes if c not in kept)
    provider = opts.get("provider") or ""
    type_rules = rules.for_type(type_, provider_inputs.get(provider))
    patterns = replace_patterns(r, type_rules, rules)
    because = sorted({c.path for c in kept if any(forces(p, c.path) for p in patterns)})
    if ops.get(provider) in ("create", "replace") or (
        "provider" in old_opts and _provider_moved(old_opts["provider"], provider, matched)
    ):
        because.append(PROVIDER)
    because = sorted(set(because))
    op: Op | None = "replace" if because else "update" if kept else None
    return Fate(
        urn,
        type_,
        name,
        op,
        tuple(because),
        op == "replace"
        and delete_first(
            opts,
            type_rules,
            PROVIDER in because,
            before.get("inputs") or {},
            r.get("inputs") or {},
            rules,
        ),
        tuple(kept),
        ignored,
        tuple(unknown),
        protected=op == "replace" and bool(old_opts.get("protect") or opts.get("protect")),
        previous_urn=previous,
    )


def replace_patterns(r: Mapping[str, Any], type_rules: TypeRules, rules: Rules) -> list[str]:
    """The input paths a change of which replaces `r`: its own `replaceOnChanges`, its
    provider's rules for its type, and for a Kubernetes provider its kubeconfig
    (`kubeconfigUnknownReplacesProvider`). The diff and the generations read the same."""
    patterns = [*(_options(r).get("replaceOnChanges") or []), *type_rules.force_new]
    provider_type = str(r["type"]).startswith("pulumi:providers:kubernetes")
    if provider_type and rules.kubeconfig_unknown_replaces:
        patterns.append("kubeconfig")
    return patterns


def forces(pattern: str, path: str) -> bool:
    """Whether a change at `path` falls under a replace-on-change `pattern`. A change of a
    whole object (an unknown `createVnicDetails`) may hold a forcing field under it
    (`createVnicDetails.subnetId`), so a pattern below the changed path forces too."""
    if matches(pattern, path):
        return True
    have = [s for s in segments(path) if not isinstance(s, int)]
    return rule_segments(pattern)[: len(have)] == have


def _provider_moved(old: str, new: str, matched: Mapping[str, str]) -> bool:
    """A resource now uses another provider resource than before. `old` and `new` are its
    provider's URNs in the old and the new plan ("" for the package's default provider), and
    `matched` maps a new URN to the old one it continues (`_match_base`: the same URN, an
    alias, or the same resource under a new URN form), so a provider that is only renamed
    with an alias, or spelled anew, has not moved. The engine's `providerChanged` likewise
    keeps a provider reached through an alias; on any other move it replaces when the new
    provider's `DiffConfig` asks, which is read as always (conservative)."""
    return matched.get(new, "") != old
