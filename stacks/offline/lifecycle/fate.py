"""What the next `pulumi up` does to each resource: the engine's rules, offline.

Two plan snapshots (the stack as deployed, and as changed) are compared the way the engine
and the providers would compare the state with the new program: a resource is *created*
when nothing in the old plan has its URN or one of its aliases; *deleted* when nothing in
the new plan claims it; *replaced* when an input changes that the resource's options
(`replaceOnChanges`) or its provider's own rules (`stacks/offline/lifecycle/replacements/`) say
cannot change in place, or when its provider is replaced; *updated* when any other input changes;
and otherwise left alone. `ignoreChanges` paths are dropped first, as the engine drops them.

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

Where the plans cannot know, the answer is `may-replace` with why (`Fate.maybe`), never a
guess shown as the engine's: an input unknown only because a command re-runs, a
kubeconfig that changed inside a secret, a value the offline plan makes up for a cloud
lookup (`stand_ins`), a provider that may be replaced, and a type no rule covers
(`cannot_predict`). An input the plan shows unknown with no recorded source came from a
lookup over an id the preview cannot know (`lifecycle_inputs.sourceless_unknown`).

Old snapshots (written before options were recorded) are read with the engine's defaults.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from stacks.offline.lifecycle.delete_first import UNKNOWN, delete_first
from stacks.offline.lifecycle.inputs import secret_changes, seen_changes, upstream_unknown
from stacks.offline.lifecycle.replacement_rules import Rules, TypeRules, load_rules
from stacks.offline.lifecycle.stand_ins import guessed_change, regions
from stacks.offline.snapshot.graph import identity_keys, run_order
from stacks.offline.snapshot.paths import InputChange, matches, rule_segments, segments

Op = Literal["create", "update", "replace", "may-replace", "delete"]
"""`may-replace`: the plan cannot know whether the engine replaces it (`Fate.maybe` says
why); if it does not, it is updated in place or left alone."""
STACK_REFERENCE = "pulumi:pulumi:StackReference"
OCI_PROVIDER = "pulumi:providers:oci"
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
    maybe: tuple[tuple[str, str], ...] = ()
    """For `may-replace`: each input (or `provider`) that may force it, with why the plan
    cannot know."""
    cannot_predict: bool = False
    """No rule covers its type: whether its changed inputs replace it cannot be predicted."""
    kept_on_replace: tuple[str, ...] = ()
    """Its ignoreChanges paths, when it is (or may be) replaced: the replacement is created
    with their old values (rules.json `engine.ignoreChangesKeptOnReplace`)."""


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
    ops: dict[str, Op | None] = {}
    fates: list[Fate] = _default_providers(base, head, rules)
    for urn in run_order(head):
        r = new[urn]
        before = old[matched[urn]] if urn in matched else None
        fate = _fate(r, before, ops, new, rules, matched)
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


def _default_providers(
    base: Mapping[str, Any], head: Mapping[str, Any], rules: Rules
) -> list[Fate]:
    """The default OCI provider, which the plans do not record, when the region its
    stand-ins name changes: pulumi-oci's DiffConfig updates it (rules.json `ociProvider`)."""
    old, now = regions(base), regions(head)
    if not old or not now or set(old) == set(now):
        return []
    spell = [", ".join(v or k for k, v in sorted(side.items())) for side in (old, now)]
    urn = f"urn:pulumi:{head.get('stack', '')}::{head.get('project', '')}::{OCI_PROVIDER}::default"
    replaced = rules.region_change_replaces_oci_provider
    return [
        Fate(
            urn,
            OCI_PROVIDER,
            "default",
            "replace" if replaced else "update",
            ("region",) if replaced else (),
            inputs=(InputChange("region", spell[0], spell[1]),),
        )
    ]


