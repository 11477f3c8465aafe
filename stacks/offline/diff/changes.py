"""What changes between two plan snapshots, resource by resource: the diff's model.

Each resource's operation comes from the engine's rules (`stacks.offline.lifecycle.fate`); this
adds the dependency changes, the run order the changes are listed in, and which
destructive operations take away something a reviewer must not miss (`DESTROYS`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from stacks.offline.lifecycle.fate import Fate, classify
from stacks.offline.snapshot.graph import collapsed_dependencies, identity_keys, run_order
from stacks.offline.snapshot.paths import InputChange, input_changes
from stacks.offline.snapshot.shape import Snapshot

Op = Literal["create", "update", "replace", "may-replace", "delete", "same"]
"""`same`: no operation, only the recorded dependencies differ. `may-replace`: the plans
cannot tell whether the engine replaces it (`maybe` says why)."""


@dataclass(frozen=True)
class ResourceChange:
    op: Op
    key: str
    """The resource's URN (the old one, for a deletion)."""
    name: str
    type: str
    inputs: tuple[InputChange, ...] = ()
    deps_added: tuple[str, ...] = ()
    deps_removed: tuple[str, ...] = ()
    replace_because: tuple[str, ...] = ()
    delete_before_replace: bool = False
    ignored: tuple[str, ...] = ()
    protected: bool = False
    retained: bool = False
    previous_urn: str = ""
    unknown: tuple[str, ...] = ()
    """Inputs unknown at preview because something they come from changes."""
    maybe: tuple[tuple[str, str], ...] = ()
    """For `may-replace`: (input or `provider`, why the plans cannot know)."""
    cannot_predict: bool = False
    """No replacement rules cover its type."""
    kept_on_replace: tuple[str, ...] = ()
    """ignoreChanges paths a replacement keeps the old values of."""

    @property
    def destructive(self) -> bool:
        return self.op in ("replace", "may-replace", "delete") and not self.retained

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "urn": self.key,
            "type": self.type,
            "name": self.name,
            "op": self.op,
            "replaceBecause": list(self.replace_because),
            "deleteBeforeReplace": self.delete_before_replace,
        }
        if self.previous_urn:
            out["previousUrn"] = self.previous_urn
        if self.ignored:
            out["ignoredChanges"] = list(self.ignored)
        if self.unknown:
            out["unknownAtPreview"] = list(self.unknown)
        if self.maybe:
            out["uncertain"] = [{"input": path, "why": why} for path, why in self.maybe]
        if self.cannot_predict:
            out["cannotPredict"] = True
        if self.kept_on_replace:
            out["keptFromOld"] = list(self.kept_on_replace)
        if self.protected:
            out["protected"] = True
        if self.retained:
            out["retained"] = True
        if what := destroys(self):
            out["destroys"] = what
        return out


@dataclass
class PlanDiff:
    base: str
    head: str
    resources: list[ResourceChange] = field(default_factory=list)
    outputs: list[InputChange] = field(default_factory=list)
    unchanged: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.resources or self.outputs)

    def count(self, *ops: str) -> int:
        return sum(1 for r in self.resources if r.op in ops)

    def as_json(self) -> dict[str, Any]:
        return {
            "base": self.base,
            "head": self.head,
            "changes": [r.as_json() for r in self.resources if r.op != "same"],
            "outputs": [c.path for c in self.outputs],
        }


def diff_snapshots(base: Snapshot, head: Snapshot) -> PlanDiff:
    lifecycle = classify(base, head)
    old_deps, new_deps = identity_deps(base), identity_deps(head)
    old_keys, new_keys = identity_keys(base), identity_keys(head)
    result = PlanDiff(base=_label(base), head=_label(head))
    for fate in lifecycle.fates:
        if fate.urn not in new_keys:  # in base only: deleted (or a read no longer made)
            if fate.op is not None:
                result.resources.append(_change(fate, fate.op))
            continue
        added: tuple[str, ...] = ()
        removed: tuple[str, ...] = ()
        was_urn = fate.previous_urn or fate.urn
        if fate.op != "create" and was_urn in old_keys:  # not a read new to this plan
            # identity_deps has every resource of its snapshot
            now, was = new_deps[new_keys[fate.urn]], old_deps[old_keys[was_urn]]
            added, removed = _names(now - was), _names(was - now)
        if fate.op is None and not (added or removed):
            result.unchanged += 1
            continue
        result.resources.append(_change(fate, fate.op or "same", added, removed))
    rank = {**_run_order(base), **_run_order(head)}  # every URN a plan has
    result.resources.sort(key=lambda c: (rank.get(c.key, -1), c.key))  # -1: default providers
    result.outputs = input_changes(base.get("outputs", {}), head.get("outputs", {}))
    return result


def _change(
    fate: Fate, op: Op, added: tuple[str, ...] = (), removed: tuple[str, ...] = ()
) -> ResourceChange:
    return ResourceChange(
        op,
        fate.urn,
        fate.name,
        fate.type,
        fate.inputs,
        added,
        removed,
        fate.replace_because,
        fate.delete_before_replace,
        fate.ignored,
        fate.protected,
        fate.retained,
        fate.previous_urn,
        fate.unknown,
        fate.maybe,
        fate.cannot_predict,
        fate.kept_on_replace,
    )


Identity = tuple[tuple[str, str], ...]


def _names(keys: set[Identity]) -> tuple[str, ...]:
    """Identity chains as `type::name` of their last element, sorted."""
    return tuple(sorted(f"{chain[-1][0]}::{chain[-1][1]}" for chain in keys))


def identity_deps(snap: Snapshot) -> dict[Identity, set[Identity]]:
    """Each resource's (collapsed) dependencies, resources named by their identity chains
    (`identity_keys`), which are the same for both URN spellings and any stack."""
    keys = identity_keys(snap)
    return {
        keys[urn]: {keys[d] for d in deps if d in keys}
        for urn, deps in collapsed_dependencies(snap).items()
    }


def _run_order(snap: Snapshot) -> dict[str, int]:
    """Each resource's place in one order the engine could run them (ties by URN), so a
    diff lists a chain of changed steps in the order they run."""
    return {urn: i for i, urn in enumerate(run_order(snap))}


def _label(snap: Snapshot) -> str:
    return f"{snap['project']}/{snap['stack']}"


# What replacing or deleting a resource takes away, for the ones a reviewer must not miss:
# (type, or type prefix ending in ":"), the resource name's ending ("" for any), what.
DESTROYS: tuple[tuple[str, str, str], ...] = (
    (
        "oci:Core/instance:Instance",
        "",
        "a GPU VM and its boot volume (when replaced, its host steps, runner registration and "
        "cluster are made again on the new VM)",
    ),
    ("oci:ContainerEngine/cluster:Cluster", "", "the OKE cluster"),
    ("oci:ContainerEngine/nodePool:NodePool", "", "an OKE node pool and its nodes"),
    ("command:", "-nvkind-cluster", "the nvkind cluster (kind delete cluster; a new CA)"),
    ("command:", "-github-runner", "a runner registration (stopped and deregistered)"),
    ("kubernetes:helm.sh/v3:Release", "", "a Helm release and what it installed"),
    ("pulumi:providers:kubernetes", "", "a Kubernetes provider: everything on it is replaced"),
)


def destroys(r: ResourceChange) -> str:
    """What a replacement or deletion of `r` takes away; empty for the rest."""
    if not r.destructive:
        return ""
    for type_, ending, what in DESTROYS:
        kind = r.type.startswith(type_) if type_.endswith(":") else r.type == type_
        if kind and r.name.endswith(ending):
            return what
    return ""
