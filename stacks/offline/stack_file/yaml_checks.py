"""What a stack file may hold, checked on the YAML node tree before anything is built.

The Pulumi CLI reads stack files with yaml.v3 and refuses some of what PyYAML accepts;
no config needs deep nesting, huge integers or non-core tags; and an "alias bomb" (a few
lines of nested aliases that expand to a billion values) must be refused before it is
expanded. `Checker` refuses each with one line naming the key, the line and the fix.
"""

from __future__ import annotations

import math
from typing import NoReturn

import yaml

from core import read_yaml, yaml_text
from core.errors import GpuCiError
from core.read_limits import STACK_FILE

# What one stack file may hold (`core.read_limits.STACK_FILE`, which the careful reader
# enforces too): the Checker counts and names the key, where the reader names only the line.
MAX_VALUES = STACK_FILE.max_values  # nodes, aliases expanded
MAX_DEPTH = STACK_FILE.max_depth  # nested mappings and lists
MAX_INT_DIGITS = 30


def too_deep(name: str, line: int) -> GpuCiError:
    return read_yaml.too_deep(name, line, STACK_FILE)


def _dotted(path: tuple[str | int, ...]) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def _where(path: tuple[str | int, ...]) -> str:
    """How a message names the value at `path`: `config key gpu-ci:vm.count`."""
    if not path:
        return "the document"
    if path[0] == "config" and len(path) > 1:
        return f"config key {_dotted(path[1:])}"
    return f"key {_dotted(path)}"


def _short_tag(tag: str) -> str:
    prefix = "tag:yaml.org,2002:"
    return f"!!{tag[len(prefix) :]}" if tag.startswith(prefix) else tag


_KIND_OF_TAG = {
    yaml_text.INT: "an integer",
    yaml_text.FLOAT: "a number",
    yaml_text.BOOL: "a boolean",
    yaml_text.NULL: "null",
}


