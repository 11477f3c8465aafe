"""Compare two plan snapshots: what a change to the program or a stack's config does.

`python -m stacks diff BASE.json HEAD.json [--markdown]` reads two files written by
`python -m stacks plan STACK --json FILE` and prints resources to add, remove and change
(with each changed input path, old -> new), dependency changes, changed stack outputs, and
(in markdown) a Mermaid picture of the changed part of the graph. Exit 0: no changes;
1: changes (like `git diff --exit-code`); 2: a file is not a readable plan snapshot.

Values stay short and secret-free: snapshots already show secrets as "[secret]" (so a
change inside a secret is invisible here), and long strings such as scripts are shown as
their length, line count and a short digest, never in full.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from stacks.errors import GpuCiError
from stacks.snapshot import Snapshot, collapsed_dependencies


class SnapshotError(GpuCiError):
    """A file that is not a readable plan snapshot (one line, naming the file)."""


class _Missing:
    def __repr__(self) -> str:
        return "(none)"


MISSING: Any = _Missing()
"""The value of an input path one side lacks."""

# Inputs whose change makes the provider replace the resource rather than update it.
REPLACE_ON: dict[str, tuple[str, ...]] = {
    "command:remote:Command": ("triggers",),
    "command:local:Command": ("triggers",),
    "command:remote:CopyToRemote": ("triggers",),
}

_SHORT = 48  # strings longer than this are summarized
_HEX = re.compile(r"^[0-9a-f]{32,128}$")
_REQUIRED: dict[str, type] = {
    "urn": str,
    "type": str,
    "name": str,
    "parent": str,
    "dependencies": list,
}


@dataclass(frozen=True)
class InputChange:
    path: str
    old: Any
    new: Any


@dataclass(frozen=True)
class ResourceChange:
    op: Literal["add", "remove", "update", "replace"]
    key: str
    name: str
    type: str
    inputs: tuple[InputChange, ...] = ()
    deps_added: tuple[str, ...] = ()
    deps_removed: tuple[str, ...] = ()
    replace_because: tuple[str, ...] = ()


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


# -- reading ---------------------------------------------------------------------------


def load_snapshot(path: Path) -> Snapshot:
    """A snapshot file, checked for the shape `stacks.snapshot` writes."""
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


def urn_key(urn: str) -> str:
    """A URN without its `urn:pulumi:STACK::PROJECT::` prefix: the same resource of two
    stacks (a plan of `dev` and of a renamed copy) compares as one."""
    parts = urn.split("::", 2)
    return parts[2] if len(parts) == 3 and parts[0].startswith("urn:pulumi:") else urn


def _path(prefix: str, key: object) -> str:
    if isinstance(key, int):
        return f"{prefix}[{key}]"
    text = str(key)
    if re.fullmatch(r"[A-Za-z_$][\w$-]*", text):
        return f"{prefix}.{text}" if prefix else text
    return f"{prefix}[{json.dumps(text)}]"


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Leaf paths (`a.b[0].c`) to scalar values; empty objects and lists are leaves."""
    if isinstance(value, dict) and value:
        out: dict[str, Any] = {}
        for k in sorted(value):
            out.update(flatten(value[k], _path(prefix, k)))
        return out
    if isinstance(value, list) and value:
        out = {}
        for i, v in enumerate(value):
            out.update(flatten(v, _path(prefix, i)))
        return out
    return {prefix: value}


def input_changes(old: Any, new: Any) -> list[InputChange]:
    a, b = flatten(old), flatten(new)
    return [
        InputChange(p, a.get(p, MISSING), b.get(p, MISSING))
        for p in sorted(set(a) | set(b))
        if p not in a or p not in b or a[p] != b[p] or type(a[p]) is not type(b[p])
    ]


def _replace_because(type_: str, changes: Iterable[InputChange]) -> tuple[str, ...]:
    roots = REPLACE_ON.get(type_, ())
    hits = {root for c in changes for root in roots if re.match(rf"{root}(\W|$)", c.path)}
    return tuple(sorted(hits))


