"""Input paths as the plan diff writes them: `a.b[0]["odd key"]`, and how they match rules.

Shared by the snapshot (secret digests by path), the diff (changed input paths) and the
lifecycle rules (which paths force a replacement).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_PLAIN_KEY = re.compile(r"[A-Za-z_$][\w$-]*")
_SEGMENT = re.compile(r'\.?([A-Za-z_$][\w$-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]')


def path_join(prefix: str, key: object) -> str:
    """`prefix` extended by a list index or an object key."""
    if isinstance(key, int):
        return f"{prefix}[{key}]"
    text = str(key)
    if _PLAIN_KEY.fullmatch(text):
        return f"{prefix}.{text}" if prefix else text
    return f"{prefix}[{json.dumps(text)}]"


def segments(path: str) -> list[str | int]:
    """`a.b[0]["c.d"]` -> ["a", "b", 0, "c.d"]."""
    out: list[str | int] = []
    pos = 0
    while pos < len(path):
        m = _SEGMENT.match(path, pos)
        if m is None:
            raise ValueError(f"not an input path: {path!r}")
        name, index, quoted = m.groups()
        out.append(
            name if name is not None else int(index) if index is not None else json.loads(quoted)
        )
        pos = m.end()
    return out


def rule_segments(rule: str) -> list[str]:
    """A rule path (`metadata.user_data`, `.spec.containers[*].image`, `triggers[*]`) as
    names, `*` for any list element; a rule names objects' keys, lists are looked through."""
    text = rule.lstrip(".")
    return [part for part in re.split(r"\.|\[\*\]", text) if part]


def matches(rule: str, path: str) -> bool:
    """Whether a change at `path` is at or under what `rule` names. List indices in `path`
    match any element (`[*]`, or a Terraform block path that does not name the index)."""
    want = rule_segments(rule)
    have = [s for s in segments(path) if not isinstance(s, int)]
    return have[: len(want)] == want


class _Missing:
    def __repr__(self) -> str:
        return "(none)"


MISSING: Any = _Missing()
"""The value of an input path one side lacks."""


@dataclass(frozen=True)
class InputChange:
    path: str
    old: Any
    new: Any


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Leaf paths (`a.b[0].c`) to scalar values; empty objects and lists are leaves."""
    if isinstance(value, dict) and value:
        out: dict[str, Any] = {}
        for k in sorted(value):
            out.update(flatten(value[k], path_join(prefix, k)))
        return out
    if isinstance(value, list) and value:
        out = {}
        for i, v in enumerate(value):
            out.update(flatten(v, path_join(prefix, i)))
        return out
    return {prefix: value}


def input_changes(old: Any, new: Any) -> list[InputChange]:
    a, b = flatten(old), flatten(new)
    return [
        InputChange(p, a.get(p, MISSING), b.get(p, MISSING))
        for p in sorted(set(a) | set(b))
        if p not in a or p not in b or a[p] != b[p] or type(a[p]) is not type(b[p])
    ]
