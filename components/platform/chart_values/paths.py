"""Helm values paths, and what a chart knows along them.

A path is Helm's: keys joined by dots, `\\.` a dot inside a key, `[i]` a list index (as
`releases.overrides.split_set` reads `set`, which refuses indexes; values files reach lists). What a
chart knows at each place of its values is a `Known`: a map of keys, a list, a scalar, or
free-form (anything beneath is accepted).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

Segment = str | int


@dataclass(frozen=True)
class Known:
    """What a chart knows at one place of its values."""

    kind: Literal["map", "list", "free", "scalar"]
    keys: Mapping[str, Known] = field(default_factory=dict)
    """A map's keys."""
    items: Known | None = None
    """A list's items (None: free-form)."""
    what: str = ""
    """A scalar's default, in words (`a string`, `null`)."""


FREE = Known("free")


def render(path: Sequence[Segment]) -> str:
    """`path` as Helm writes it: `a.b[0].c`, a dot inside a key escaped (`nvidia\\.com`)."""
    text = ""
    for segment in path:
        if isinstance(segment, int):
            text += f"[{segment}]"
        else:
            key = segment.replace(".", "\\.")
            text += f".{key}" if text else key
    return text


def walk(root: Known, path: Sequence[Segment]) -> tuple[int, Known] | None:
    """(index of the first segment `root` does not know, the place it was looked up in)."""
    node = root
    for index, segment in enumerate(path):
        if node.kind == "free":
            return None
        if isinstance(segment, int):
            if node.kind != "list":
                return index, node
            node = node.items or FREE
        elif node.kind == "map" and segment in node.keys:
            node = node.keys[segment]
        else:
            return index, node
    return None
