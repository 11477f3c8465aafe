"""The keys a chart's `values.yaml` documents in its comments, as if uncommented.

A commented-out block (`# metrics:` / `#   serviceMonitor:` under `operator:`) is read by
its indentation, below the key it sits under. Prose (`# NOTE: ... sentence`, `## ...`,
helm-docs `# -- ...`) and commented-out list items are no keys; a documented `{}` or `[]`
(`# env: []`), or a documented key followed by list items, is `OPEN`: free-form.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import yaml

from core import yaml_text

_DOC_KEY = re.compile(r"""([A-Za-z0-9_][A-Za-z0-9_.\-/]*|"[^"]+"|'[^']+'):(?:\s+(.*))?$""")
_LIST_ITEM = re.compile(r"-(\s|$)")
_INLINE_COMMENT = re.compile(r"\s+#.*$")
_PROSE_WORDS = 4


class Open:
    """A documented `{}` or `[]`: free-form."""


OPEN = Open()


def documented_keys(text: str, node: yaml.Node | None) -> dict[str, Any]:
    """The keys `text` documents in comments, as a tree: a leaf holds the value the comment
    gives (`OPEN` for `{}`, `[]` or list items), a dict the keys documented under it."""
    positions: list[tuple[int, int, tuple[str, ...]]] = []
    _positions(node, (), positions)
    positions.sort()
    tree: dict[str, Any] = {}
    stack: list[tuple[int, tuple[str, ...]]] = []  # the commented-out block's open keys
    skip: int | None = None  # lines indented deeper are skipped (a list, a block scalar)
    for number, indent, content in _comments(text):
        if indent is None:  # a line of YAML ends the commented-out block
            stack, skip = [], None
            continue
        if skip is not None and (indent > skip or (indent == skip and _LIST_ITEM.match(content))):
            continue
        skip = None
        if _LIST_ITEM.match(content):
            skip = indent
            if stack and stack[-1][0] <= indent:
                _open_list(tree, stack[-1][1])  # `# key:` then `# - item`
            continue
        match = _DOC_KEY.match(content)
        rest = _INLINE_COMMENT.sub("", (match and match.group(2)) or "").strip()
        if match is None or (len(rest.split()) >= _PROSE_WORDS and rest[:1] not in "\"'[{"):
            continue  # prose, also `# NOTE: this option is deprecated ...`
        while stack and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1] if stack else _parent(positions, number, indent)
        path = (*parent, match.group(1).strip("\"'"))
        if rest[:1] in ("|", ">"):
            skip = indent  # a block scalar's lines
        _insert(tree, path, "" if skip is not None else _value(rest))
        stack.append((indent, path))
    return tree


def _comments(text: str) -> Iterator[tuple[int, int | None, str]]:
    """(line number, indent, text) of each comment line as if uncommented (one `#` and the
    space after it removed); indent None for a line of YAML. Prose comments (`##`, a
    comment inside a commented-out block) and blank lines are left out. (A `#` line inside a
    block scalar sits under the scalar's key, a string, so it documents nothing.)
    """
    for number, line in enumerate(text.splitlines()):
        stripped = line.lstrip()
        if not stripped:
            continue
        if not stripped.startswith("#"):
            yield number, None, ""
            continue
        body = stripped[1:].removeprefix(" ")
        content = body.lstrip()
        if content and not content.startswith("#"):
            yield number, len(line) - len(stripped) + len(body) - len(content), content


def _positions(
    node: yaml.Node | None, path: tuple[str, ...], found: list[tuple[int, int, tuple[str, ...]]]
) -> None:
    """Where each key of the document's maps is: (line, column, path). Keys inside lists
    are left out: what is documented under a list is free-form anyway."""
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            here = (*path, str(key.value))
            found.append((key.start_mark.line, key.start_mark.column, here))
            _positions(value, here, found)


def _parent(
    positions: list[tuple[int, int, tuple[str, ...]]], line: int, indent: int
) -> tuple[str, ...]:
    """The path of the key a comment at (`line`, `indent`) sits under."""
    for key_line, column, path in reversed(positions):
        if key_line < line and column < indent:
            return path
    return ()


def _value(text: str) -> Any:
    if not text:
        return None
    try:
        value = yaml_text.load(text)
    except yaml.YAMLError:
        return text
    return OPEN if value in ({}, []) else value


def _insert(tree: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    """`value` at `path` of `tree`, unless keys are documented there already."""
    node = tree
    for key in path[:-1]:
        child = node.get(key)
        if child is None:
            child = node[key] = {}
        if not isinstance(child, dict):
            return  # under a documented `{}` or a scalar: nothing more to know
        node = child
    if not isinstance(node.get(path[-1]), dict):
        node[path[-1]] = value


def _open_list(tree: dict[str, Any], path: tuple[str, ...]) -> None:
    """A documented key without a value (`# key:`) followed by list items: a list."""
    node: Any = tree
    for key in path[:-1]:
        node = node.get(key) if isinstance(node, dict) else None
    if isinstance(node, dict) and node.get(path[-1]) is None:
        node[path[-1]] = OPEN