def diff_snapshots(base: Snapshot, head: Snapshot) -> PlanDiff:
    old = {urn_key(r["urn"]): r for r in base["resources"]}
    new = {urn_key(r["urn"]): r for r in head["resources"]}
    old_deps = _named_deps(base)
    new_deps = _named_deps(head)
    result = PlanDiff(base=_label(base), head=_label(head))
    for key in sorted(set(old) | set(new)):
        if key not in old:
            r = new[key]
            result.resources.append(ResourceChange("add", key, r["name"], r["type"]))
            continue
        if key not in new:
            r = old[key]
            result.resources.append(ResourceChange("remove", key, r["name"], r["type"]))
            continue
        r = new[key]
        changes = input_changes(old[key].get("inputs", {}), r.get("inputs", {}))
        added = tuple(sorted(new_deps[key] - old_deps[key]))
        removed = tuple(sorted(old_deps[key] - new_deps[key]))
        if not (changes or added or removed):
            result.unchanged += 1
            continue
        because = _replace_because(r["type"], changes)
        result.resources.append(
            ResourceChange(
                "replace" if because else "update",
                key,
                r["name"],
                r["type"],
                tuple(changes),
                added,
                removed,
                because,
            )
        )
    rank = {**_run_order(base), **_run_order(head)}
    result.resources.sort(key=lambda c: (rank.get(c.key, 0), c.key))
    result.outputs = input_changes(base.get("outputs", {}), head.get("outputs", {}))
    return result


def _run_order(snap: Snapshot) -> dict[str, int]:
    """Each resource's place in one order the engine could run them (ties by URN), so a
    diff lists a chain of changed steps in the order they run."""
    deps = {urn_key(r["urn"]): {urn_key(d) for d in r["dependencies"]} for r in snap["resources"]}
    for r in snap["resources"]:  # a component starts before its children
        if r["parent"]:
            deps[urn_key(r["urn"])].add(urn_key(r["parent"]))
    pending = set(deps)
    rank: dict[str, int] = {}
    while pending:
        ready = sorted(k for k in pending if not deps[k] & pending) or sorted(pending)[:1]
        for k in ready:
            rank[k] = len(rank)
        pending -= set(ready)
    return rank


def _label(snap: Snapshot) -> str:
    return f"{snap['project']}/{snap['stack']}"


def _named_deps(snap: Snapshot) -> dict[str, set[str]]:
    """Each resource's (collapsed) dependencies, by URN key, as URN keys."""
    return {
        urn_key(urn): {urn_key(d) for d in deps}
        for urn, deps in collapsed_dependencies(snap).items()
    }


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
    if value in ("[secret]", "[unknown]"):
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

_TEXT_OP = {"add": "+", "remove": "-", "update": "~", "replace": "+-"}


def summary(d: PlanDiff) -> str:
    parts = [
        f"{d.count('add')} to add",
        f"{d.count('update', 'replace')} to change ({d.count('replace')} replaced)",
        f"{d.count('remove')} to remove",
        f"{d.unchanged} unchanged",
    ]
    if d.outputs:
        n = len(d.outputs)
        parts.append(f"{n} output path{'' if n == 1 else 's'} changed")
    return ", ".join(parts)


def _title(d: PlanDiff) -> str:
    return d.head if d.base == d.head else f"{d.base} → {d.head}"


def render_text(d: PlanDiff) -> str:
    if not d.changed:
        return f"{_title(d)}: no changes ({d.unchanged} resources)\n"
    lines = [f"{_title(d)}: {summary(d)}"]
    for r in d.resources:
        note = f"  (replace: {', '.join(r.replace_because)} changed)" if r.replace_because else ""
        lines.append(f"{_TEXT_OP[r.op]:>2} {r.type}  {r.name}{note}")
        for c in r.inputs:
            delta = _line_delta(c)
            lines.append(
                f"      {c.path}: {show(c.old)} → {show(c.new)}" + (f"  ({delta})" if delta else "")
            )
        for dep in r.deps_added:
            lines.append(f"      depends on + {_short_name(dep)}")
        for dep in r.deps_removed:
            lines.append(f"      depends on - {_short_name(dep)}")
    if d.outputs:
        lines.append("stack outputs:")
        lines += [f"      {c.path}: {show(c.old)} → {show(c.new)}" for c in d.outputs]
    return "\n".join(lines) + "\n"


