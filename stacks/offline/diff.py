"""Compare two plan snapshots: what a change to the program or a stack's config does.

`python -m stacks diff BASE.json HEAD.json [--markdown] [--json FILE]` reads two files
written by `python -m stacks plan STACK --json FILE` and says what `pulumi up` would do to
each resource, by the engine's and the providers' own rules (`stacks.offline.lifecycle`): create,
update, replace (saying which input forced it, and whether the old one is deleted first)
or delete, with each changed input path (old -> new), dependency changes, changed stack
outputs, and (in markdown) the destructive operations first, then a Mermaid picture of the
changed part of the graph. Exit 0: no changes; 1: changes (like `git diff --exit-code`);
2: a file is not a readable plan snapshot.

Values stay short and secret-free: snapshots show secrets as "[secret]" (a changed secret
is seen through its digest, never its value), and long strings such as scripts are shown
as their length, line count and a short digest, never in full.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from core.errors import GpuCiError, write_output
from stacks.offline.diff_paths import MISSING, InputChange, flatten, input_changes
from stacks.offline.lifecycle import KNOWN, PROVIDER, Fate, classify, identity_keys, run_order
from stacks.offline.snapshot import Snapshot, collapsed_dependencies

__all__ = ["MISSING", "InputChange", "flatten", "input_changes"]


class SnapshotError(GpuCiError):
    """A file that is not a readable plan snapshot (one line, naming the file)."""


_SHORT = 48  # strings longer than this are summarized
_HEX = re.compile(r"^[0-9a-f]{32,128}$")
_REQUIRED: dict[str, type] = {
    "urn": str,
    "type": str,
    "name": str,
    "parent": str,
    "dependencies": list,
}

Op = Literal["create", "update", "replace", "delete", "same"]
"""`same`: no operation, only the recorded dependencies differ."""


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

    @property
    def destructive(self) -> bool:
        return self.op in ("replace", "delete") and not self.retained

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


# -- reading ---------------------------------------------------------------------------


def load_snapshot(path: Path) -> Snapshot:
    """A snapshot file, checked for the shape `stacks.offline.snapshot` writes."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise SnapshotError(f"{path}: cannot read the plan snapshot ({reason})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise SnapshotError(
            f"{path}: not JSON ({err.msg} at line {err.lineno}, column {err.colno}); "
            "write it with `python -m stacks plan STACK --json FILE`"
        ) from None
    problem = _shape_problem(data)
    if problem:
        raise SnapshotError(f"{path}: not a plan snapshot ({problem})")
    snapshot: Snapshot = data
    return snapshot


def _shape_problem(data: Any) -> str | None:
    if not isinstance(data, dict):
        return f"a JSON {type(data).__name__}, not an object"
    top: dict[str, type] = {"project": str, "stack": str, "resources": list}
    for key, kind in top.items():
        if not isinstance(data.get(key), kind):
            return f"`{key}` is missing or not a {kind.__name__}"
    if not isinstance(data.get("outputs", {}), dict):
        return "`outputs` is not an object"
    return next(filter(None, map(_resource_problem, enumerate(data["resources"]))), None)


def _resource_problem(item: tuple[int, Any]) -> str | None:
    i, r = item
    if not isinstance(r, dict):
        return f"resources[{i}] is not an object"
    for key, kind in _REQUIRED.items():
        if not isinstance(r.get(key), kind):
            return f"resources[{i}].{key} is missing or not a {kind.__name__}"
    if not isinstance(r.get("inputs", {}), dict):
        return f"resources[{i}].inputs is not an object"
    return None


# -- comparing -------------------------------------------------------------------------


_RANK = {"delete": 0, "replace": 1, "create": 2, "update": 3, "same": 4}


