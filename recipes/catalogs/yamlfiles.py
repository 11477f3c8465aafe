"""Catalog YAML through the one careful reader, cached, and a faster construction of it.

Every catalog file is read by `core.read_yaml` with `core.read_limits.CATALOG_FILE`: the
file must lie inside its data directory once symlinks are followed and be a regular file
within the size bound (`core.read_files`), and its nesting and alias expansion are bounded
before anything is built. Files are read once per process and keyed by (path, mtime,
size), so resolving many recipes, or loading the same data directories twice, never
re-parses a file.

Parsing goes through libyaml (`core.yaml_text`'s safe loader), but most of a load is spent
in PyYAML's Python half: resolving each plain scalar's tag and constructing the objects.
`_Loader` caches the tag of each plain scalar text (the resolver is a pure function of
it) and `_construct` builds plain maps, lists and scalars in one recursive pass (its depth
already bounded), sharing the object of an anchored node as PyYAML does. Anything else
(merge keys, `!!set`-style collections, an unhashable key) is handed to the standard
constructor, so the data, and the messages of a broken document, are exactly
`core.yaml_text.load`'s (tests compare both on every file of the shared catalogs). A full
AICR catalog then loads in well under 200 ms.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from core import read_yaml, yaml_text
from core.read_files import FileMissingError, FileRefusedError, inspect, read_bytes
from core.read_limits import CATALOG_FILE
from core.yaml_source import YamlRefusedError, decode, syntax_message
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
        return made[key]
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


def _construct(loader: Any, node: Node) -> Any:
    """`node` as data: the fast pass, else PyYAML's own constructor (and its errors)."""
    try:
        return _build(loader, node, {})
    except (_SlowPathError, TypeError):  # TypeError: a mapping or list as a key
        return loader.construct_document(node)


CATALOG = read_yaml.Schema(_Loader, yaml.SafeLoader, _construct)
"""How catalog files are read: PyYAML's safe loader (YAML 1.1 scalars), constructed fast."""


def load_text(text: str, name: str = "<text>") -> Any:
    """The single YAML document in `text`, as `core.yaml_text.load` reads it, within the
    catalog bounds: raises `yaml.YAMLError` for what is not YAML, RecipeError past a bound."""
    try:
        return read_yaml.parse(text, name=name, limits=CATALOG_FILE, schema=CATALOG).data
    except YamlRefusedError as err:
        raise RecipeError(str(err)) from None


def load_text_all(text: str, name: str) -> list[Any]:
    """Every YAML document in `text` (a manifest file), within the catalog bounds."""
    try:
        return read_yaml.parse_all(text, name=name, limits=CATALOG_FILE, schema=read_yaml.SAFE)
    except YamlRefusedError as err:
        raise RecipeError(str(err)) from None


def read_catalog_text(path: Path, rel: str, root: Path | None) -> str:
    """A catalog file's text (UTF-8), read by the careful reader: inside `root` (its data
    directory) once symlinks are followed, a regular file within the size bound."""
    try:
        raw = read_bytes(path, name=rel, limits=CATALOG_FILE, root=root, where=_dir(root))
        return decode(rel, raw)
    except FileMissingError:
        raise RecipeError(f"{rel}: cannot read file: no such file") from None
    except (FileRefusedError, YamlRefusedError) as err:  # one line naming the file and the fix
        raise RecipeError(str(err)) from None


def check_catalog_file(path: Path, name: str, root: Path | None) -> None:
    """What `read_catalog_text` checks, without opening the file (`name` in messages)."""
    try:
        inspect(path, name=name, limits=CATALOG_FILE, root=root, where=_dir(root))
    except FileRefusedError as err:  # one line naming the file and the fix
        raise RecipeError(str(err)) from None


def _dir(root: Path | None) -> str:
    return f"its data directory {root}" if root is not None else ""


def load_yaml(path: Path, rel: str, root: Path | None = None) -> Any:
    """The single YAML document in `path`; `rel` names the file in error messages, `root`
    is the data directory it must lie in."""
    try:
        st = path.stat()
        key = (str(path), st.st_mtime_ns, st.st_size)
    except OSError:
        key = None  # read_catalog_text says why
    if key is not None and key in _cache:  # read (and checked) before, unchanged since
        return _cache[key]
    text = read_catalog_text(path, rel, root)
    try:
        data = load_text(text, rel)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise RecipeError(f"{rel}: malformed YAML: {where}{exc.problem}") from None
    except yaml.YAMLError as exc:  # a character YAML does not allow
        raise RecipeError(syntax_message(rel, text, exc)) from None
    if key is not None:
        _cache[key] = data
    return data
