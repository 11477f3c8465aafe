"""A plan diff as plain text: what `python -m stacks diff` prints by default."""

from __future__ import annotations

from stacks.offline.diff.changes import PlanDiff, destroys
from stacks.offline.diff.words import line_delta, listed, short_name, show, summary, title, why

_TEXT_OP = {
    "create": "+",
    "delete": "-",
    "update": "~",
    "replace": "+-",
    "may-replace": "?",
    "same": "=",
}


def render_text(d: PlanDiff) -> str:
    if not d.changed:
        return f"{title(d)}: no changes ({d.unchanged} resources)\n"
    lines = [f"{title(d)}: {summary(d)}"]
    if cannot := [r for r in d.resources if r.cannot_predict]:
        types = sorted({r.type for r in cannot})
        lines.append(
            f"!! CANNOT PREDICT {len(cannot)} resource(s): no replacement rules for "
            f"{', '.join(types)} (add them to stacks/offline/lifecycle/replacements/)"
        )
    for r in listed(d):
        reason = why(r)
        note = f"  ({r.op}: {reason})" if reason else ""
        if r.op == "same":
            note = "  (dependencies only: no operation)"
        lines.append(f"{_TEXT_OP[r.op]:>2} {r.type}  {r.name}{note}")
        if what := destroys(r):
            may = "may destroy" if r.op == "may-replace" else "destroys"
            lines.append(f"      !! {may} {what}")
        for c in r.inputs:
            delta = line_delta(c)
            lines.append(
                f"      {c.path}: {show(c.old)} → {show(c.new)}" + (f"  ({delta})" if delta else "")
            )
        for path in r.ignored:
            lines.append(f"      {path}: changed, ignored (ignoreChanges)")
        for dep in r.deps_added:
            lines.append(f"      depends on + {short_name(dep)}")
        for dep in r.deps_removed:
            lines.append(f"      depends on - {short_name(dep)}")
    if d.outputs:
        lines.append("stack outputs:")
        lines += [f"      {c.path}: {show(c.old)} → {show(c.new)}" for c in d.outputs]
    return "\n".join(lines) + "\n"