def diff_snapshots(base: Snapshot, head: Snapshot) -> PlanDiff:
    lifecycle = classify(base, head)
    old_deps, new_deps = _identity_deps(base), _identity_deps(head)
    old_keys, new_keys = identity_keys(base), identity_keys(head)
    result = PlanDiff(base=_label(base), head=_label(head))
    for fate in lifecycle.fates:
        if fate.urn not in new_keys:  # in base only: deleted (or a read no longer made)
            if fate.op is not None:
                result.resources.append(_change(fate, fate.op))
            continue
        added: tuple[str, ...] = ()
        removed: tuple[str, ...] = ()
        if fate.op != "create":
            now = new_deps.get(new_keys[fate.urn], set())
            was = old_deps.get(old_keys[fate.previous_urn or fate.urn], set())
            added, removed = _names(now - was), _names(was - now)
        if fate.op is None and not (added or removed):
            result.unchanged += 1
            continue
        result.resources.append(_change(fate, fate.op or "same", added, removed))
    rank = {**_run_order(base), **_run_order(head)}
    result.resources.sort(key=lambda c: (rank.get(c.key, 0), c.key))
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
    )


def _names(keys: set[Identity]) -> tuple[str, ...]:
    """Identity chains as `type::name` of their last element, sorted."""
    return tuple(sorted(f"{chain[-1][0]}::{chain[-1][1]}" for chain in keys))


Identity = tuple[tuple[str, str], ...]


def _identity_deps(snap: Snapshot) -> dict[Identity, set[Identity]]:
    """Each resource's (collapsed) dependencies, resources named by their identity chains
    (`lifecycle.identity_keys`), which are the same for both URN spellings and any stack."""
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
    ("oci:Core/instance:Instance", "", "a GPU VM and its boot volume"),
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


# -- showing values --------------------------------------------------------------------


def show(value: Any) -> str:
    """A value in one short line: long strings as length, lines and a digest."""
    if value is MISSING:
        return "(none)"
    if isinstance(value, str):
        return _show_string(value)
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    if len(text) > _SHORT:
        digest = hashlib.sha256(text.encode()).hexdigest()[:8]
        return f"<{len(text)} chars of JSON, sha256:{digest}>"
    return text


def _show_string(value: str) -> str:
    if value in ("[secret]", "[unknown]", KNOWN):
        return value
    if _HEX.match(value):
        return f"{value[:12]}…"
    if len(value) > _SHORT or "\n" in value:
        digest = hashlib.sha256(value.encode()).hexdigest()[:8]
        lines = value.count("\n") + (0 if value.endswith("\n") else 1)
        noun = "line" if lines == 1 else "lines"
        return f"<{len(value)} chars, {lines} {noun}, sha256:{digest}>"
    return json.dumps(value, ensure_ascii=False)


def _line_delta(change: InputChange) -> str:
    """`+2 -2 lines` for a changed multi-line string (a script)."""
    old, new = change.old, change.new
    if not (isinstance(old, str) and isinstance(new, str) and ("\n" in old or "\n" in new)):
        return ""
    import difflib  # noqa: PLC0415

    plus = minus = 0
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0):
        if line.startswith("+") and not line.startswith("+++"):
            plus += 1
        elif line.startswith("-") and not line.startswith("---"):
            minus += 1
    return f"+{plus} -{minus} lines"


def _short_name(key: str) -> str:
    return key.rsplit("::", 1)[-1]


# -- text ------------------------------------------------------------------------------

_TEXT_OP = {"create": "+", "delete": "-", "update": "~", "replace": "+-", "same": "="}


def summary(d: PlanDiff) -> str:
    dbr = sum(1 for r in d.resources if r.op == "replace" and r.delete_before_replace)
    parts = [
        f"{d.count('create')} to create",
        f"{d.count('update')} to update",
        f"{d.count('replace')} to replace" + (f" ({dbr} deleted first)" if dbr else ""),
        f"{d.count('delete')} to delete",
        f"{d.unchanged + d.count('same')} unchanged",
    ]
    if d.outputs:
        n = len(d.outputs)
        parts.append(f"{n} output path{'' if n == 1 else 's'} changed")
    return ", ".join(parts)


def _title(d: PlanDiff) -> str:
    return d.head if d.base == d.head else f"{d.base} → {d.head}"


