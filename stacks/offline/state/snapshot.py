"""A `pulumi stack export` as the base snapshot of a plan diff: the deployed side.

`stacks diff` compares two snapshots by the engine's rules (`stacks.offline.lifecycle.fate`). To
predict what `pulumi up` does to a deployed stack, the export becomes the base snapshot, so
the same rules decide: its resources, with their inputs as a plan shows them
(`stacks.offline.state.values`), their parents, dependencies, provider (the engine's default
providers as "", as a plan records them) and `protect`/`retainOnDelete`/`deletedWith`
(the state's own: the engine reads them from the old state). What a snapshot cannot hold is
returned beside it (`StateNotes`): the engine's own resources (the stack, default
providers), old copies pending deletion, pending operations, tainted resources.

An input the plan cannot know (unknown offline, a secret, a stand-in for a cloud value) is
not compared: the base takes the plan's value there, and the path is listed with why, so
the diff never guesses that it changed or that it did not.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from stacks.offline.engine.urns import STACK_TYPE
from stacks.offline.engine.values import UNKNOWN
from stacks.offline.snapshot.graph import identity_keys
from stacks.offline.snapshot.paths import path_join
from stacks.offline.snapshot.shape import Snapshot
from stacks.offline.state.export import StateExport, StateResource
from stacks.offline.state.standins import STANDIN, StandIns
from stacks.offline.state.values import SECRET, normalize, plain

UNKNOWN_OFFLINE = "unknown to the offline plan (an output of another resource)"
SECRET_IN_PLAN = "a secret in the plan (offline, a placeholder for its value)"
PROVIDER_TYPE = "pulumi:providers:"


@dataclass(frozen=True)
class Uncompared:
    urn: str
    """The plan's URN of the resource ("" for a stack output)."""
    name: str
    path: str
    why: str


@dataclass
class StateNotes:
    """What the export says beyond its snapshot."""

    export: StateExport
    matched: dict[str, str] = field(default_factory=dict)
    """State URN -> the plan's URN of the same resource."""
    uncompared: list[Uncompared] = field(default_factory=list)
    default_providers: list[str] = field(default_factory=list)
    condemned: list[StateResource] = field(default_factory=list)


def is_default_provider(urn: str, type_: str) -> bool:
    """pulumi/pulumi sdk/go/common/providers/reference.go @ v3.259.0 `IsDefaultProvider`: a
    provider type whose name starts with "default" (`default`, `default_5_5_0`)."""
    return type_.startswith(PROVIDER_TYPE) and urn.rpartition("::")[2].startswith("default")


def provider_urn(reference: str) -> str:
    """`URN::ID` -> URN ("" for none)."""
    return reference.rsplit("::", 1)[0]


def _record(r: StateResource, defaults: set[str]) -> dict[str, Any]:
    provider = provider_urn(r.provider)
    return {
        "urn": r.urn,
        "type": r.type,
        "name": r.name,
        "parent": r.parent,
        "custom": r.custom,
        "read": r.external,
        "dependencies": sorted(set(r.dependencies)),
        "propertyDependencies": {k: sorted(set(v)) for k, v in r.property_dependencies.items()},
        "inputs": r.inputs,
        "options": {
            "protect": r.protect,
            "deleteBeforeReplace": False,
            "ignoreChanges": [],
            "replaceOnChanges": [],
            "retainOnDelete": r.retain_on_delete,
            "deletedWith": r.deleted_with,
            "provider": "" if provider in defaults else provider,
        },
        "aliases": list(r.aliases),
        "secretDigests": {},
    }


