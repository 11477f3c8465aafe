"""A plan diff in a few words, as the text and the markdown both show it.

Values stay short and secret-free: snapshots show secrets as "[secret]" (a changed secret
is seen through its digest, never its value), and long strings such as scripts are shown
as their length, line count and a short digest, never in full. Also: why a resource is
replaced or deleted, the summary line, and the order changes are listed in.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from typing import Any

from stacks.offline.diff.changes import PlanDiff, ResourceChange
from stacks.offline.lifecycle.fate import KNOWN, PROVIDER
from stacks.offline.snapshot.paths import MISSING, InputChange

_SHORT = 48  # strings longer than this are summarized
_HEX = re.compile(r"^[0-9a-f]{32,128}$")


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


def line_delta(change: InputChange) -> str:
    """`+2 -2 lines` for a changed multi-line string (a script)."""
    old, new = change.old, change.new
    if not (isinstance(old, str) and isinstance(new, str) and ("\n" in old or "\n" in new)):
        return ""
    plus = minus = 0
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0):
        if line.startswith("+") and not line.startswith("+++"):
            plus += 1
        elif line.startswith("-") and not line.startswith("---"):
            minus += 1
    return f"+{plus} -{minus} lines"


def short_name(key: str) -> str:
    return key.rsplit("::", 1)[-1]


def summary(d: PlanDiff) -> str:
    dbr = sum(1 for r in d.resources if r.op == "replace" and r.delete_before_replace)
    parts = [
        f"{d.count('create')} to create",
        f"{d.count('update')} to update",
        f"{d.count('replace')} to replace" + (f" ({dbr} deleted first)" if dbr else ""),
    ]
    if maybe := d.count("may-replace"):  # only where the plans cannot know
        cannot = sum(1 for r in d.resources if r.cannot_predict)
        parts.append(
            f"{maybe} may be replaced" + (f" ({cannot} cannot be predicted)" if cannot else "")
        )
    parts += [
        f"{d.count('delete')} to delete",
        f"{d.unchanged + d.count('same')} unchanged",
    ]
    if d.outputs:
        n = len(d.outputs)
        parts.append(f"{n} output path{'' if n == 1 else 's'} changed")
    return ", ".join(parts)


def title(d: PlanDiff) -> str:
    return d.head if d.base == d.head else f"{d.base} → {d.head}"


def why(r: ResourceChange) -> str:
    """Why a resource is replaced, may be, or is deleted, in a few words."""
    notes = []
    if r.cannot_predict:
        notes.append(f"CANNOT PREDICT: no replacement rules for {r.type}")
    for path, reason in r.maybe:
        notes.append(f"{path}: {reason}")
    if r.op == "may-replace" and r.delete_before_replace:
        notes.append("deleted first if replaced")
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
    if r.kept_on_replace:
        notes.append(f"keeps its old {', '.join(r.kept_on_replace)} (ignoreChanges)")
    if r.protected:
        notes.append("protected: the engine refuses it")
    return "; ".join(notes)


_RANK = {"delete": 0, "replace": 1, "may-replace": 1, "create": 2, "update": 3, "same": 4}


def listed(d: PlanDiff) -> list[ResourceChange]:
    """Deletions and replacements first (each kind in run order), then the rest."""
    order = {id(r): i for i, r in enumerate(d.resources)}
    return sorted(d.resources, key=lambda r: (_RANK[r.op] > 1, order[id(r)]))