def why(r: ResourceChange) -> str:
    """Why a resource is replaced or deleted, in a few words."""
    notes = []
    if r.op == "replace":
        forced = [p for p in r.replace_because if p != PROVIDER]
        if forced and set(forced) <= set(r.unknown):
            notes.append(f"{', '.join(forced)} unknown until what it comes from runs")
        elif forced:
            notes.append(f"{', '.join(forced)} changed")
        if PROVIDER in r.replace_because:
            notes.append("its provider is replaced")
        if r.delete_before_replace:
            notes.append("deleted first")
    if r.op == "delete" and r.retained:
        notes.append("retained: removed from state only")
    if r.protected:
        notes.append("protected: the engine refuses it")
    return "; ".join(notes)


def render_text(d: PlanDiff) -> str:
    if not d.changed:
        return f"{_title(d)}: no changes ({d.unchanged} resources)\n"
    lines = [f"{_title(d)}: {summary(d)}"]
    for r in _listed(d):
        reason = why(r)
        note = f"  ({r.op}: {reason})" if reason else ""
        if r.op == "same":
            note = "  (dependencies only: no operation)"
        lines.append(f"{_TEXT_OP[r.op]:>2} {r.type}  {r.name}{note}")
        if what := destroys(r):
            lines.append(f"      !! destroys {what}")
        for c in r.inputs:
            delta = _line_delta(c)
            lines.append(
                f"      {c.path}: {show(c.old)} → {show(c.new)}" + (f"  ({delta})" if delta else "")
            )
        for path in r.ignored:
            lines.append(f"      {path}: changed, ignored (ignoreChanges)")
        for dep in r.deps_added:
            lines.append(f"      depends on + {_short_name(dep)}")
        for dep in r.deps_removed:
            lines.append(f"      depends on - {_short_name(dep)}")
    if d.outputs:
        lines.append("stack outputs:")
        lines += [f"      {c.path}: {show(c.old)} → {show(c.new)}" for c in d.outputs]
    return "\n".join(lines) + "\n"


def _listed(d: PlanDiff) -> list[ResourceChange]:
    """Deletions and replacements first (each kind in run order), then the rest."""
    order = {id(r): i for i, r in enumerate(d.resources)}
    return sorted(d.resources, key=lambda r: (_RANK[r.op] > 1, order[id(r)]))


# -- markdown --------------------------------------------------------------------------

_MD_OP = {
    "create": "+ create",
    "delete": "- **delete**",
    "update": "~ update",
    "replace": "± **replace**",
    "same": "= same",
}


def _code(text: str) -> str:
    """`text` as inline code that survives a markdown table cell."""
    text = text.replace("|", "\\|").replace("\n", " ")
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def _inputs_cell(r: ResourceChange) -> str:
    paths = [_code(c.path) for c in r.inputs[:6]]
    if len(r.inputs) > 6:
        paths.append(f"… {len(r.inputs) - 6} more")
    if r.deps_added or r.deps_removed:
        paths.append("dependencies")
    if reason := why(r):
        paths.append(f"**{reason}**")
    return ", ".join(paths)


def _destructive_block(d: PlanDiff) -> list[str]:
    loud = [r for r in _listed(d) if destroys(r)]
    if not loud:
        return []
    out = ["> [!CAUTION]", f"> **This change destroys {len(loud)} resource(s) that matter.**", ">"]
    for r in loud:
        what = destroys(r)
        reason = why(r)
        line = f"> - **{r.op}** {_code(r.name)} ({_code(r.type)})"
        if what:
            line += f": destroys {what}"
        if reason:
            line += f" — {reason}"
        out.append(line)
    return [*out, ""]


