"""The one careful reader of YAML: every YAML file or text the program reads goes through it
(`tests/test_reader_architecture.py` keeps it so).

A document is read in steps, each bounded by the file's `Limits` (`core.read_limits`):

1. the file (`core.read_files`: inside its root once symlinks are followed, a regular file,
   no larger than `max_bytes`), decoded as yaml.v3 decodes it (UTF-8, a BOM dropped, or
   UTF-16 with a BOM; NUL bytes refused);
2. the event stream scanned for nesting past `max_depth` and values past `max_values`
   *before* composing: libyaml's composer recurses in C, and a document nested 50,000
   levels deep crashes the interpreter (measured, PyYAML 6.0.3), while the event stream is
   flat;
3. composed into a node graph, where aliases stay shared nodes (nothing is expanded);
4. the caller's own checks (a stack file's: duplicate keys, tags, ...), then, where the
   scan met an alias, `bound`: the graph's size with every alias expanded and its depth
   through aliases, computed once per node (an alias bomb's billion values cost a few
   hundred steps), and any value that contains itself, which yaml.v3 refuses too
   ("anchor 'x' value contains itself", go-yaml/yaml decode.go @ 00aeb2c6, `alias`), all
   refused before anything is built (without aliases, the scan's counts are the graph's);
5. constructed.

A malformed document is composed again by the pure-Python loader, whose error names the
file, line and column. `parse` raises that `yaml.YAMLError` (callers word it their way);
`read` and `load` turn it into one line (`core.yaml_source.syntax_message`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from core import yaml_text
from core.read_files import read_bytes
from core.read_limits import Limits
from core.yaml_source import YamlRefusedError, decode, syntax_message


@dataclass(frozen=True)
class Schema:
    """How a document's plain scalars resolve, and how its nodes become data."""

    fast: type[yaml.SafeLoader]  # libyaml, where PyYAML has it
    slow: type[yaml.SafeLoader]  # pure Python: the same reading, errors with line and column
    construct: Callable[[Any, yaml.Node], Any] | None = None  # default: construct_document


CORE = Schema(yaml_text.CoreCSafeLoader, yaml_text.CoreSafeLoader)
"""YAML 1.2 as yaml.v3 reads it: stack files, ESC definitions, the action's inputs."""
SAFE = Schema(yaml_text.SafeLoader, yaml.SafeLoader)
"""PyYAML's safe loader (YAML 1.1 scalars): recipe catalogs and their manifests."""


@dataclass(frozen=True)
class Parsed:
    data: Any
    node: yaml.Node | None  # the composed root (None: an empty document)
    text: str


class _TooDeepError(yaml.YAMLError):
    def __init__(self, line: int) -> None:
        super().__init__(f"collections nest too deep at line {line}")
        self.line = line


def too_deep(name: str, line: int, limits: Limits) -> YamlRefusedError:
    return YamlRefusedError(
        f"{name}: values nest more than {limits.max_depth} levels deep (line {line}); "
        f"flatten them: no {limits.kind} nests that deep"
    )


def read(
    path: Path,
    *,
    name: str,
    limits: Limits,
    schema: Schema,
    root: Path | None = None,
    where: str = "",
    check: Callable[[yaml.Node], None] | None = None,
) -> Parsed:
    """The single document in file `path` (`name` in messages), every error one line."""
    text = decode(name, read_bytes(path, name=name, limits=limits, root=root, where=where))
    return load(text, name=name, limits=limits, schema=schema, check=check)


def load(
    text: str,
    *,
    name: str,
    limits: Limits,
    schema: Schema,
    check: Callable[[yaml.Node], None] | None = None,
) -> Parsed:
    """The single document in `text` (an input's value, a file already read), every error
    one line naming `name`."""
    try:
        return parse(text, name=name, limits=limits, schema=schema, check=check)
    except yaml.YAMLError as err:
        raise YamlRefusedError(syntax_message(name, text, err)) from None


def parse(
    text: str,
    *,
    name: str,
    limits: Limits,
    schema: Schema,
    check: Callable[[yaml.Node], None] | None = None,
) -> Parsed:
    """The single document in `text`; raises YamlRefusedError past a bound, and the pure-Python
    loader's `yaml.YAMLError` (its marks naming `name`) for what is not YAML."""
    nodes, loader, aliased = _compose(text, name, limits, schema, many=False)
    try:
        if not nodes:
            return Parsed(None, None, text)
        node = nodes[0]
        if check is not None:
            check(node)
        if aliased:
            bound(node, name, limits)
        return Parsed(_construct(schema, loader, node, name), node, text)
    finally:
        loader.dispose()


def parse_all(text: str, *, name: str, limits: Limits, schema: Schema) -> list[Any]:
    """Every document in `text`, the values bound counted over them all; errors as `parse`."""
    nodes, loader, aliased = _compose(text, name, limits, schema, many=True)
    try:
        total = 0
        for node in nodes if aliased else ():
            total += bound(node, name, limits, spent=total)
        return [_construct(schema, loader, node, name) for node in nodes]
    finally:
        loader.dispose()