class Checker:
    """Refuses, before anything is constructed, what the CLI refuses or no stack file
    needs: duplicate keys, keys that are not strings, tags beyond YAML's core ones,
    aliases that expand past MAX_VALUES, nesting past MAX_DEPTH and integers past
    MAX_INT_DIGITS. Aliases are followed (each use counts), so the budget bounds the
    expanded document; a value that contains itself is refused."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.values = 0
        self.open: set[int] = set()  # the collections being walked (for cycles)

    def fail(self, path: tuple[str | int, ...], node: yaml.Node, what: str, fix: str) -> NoReturn:
        raise GpuCiError(
            f"{self.name}: {_where(path)} {what} (line {node.start_mark.line + 1}); {fix}"
        )

    def check(self, node: yaml.Node) -> None:
        self.walk(node, (), 1)

    def walk(self, node: yaml.Node, path: tuple[str | int, ...], depth: int) -> None:
        self.values += 1
        if self.values > MAX_VALUES:
            raise GpuCiError(
                f"{self.name}: aliases expand {_where(path[:2])} past {MAX_VALUES} values "
                f"(line {node.start_mark.line + 1}); write the values out instead of "
                "nesting aliases"
            )
        if depth > MAX_DEPTH:
            raise too_deep(self.name, node.start_mark.line + 1)
        if isinstance(node, yaml.ScalarNode):
            self.scalar(node, path)
            return
        if id(node) in self.open:
            self.fail(
                path,
                node,
                "is an alias of a mapping or list it is inside",
                "an alias must refer to a value outside it",
            )
        expected = yaml_text.MAP if isinstance(node, yaml.MappingNode) else yaml_text.SEQ
        if node.tag != expected:
            self.bad_tag(path, node)
        self.open.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode):
                for i, item in enumerate(node.value):
                    self.walk(item, (*path, i), depth + 1)
            elif isinstance(node, yaml.MappingNode):
                self.mapping(node, path, depth)
        finally:
            self.open.discard(id(node))

    def mapping(self, node: yaml.MappingNode, path: tuple[str | int, ...], depth: int) -> None:
        seen: dict[str, int] = {}
        for key, value in node.value:
            self.values += 1
            text = self.key_text(key, path)
            line = key.start_mark.line + 1
            if text in seen:  # yaml.v3 compares keys as written (so "1" and 1 are one key)
                label = _where((*path, text))
                if key.tag == yaml_text.MERGE:
                    label = f"the merge key << of {_where(path)}"
                raise GpuCiError(
                    f"{self.name}: {label} is given twice (lines {seen[text]} and {line}); keep one"
                )
            seen[text] = line
            if key.tag == yaml_text.MERGE:
                self.merge(value, path, depth)
            else:
                self.walk(value, (*path, text), depth + 1)

    def key_text(self, key: yaml.Node, path: tuple[str | int, ...]) -> str:
        if not isinstance(key, yaml.ScalarNode):
            kind = "a mapping" if isinstance(key, yaml.MappingNode) else "a list"
            self.fail(path, key, f"has {kind} as a key", "keys must be strings")
        if key.tag not in (yaml_text.STR, yaml_text.MERGE):
            if key.tag not in _KIND_OF_TAG:
                self.bad_tag(path, key)
            text = str(key.value)
            if not text:
                self.fail(path, key, "has an empty key", "name the key")
            self.fail(
                path,
                key,
                f"has the key {text}, which YAML reads as {_KIND_OF_TAG[key.tag]}, not a string",
                f'quote it: "{text}"',
            )
        return str(key.value)

    def merge(self, value: yaml.Node, path: tuple[str | int, ...], depth: int) -> None:
        sources = value.value if isinstance(value, yaml.SequenceNode) else [value]
        for source in sources:
            if not isinstance(source, yaml.MappingNode):
                self.fail(
                    path,
                    source,
                    "merges (<<) something that is not a mapping",
                    "merge a mapping, like <<: *defaults",
                )
            self.walk(source, path, depth + 1)

    def scalar(self, node: yaml.ScalarNode, path: tuple[str | int, ...]) -> None:
        tag, text = node.tag, str(node.value)
        if tag not in yaml_text.CORE_SCALAR_TAGS:
            self.bad_tag(path, node)
        if tag != yaml_text.STR:  # an explicit tag must fit the text, as yaml.v3 checks
            resolved = yaml_text.core_tag(text)
            if resolved != tag and not (tag == yaml_text.FLOAT and resolved == yaml_text.INT):
                self.fail(
                    path,
                    node,
                    f"is tagged {_short_tag(tag)}, but {text!r} is not {_KIND_OF_TAG[tag]}",
                    "remove the tag or fix the value",
                )
        if len(path) == 2 and path[0] == "config":
            return  # a top-level value: the CLI hands the program its text, as written
        if tag in (yaml_text.INT, yaml_text.FLOAT):
            digits = text.replace("_", "").lstrip("+-")
            if tag == yaml_text.INT and digits[:2].lower() in ("0x", "0o", "0b"):
                digits = digits[2:]
            digits = digits.lstrip("0")
            if (tag == yaml_text.INT or digits.isdigit()) and len(digits) > MAX_INT_DIGITS:
                self.fail(
                    path,
                    node,
                    f"is an integer of {len(digits)} digits, more than {MAX_INT_DIGITS}",
                    "quote it if it is an ID or other text",
                )
            if not math.isfinite(yaml_text.core_float(text)):
                self.fail(
                    path,
                    node,
                    f"is {text}, which JSON cannot hold, and the CLI passes objects to the "
                    "program as JSON",
                    f'quote it: "{text}"',
                )

    def bad_tag(self, path: tuple[str | int, ...], node: yaml.Node) -> NoReturn:
        self.fail(
            path,
            node,
            f"has the tag {_short_tag(node.tag)}, which stack files do not use",
            "remove it: only YAML's core types (strings, numbers, true/false, null, "
            "lists and mappings) are config",
        )