# -- markdown --------------------------------------------------------------------------

_MD_OP = {"add": "+ add", "remove": "- remove", "update": "~ update", "replace": "± replace"}


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
    return ", ".join(paths)


def render_markdown(d: PlanDiff, base: Snapshot, head: Snapshot) -> str:
    out = [f"### Plan diff: {_code(_title(d))}", ""]
    if not d.changed:
        out.append(f"No changes: the same {d.unchanged} resources with the same inputs.")
        return "\n".join(out) + "\n"
    out += [f"**{summary(d)}**", ""]
    if d.resources:
        out += ["| | resource | type | changed |", "|---|---|---|---|"]
        for r in d.resources:
            out.append(
                f"| {_MD_OP[r.op]} | {_code(r.name)} | {_code(r.type)} | {_inputs_cell(r)} |"
            )
        out.append("")
    detailed = [r for r in d.resources if r.inputs or r.deps_added or r.deps_removed]
    if detailed:
        out += ["<details><summary>Changed inputs and dependencies</summary>", ""]
        for r in detailed:
            why = (
                f" — replaced: {', '.join(r.replace_because)} changed" if r.replace_because else ""
            )
            out += [f"#### {_code(r.name)} ({_code(r.type)}){why}", ""]
            if r.inputs:
                out += ["| input | base | head |", "|---|---|---|"]
                for c in r.inputs:
                    delta = _line_delta(c)
                    new = _code(show(c.new)) + (f" ({delta})" if delta else "")
                    out.append(f"| {_code(c.path)} | {_code(show(c.old))} | {new} |")
                out.append("")
            for dep in r.deps_added:
                out.append(f"- now depends on {_code(_short_name(dep))}")
            for dep in r.deps_removed:
                out.append(f"- no longer depends on {_code(_short_name(dep))}")
            if r.deps_added or r.deps_removed:
                out.append("")
        out += ["</details>", ""]
    if d.outputs:
        out += ["#### Stack outputs", "", "| output | base | head |", "|---|---|---|"]
        out += [
            f"| {_code(c.path)} | {_code(show(c.old))} | {_code(show(c.new))} |" for c in d.outputs
        ]
        out.append("")
    if d.resources:
        out += ["```mermaid", render_changed_mermaid(d, base, head).rstrip("\n"), "```", ""]
    return "\n".join(out)


# -- mermaid ---------------------------------------------------------------------------

_CONTEXT_LIMIT = 60  # past this many changed resources, neighbours are left out


def render_changed_mermaid(d: PlanDiff, base: Snapshot, head: Snapshot) -> str:
    """The changed resources, their direct dependencies and dependents (as context), and
    the edges between them: solid as in head, dotted where base had an edge head lacks."""
    info = {urn_key(r["urn"]): r for r in base["resources"]}
    info.update({urn_key(r["urn"]): r for r in head["resources"]})
    old_deps, new_deps = _named_deps(base), _named_deps(head)
    style = {r.key: {"add": "added", "remove": "removed"}.get(r.op, "changed") for r in d.resources}
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
        "  classDef changed fill:#fff8c5,stroke:#9a6700",
        "  classDef context fill:#f6f8fa,stroke:#d0d7de,color:#57606a",
    ]
    return "\n".join(lines) + "\n"


def diff_files(base: Path, head: Path, *, markdown: bool) -> tuple[int, str]:
    """(exit code, text) for `python -m stacks diff`; raises SnapshotError on bad input."""
    old, new = load_snapshot(base), load_snapshot(head)
    d = diff_snapshots(old, new)
    text = render_markdown(d, old, new) if markdown else render_text(d)
    return (1 if d.changed else 0), text