def _match(base: Snapshot, head: Snapshot) -> dict[str, str]:
    """State URN -> plan URN: the same URN, one of the plan's aliases, or else the same
    (type, name) chain from the stack down (`identity_keys`), as the diff matches them."""
    head_urns = {r["urn"] for r in head["resources"]}
    alias = {a: r["urn"] for r in head["resources"] for a in r.get("aliases") or []}
    by_key: dict[Any, str] = {}
    for urn, key in identity_keys(head).items():
        by_key.setdefault(key, urn)
    keys = identity_keys(base)
    out: dict[str, str] = {}
    taken: set[str] = set()
    for r in base["resources"]:
        urn = r["urn"]
        found = urn if urn in head_urns else alias.get(urn) or by_key.get(keys[urn])
        if found and found not in taken:
            out[urn] = found
            taken.add(found)
    return out


def _align(
    state: Any, want: Any, prefix: str, why: dict[str, str], standins: StandIns
) -> tuple[Any, dict[str, str]]:
    """`state` with the plan's value wherever it cannot be compared, and those paths."""
    if want == UNKNOWN:
        return want, {} if state == UNKNOWN else {prefix: UNKNOWN_OFFLINE}
    if SECRET in (want, state):
        return want, {prefix: why.get(prefix, SECRET_IN_PLAN)}
    if isinstance(want, str) and isinstance(state, str) and want != state:
        standin = standins.same_but_standins(want, state)
        return (want, {prefix: STANDIN}) if standin else (state, {})
    found: dict[str, str] = {}
    if isinstance(want, dict) and isinstance(state, dict):
        out = {}
        for key, value in state.items():
            out[key] = value
            if key in want:
                out[key], more = _align(value, want[key], path_join(prefix, key), why, standins)
                found.update(more)
        return out, found
    if isinstance(want, list) and isinstance(state, list) and len(want) == len(state):
        items = []
        for i, value in enumerate(state):
            aligned, more = _align(value, want[i], path_join(prefix, i), why, standins)
            found.update(more)
            items.append(aligned)
        return items, found
    return state, found


def state_snapshot(export: StateExport, head: Snapshot) -> tuple[Snapshot, StateNotes]:
    """The export as the base snapshot against `head` (a plan of the same stack)."""
    notes = StateNotes(export)
    defaults = {
        r.urn for r in export.resources if not r.delete and is_default_provider(r.urn, r.type)
    }
    notes.default_providers = sorted(defaults)
    live: list[StateResource] = []
    stack_outputs: dict[str, Any] = {}
    for r in export.resources:
        if r.delete:
            notes.condemned.append(r)
        elif r.type == STACK_TYPE:
            stack_outputs = r.outputs
        elif r.urn not in defaults:
            live.append(r)
    opaque: dict[str, dict[str, str]] = {r.urn: {} for r in live}
    records = []
    for r in live:
        inputs = {k: plain(v, path_join("", k), opaque[r.urn]) for k, v in r.inputs.items()}
        records.append(_record(replace(r, inputs=inputs), defaults))
    base: Snapshot = {
        "project": export.project or head["project"],
        "stack": export.stack or head["stack"],
        "resources": records,
        "outputs": {},
    }
    notes.matched = _match(base, head)
    wanted = {r["urn"]: r for r in head["resources"]}
    standins = StandIns.of(head["resources"])
    for record in records:
        target = notes.matched.get(record["urn"])
        if target is None:
            continue
        want = wanted[target].get("inputs") or {}
        inputs = normalize(record["type"], record["inputs"], want)
        record["inputs"], paths = _align(inputs, want, "", opaque[record["urn"]], standins)
        name = wanted[target]["name"]
        notes.uncompared += [Uncompared(target, name, p, w) for p, w in sorted(paths.items())]
    out_opaque: dict[str, str] = {}
    outputs = {k: plain(v, path_join("", k), out_opaque) for k, v in stack_outputs.items()}
    base["outputs"], paths = _align(outputs, head.get("outputs") or {}, "", out_opaque, standins)
    notes.uncompared += [Uncompared("", "", p, w) for p, w in sorted(paths.items())]
    base["resources"].sort(key=lambda r: r["urn"])
    return base, notes