def render_markdown(d: PlanDiff, base: Snapshot, head: Snapshot) -> str:
    out = [f"### Plan diff: {_code(_title(d))}", ""]
    if not d.changed:
        out.append(f"No changes: the same {d.unchanged} resources with the same inputs.")
        return "\n".join(out) + "\n"
    out += [f"**{summary(d)}**", ""]
    out += _destructive_block(d)
    if d.resources:
        out += ["| | resource | type | changed |", "|---|---|---|---|"]
        for r in _listed(d):
            out.append(
                f"| {_MD_OP[r.op]} | {_code(r.name)} | {_code(r.type)} | {_inputs_cell(r)} |"
            )
        out.append("")
    out += _details(d)
    if d.outputs:
        out += ["#### Stack outputs", "", "| output | base | head |", "|---|---|---|"]
        out += [
            f"| {_code(c.path)} | {_code(show(c.old))} | {_code(show(c.new))} |" for c in d.outputs
        ]
        out.append("")
    if d.resources:
        out += ["```mermaid", render_changed_mermaid(d, base, head).rstrip("\n"), "```", ""]
    return "\n".join(out)


def _details(d: PlanDiff) -> list[str]:
    """The collapsed section: each changed resource's inputs and dependencies."""
    out: list[str] = []
    detailed = [r for r in _listed(d) if r.inputs or r.deps_added or r.deps_removed or r.ignored]
    if detailed:
        out += ["<details><summary>Changed inputs and dependencies</summary>", ""]
        for r in detailed:
            reason = why(r)
            out += [
                f"#### {_code(r.name)} ({_code(r.type)})" + (f" — {reason}" if reason else ""),
                "",
            ]
            if r.inputs or r.ignored:
                out += ["| input | base | head |", "|---|---|---|"]
                for c in r.inputs:
                    delta = _line_delta(c)
                    new = _code(show(c.new)) + (f" ({delta})" if delta else "")
                    out.append(f"| {_code(c.path)} | {_code(show(c.old))} | {new} |")
                for path in r.ignored:
                    out.append(f"| {_code(path)} | changed | ignored (`ignoreChanges`) |")
                out.append("")
            for dep in r.deps_added:
                out.append(f"- now depends on {_code(_short_name(dep))}")
            for dep in r.deps_removed:
                out.append(f"- no longer depends on {_code(_short_name(dep))}")
            if r.deps_added or r.deps_removed:
                out.append("")
        out += ["</details>", ""]
    return out


# -- mermaid ---------------------------------------------------------------------------

_CONTEXT_LIMIT = 60  # past this many changed resources, neighbours are left out
_STYLE = {"create": "added", "delete": "removed", "replace": "replaced"}


def render_changed_mermaid(d: PlanDiff, base: Snapshot, head: Snapshot) -> str:
    """The changed resources, their direct dependencies and dependents (as context), and
    the edges between them: solid as in head, dotted where base had an edge head lacks."""
    # Resources by identity chain, so a base planned with the old URN spelling (or under
    # another stack name) draws each resource once, as the diff compares them.
    chain = {**identity_keys(base), **identity_keys(head)}
    info = {chain[r["urn"]]: r for r in (*base["resources"], *head["resources"])}
    old_deps, new_deps = _identity_deps(base), _identity_deps(head)
    style = {chain[r.key]: _STYLE.get(r.op, "changed") for r in d.resources}
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
    for k in keys:
        name = str(info[k]["name"]).replace('"', "'")
        kind = str(info[k]["type"]).split(":")[-1]
        lines.append(f'  {ids[k]}["{name}<br/><small>{kind}</small>"]:::{style.get(k, "context")}')
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
    return "\n".join(lines) + "\n"


def diff_files(
    base: Path, head: Path, *, markdown: bool, json_out: Path | None = None
) -> tuple[int, str]:
    """(exit code, text) for `python -m stacks diff`; raises SnapshotError on bad input.
    With `json_out`, the classification is written there too."""
    old, new = load_snapshot(base), load_snapshot(head)
    d = diff_snapshots(old, new)
    if json_out is not None:
        text = json.dumps(d.as_json(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        write_output(json_out, text, "--json")
    text = render_markdown(d, old, new) if markdown else render_text(d)
    return (1 if d.changed else 0), text