def bound(node: yaml.Node, name: str, limits: Limits, *, spent: int = 0) -> int:
    """The values under `node` with every alias expanded (each use counts), refused past
    `limits.max_values` (less `spent` already), as are depth through aliases past
    `max_depth` and a value that contains itself. Iterative; each node is measured once,
    so an alias bomb costs as many steps as it has lines."""
    sizes: dict[int, int] = {}
    depths: dict[int, int] = {}
    open_: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(node, False)]
    while stack:
        current, leaving = stack.pop()
        key = id(current)
        if leaving:
            open_.discard(key)
            kids = _children(current)
            sizes[key] = 1 + sum(sizes[id(k)] for k in kids)
            depths[key] = 1 + max((depths[id(k)] for k in kids), default=0)
            if depths[key] > limits.max_depth:
                raise too_deep(name, _line(current), limits)
            if spent + sizes[key] > limits.max_values:
                raise _expanded_past(name, current, limits)
        elif key in open_:
            raise YamlRefusedError(
                f"{name}: an alias refers to a mapping or list it is inside (line "
                f"{_line(current)}); an alias must refer to a value outside it"
            )
        elif key not in sizes:
            if isinstance(current, yaml.ScalarNode):
                sizes[key], depths[key] = 1, 0
                continue
            open_.add(key)
            stack.append((current, True))
            stack.extend((kid, False) for kid in reversed(_children(current)))
    if spent + sizes[id(node)] > limits.max_values:  # a scalar document, which no check met
        raise _expanded_past(name, node, limits)
    return sizes[id(node)]


def _expanded_past(name: str, node: yaml.Node, limits: Limits) -> YamlRefusedError:
    return YamlRefusedError(
        f"{name}: aliases expand the value at line {_line(node)} past {limits.max_values} "
        "values; write the values out instead of nesting aliases"
    )


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


def _construct(schema: Schema, loader: Any, node: yaml.Node, name: str) -> Any:
    try:
        if schema.construct is not None:
            return schema.construct(loader, node)
        return loader.construct_document(node)
    except ValueError:  # YAML 1.1's int() past 4,300 digits; a date such as 2026-13-45
        raise YamlRefusedError(
            f"{name}: a value looks like a number or a date but cannot be read as one; "
            "quote it if it is text"
        ) from None


class _TooManyError(yaml.YAMLError):
    def __init__(self, line: int) -> None:
        super().__init__(f"more values than allowed at line {line}")
        self.line = line


def _scan(loader: Any, limits: Limits) -> bool:
    """Walk the event stream (flat, unlike libyaml's composer, which recurses in C); raise
    _TooDeepError past `max_depth` collections and _TooManyError past `max_values` values; whether
    it holds an alias (only then can the node graph be larger or deeper than the text)."""
    depth = values = aliases = 0
    event = loader.get_event()
    while event is not None:
        kind = type(event)
        if kind is yaml.ScalarEvent or kind is yaml.AliasEvent:
            values += 1
            aliases += kind is yaml.AliasEvent
        elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
            values += 1
            depth += 1
            if depth > limits.max_depth:
                raise _TooDeepError(event.start_mark.line + 1)
        elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
            depth -= 1
        elif kind is yaml.StreamEndEvent:
            break
        if values > limits.max_values:
            raise _TooManyError(event.start_mark.line + 1)
        event = loader.get_event()
    return aliases > 0


def _nodes(loader: Any, many: bool) -> list[yaml.Node]:
    if not many:
        node = loader.get_single_node()
        return [] if node is None else [node]
    nodes = []
    while loader.check_node():
        nodes.append(loader.get_node())
    return nodes


def _compose(
    text: str, name: str, limits: Limits, schema: Schema, *, many: bool
) -> tuple[list[yaml.Node], Any, bool]:
    """The node graphs of `text`, the loader that constructs them (dispose of it), and
    whether they hold aliases."""
    if len(text) > limits.max_bytes:
        raise YamlRefusedError(
            f"{name}: {len(text)} characters, more than the {limits.max_bytes} a "
            f"{limits.kind} may hold ({limits.reason}); make it smaller"
        )
    try:
        try:
            return _compose_with(schema.fast, text, "", limits, many)
        except (_TooDeepError, _TooManyError):
            raise
        except (yaml.YAMLError, UnicodeError):
            pass
        # Read again by the pure-Python loader, whose error (raised here) shows the line.
        return _compose_with(schema.slow, text, name, limits, many)
    except _TooDeepError as err:
        raise too_deep(name, err.line, limits) from None
    except _TooManyError as err:
        raise YamlRefusedError(
            f"{name}: more than {limits.max_values} values (line {err.line}); a "
            f"{limits.kind} holds far fewer ({limits.reason}): make it smaller"
        ) from None


def _loader(cls: type[yaml.SafeLoader], text: str, name: str) -> Any:
    loader = cls(text)
    if name:
        loader.name = name  # marks say `in "Pulumi.dev.yaml"`, not `in "<unicode string>"`
    return loader


def _compose_with(
    cls: type[yaml.SafeLoader], text: str, name: str, limits: Limits, many: bool
) -> tuple[list[yaml.Node], Any, bool]:
    scan = _loader(cls, text, name)
    try:
        aliased = _scan(scan, limits)
    finally:
        scan.dispose()
    loader = _loader(cls, text, name)
    try:
        return _nodes(loader, many), loader, aliased
    except BaseException:
        loader.dispose()
        raise
