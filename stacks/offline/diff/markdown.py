"""A plan diff as GitHub markdown, for a pull request comment (`stacks diff --markdown`).

Destructive operations first, in a caution block; then a table of every change, the
changed inputs and dependencies in a collapsed section, changed stack outputs, and a
Mermaid picture of the changed part of the graph.
"""

from __future__ import annotations

import re

from stacks.offline.diff.changes import PlanDiff, ResourceChange, destroys
from stacks.offline.diff.mermaid import render_changed_mermaid
from stacks.offline.diff.words import line_delta, listed, short_name, show, summary, title, why
from stacks.offline.lifecycle.fate import PROVIDER
from stacks.offline.snapshot.shape import Snapshot

_BACKTICKS = re.compile(r"`+")
_MD_OP = {
    "create": "+ create",
    "delete": "- **delete**",
    "update": "~ update",
    "replace": "± **replace**",
    "may-replace": "? **may replace**",
    "same": "= same",
}


def _code(text: str) -> str:
    """`text` as inline code that survives a markdown table cell: fenced by one backtick more
    than its longest run of them (CommonMark 6.1: a code span closes only on a run of equal
    length, so the text cannot close it and whatever follows, HTML included, stays code),
    padded with a space where the text holds one (the span drops one on each side)."""
    text = text.replace("|", "\\|").replace("\n", " ")
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(text)), default=0) + 1)
    pad = " " if "`" in text else ""
    return f"{fence}{pad}{text}{pad}{fence}"


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
    """The caution block: what certainly goes, each resource on a replaced provider named."""
    loud = [r for r in listed(d) if destroys(r) and r.op != "may-replace"]
    if not loud:
        return []
    out = ["> [!CAUTION]", f"> **This change destroys {len(loud)} resource(s) that matter.**", ">"]
    out += [_line(r, "destroys") for r in loud]
    # Everything on a replaced provider goes with it: each is named, not only the loud ones.
    rest = [
        r
        for r in listed(d)
        if r.op == "replace" and PROVIDER in r.replace_because and r not in loud
    ]
    if rest:
        names = ", ".join(f"{_code(r.name)} ({_code(short_name(r.type))})" for r in rest)
        out.append(f"> - and {len(rest)} more replaced because their provider is: {names}")
    return [*out, ""]


def _uncertain_block(d: PlanDiff) -> list[str]:
    """The warning block: what the plans cannot tell, each with why; never a fact."""
    maybe = [r for r in listed(d) if r.op == "may-replace"]
    if not maybe:
        return []
    cannot = sum(1 for r in maybe if r.cannot_predict)
    head = f"> **The plans cannot tell whether {len(maybe)} resource(s) are replaced"
    head += f" ({cannot} cannot be predicted at all).**" if cannot else ".**"
    out = ["> [!WARNING]", head, ">"]
    out += [_line(r, "may destroy") for r in maybe]
    return [*out, ""]


def _line(r: ResourceChange, verb: str) -> str:
    line = f"> - **{r.op.replace('-', ' ')}** {_code(r.name)} ({_code(r.type)})"
    if what := destroys(r):
        line += f": {verb} {what}"
    if reason := why(r):
        line += f" — {reason}"
    return line


def render_markdown(d: PlanDiff, base: Snapshot, head: Snapshot) -> str:
    out = [f"### Plan diff: {_code(title(d))}", ""]
    if not d.changed:
        out.append(f"No changes: the same {d.unchanged} resources with the same inputs.")
        return "\n".join(out) + "\n"
    out += [f"**{summary(d)}**", ""]
    out += _destructive_block(d)
    out += _uncertain_block(d)
    if d.resources:
        out += ["| | resource | type | changed |", "|---|---|---|---|"]
        for r in listed(d):
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
    detailed = [r for r in listed(d) if r.inputs or r.deps_added or r.deps_removed or r.ignored]
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
                    delta = line_delta(c)
                    new = _code(show(c.new)) + (f" ({delta})" if delta else "")
                    out.append(f"| {_code(c.path)} | {_code(show(c.old))} | {new} |")
                for path in r.ignored:
                    out.append(f"| {_code(path)} | changed | ignored (`ignoreChanges`) |")
                out.append("")
            for dep in r.deps_added:
                out.append(f"- now depends on {_code(short_name(dep))}")
            for dep in r.deps_removed:
                out.append(f"- no longer depends on {_code(short_name(dep))}")
            if r.deps_added or r.deps_removed:
                out.append("")
        out += ["</details>", ""]
    return out
