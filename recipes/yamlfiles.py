"""Parsed-YAML cache shared by every catalog load, and a faster construction of catalog YAML.

Catalog files are read once per process and keyed by (path, mtime, size), so resolving
many recipes, or loading the same data directories twice, never re-parses a file.

Parsing goes through libyaml (`core.yaml_text`'s safe loader), but most of a load is spent
in PyYAML's Python half: resolving each plain scalar's tag and constructing the objects.
`load_text` caches the tag of each plain scalar text (the resolver is a pure function of
it) and builds plain maps, lists and scalars in one recursive pass, sharing the object of
an anchored node as PyYAML does. Anything else (merge keys, `!!set`-style collections, a
cycle, an error) is handed to the standard safe loader, so the data, and the messages of a
broken document, are exactly `core.yaml_text.load`'s (tests compare both on every file of
the shared catalogs). A full AICR catalog then loads in well under 200 ms.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from core import yaml_text
from recipes.errors import RecipeError

_cache: dict[tuple[str, int, int], Any] = {}
_STR, _MAP, _SEQ = yaml_text.STR, yaml_text.MAP, yaml_text.SEQ
_MERGE = yaml_text.MERGE
_tags: dict[str, str] = {}
_resolve = yaml.resolver.Resolver.resolve


class _SlowPathError(LookupError):
    """The document needs the standard constructor."""


class _Loader(yaml_text.SafeLoader):  # type: ignore[misc,valid-type]
    def resolve(self, kind: type[Node], value: Any, implicit: tuple[bool, bool]) -> str:
        if kind is ScalarNode:
            if not implicit[0]:
                return _STR
            tag = _tags.get(value)
            if tag is None:
                tag = _tags[value] = _resolve(self, kind, value, implicit)  # type: ignore[no-untyped-call]
            return tag
        return _MAP if kind is MappingNode else _SEQ


def _build(loader: Any, node: Node, made: dict[int, Any]) -> Any:
    tag = node.tag
    if tag == _STR and isinstance(node, ScalarNode):
        return node.value
    key = id(node)
    if key in made:
        if made[key] is _SlowPathError:
            raise _SlowPathError  # a cycle: PyYAML builds it, a tree walk cannot
        return made[key]
    made[key] = _SlowPathError
    if tag == _MAP and isinstance(node, MappingNode):
        out: Any = {}
        for k, v in node.value:
            if k.tag == _MERGE:
                raise _SlowPathError
            out[_build(loader, k, made)] = _build(loader, v, made)
    elif tag == _SEQ and isinstance(node, SequenceNode):
        out = [_build(loader, v, made) for v in node.value]
    elif isinstance(node, ScalarNode) and tag in loader.yaml_constructors:
        out = loader.yaml_constructors[tag](loader, node)
    else:
        raise _SlowPathError
    made[key] = out
    return out


def load_text(text: str) -> Any:
    """The single YAML document in `text`, as `core.yaml_text.load` reads it."""
    try:
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            return None if node is None else _build(loader, node, {})
        finally:
            loader.dispose()
    except (_SlowPathError, yaml.YAMLError, UnicodeError, TypeError, RecursionError):
        return yaml_text.load(text)


def load_yaml(path: Path, rel: str) -> Any:
    """The single YAML document in `path`; `rel` names the file in error messages."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise RecipeError(f"{rel}: cannot read file: {exc.strerror}") from None
    key = (str(path), st.st_mtime_ns, st.st_size)
    if key in _cache:
        return _cache[key]
    try:
        text = path.read_text(encoding="utf-8")
        data = load_text(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise RecipeError(f"{rel}: malformed YAML: {where}{exc.problem}") from None
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise RecipeError(f"{rel}: malformed YAML: {exc}") from None
    _cache[key] = data
    return data