def _fate(
    r: Mapping[str, Any],
    before: Mapping[str, Any] | None,
    ops: Mapping[str, Op | None],
    new: Mapping[str, Mapping[str, Any]],
    rules: Rules,
    matched: Mapping[str, str],
) -> Fate:
    urn, type_, name = r["urn"], r["type"], r["name"]
    previous = before["urn"] if before is not None and before["urn"] != urn else ""
    if before is None:
        return Fate(urn, type_, name, None if r.get("read") else "create")
    if r.get("read") or not _custom(r):
        return Fate(urn, type_, name, None, previous_urn=previous)
    opts, old_opts = _options(r), _options(before)
    old_inputs, new_inputs = before.get("inputs") or {}, r.get("inputs") or {}
    changes = seen_changes(old_inputs, new_inputs) + secret_changes(before, r)
    unknown = upstream_unknown(r, ops, new, rules)
    seen = {c.path for c in changes}
    changes += [InputChange(p, KNOWN, UNKNOWN) for p in unknown if p not in seen]
    ignore = list(opts.get("ignoreChanges") or [])
    kept = [c for c in changes if not any(matches(i, c.path) for i in ignore)]
    ignored = tuple(c.path for c in changes if c not in kept)
    provider = opts.get("provider") or ""
    type_rules = rules.for_type(type_, (new.get(provider) or {}).get("inputs"))
    certain, guesses = _forced(r, kept, unknown, type_rules, rules, new, old_inputs)
    provider_op = ops.get(provider)
    if provider_op in ("create", "replace"):
        certain.add(PROVIDER)
    elif provider_op == "may-replace":
        guesses[PROVIDER] = f"{new[provider]['name']} may be replaced"
    elif "provider" in old_opts and _provider_moved(old_opts["provider"], provider, matched):
        certain.add(PROVIDER)  # read as always (conservative): see `_provider_moved`
    cannot = bool(kept) and not rules.known(type_) and not certain
    op: Op | None = (
        "replace" if certain else "may-replace" if guesses or cannot else "update" if kept else None
    )
    because = sorted(certain if op == "replace" else guesses if op == "may-replace" else ())
    destroys = op in ("replace", "may-replace")
    return Fate(
        urn,
        type_,
        name,
        op,
        tuple(because),
        destroys
        and delete_first(opts, type_rules, PROVIDER in because, old_inputs, new_inputs, rules),
        tuple(kept),
        ignored,
        tuple(unknown),
        protected=destroys and bool(old_opts.get("protect") or opts.get("protect")),
        previous_urn=previous,
        maybe=tuple(sorted(guesses.items())) if op == "may-replace" else (),
        cannot_predict=cannot,
        kept_on_replace=tuple(ignore) if destroys and rules.ignore_changes_kept_on_replace else (),
    )


def _forced(
    r: Mapping[str, Any],
    kept: list[InputChange],
    unknown: Mapping[str, str],
    type_rules: TypeRules,
    rules: Rules,
    new: Mapping[str, Mapping[str, Any]],
    old_inputs: Mapping[str, Any],
) -> tuple[set[str], dict[str, str]]:
    """The changed inputs that replace `r` for certain, and those that may (path -> why)."""
    inputs = r.get("inputs") or {}
    identifier = type_rules.identifier
    if identifier and identifier in inputs and inputs[identifier] == old_inputs.get(identifier):
        patterns = list(_options(r).get("replaceOnChanges") or [])  # DiffConfig replaces nothing
    else:
        patterns = replace_patterns(r, type_rules, rules)
    certain: set[str] = set()
    guesses: dict[str, str] = {}
    for c in kept:
        # The root path changes only as inputs go from or to `{}`: each field's own change,
        # listed beside it, decides.
        if not c.path or not any(forces(p, c.path) for p in patterns):
            continue
        top = str(segments(c.path)[0])
        if c.path in unknown:
            why = unknown[c.path]
        elif c.new == UNKNOWN:
            why = ""  # unknown to the preview itself: the provider sees it so (IsComputed)
        elif top in type_rules.may_replace_when_changed and not _from_stack(r, top, new):
            why = (
                f"pulumi-kubernetes replaces a provider only when its {top}'s active cluster "
                "changes (provider.go DiffConfig); the plan sees only that it changed"
            )
        else:
            why = guessed_change(c.old, c.new)
        if why:
            guesses[c.path] = why
        else:
            certain.add(c.path)
    return certain, guesses


def _from_stack(r: Mapping[str, Any], prop: str, new: Mapping[str, Mapping[str, Any]]) -> bool:
    """Whether input `prop` is read from another stack: the offline plan's placeholder of it
    carries the producer's generation, so it changes exactly when the producer makes what
    it is built from anew (stacks/offline/references.py `reference_exports`)."""
    sources = (r.get("propertyDependencies") or {}).get(prop) or []
    return bool(sources) and all((new.get(s) or {}).get("type") == STACK_REFERENCE for s in sources)


def replace_patterns(r: Mapping[str, Any], type_rules: TypeRules, rules: Rules) -> list[str]:
    """The input paths a change of which replaces `r`: its own `replaceOnChanges`, its
    provider's rules for its type, and for a Kubernetes provider its kubeconfig, context
    and cluster (`kubeconfigUnknownReplacesProvider`; whether a known change of them does is
    `_forced`'s guess). The diff and the generations read the same."""
    patterns = [*(_options(r).get("replaceOnChanges") or []), *type_rules.force_new]
    if rules.kubeconfig_unknown_replaces:
        patterns += type_rules.replace_when_unknown
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
