"""What a Test's expressions read from the cluster.

Besides its resources, a Test reads the cluster through three JMESPath functions Chainsaw
v0.2.15 adds (`pkg/engine/functions/functions.go`): `x_k8s_get(client, apiVersion, kind,
namespace, name)`, `x_k8s_list(client, apiVersion, kind[, namespace])` and `x_k8s_exists`
(as `x_k8s_get`), in any key or value Chainsaw evaluates (a resource's `(...)` keys and
values, bindings of the Test, a step or an operation). CEL expressions have no such
function (`pkg/apis/compiler.go`: kyverno-json's CEL environment and Kubernetes' CEL
libraries). So every call anywhere in the Test must name its `apiVersion` and `kind` as
literals, which are held to the same rules as a resource's (`reads.py`): a call on
Secrets, or one whose kind is computed, is refused.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

READERS = ("x_k8s_get", "x_k8s_list", "x_k8s_exists")
_CALL = re.compile(r"\b(x_k8s_get|x_k8s_list|x_k8s_exists)\s*\(")
_OPEN, _CLOSE = "([{", ")]}"


@dataclass(frozen=True)
class Call:
    """One call of a reading function: where it is, the function and its two literals
    (`None` where the argument is not a string literal)."""

    path: str
    function: str
    api_version: str | None
    kind: str | None


def _arguments(text: str) -> list[str]:
    """The top-level arguments of the call whose `(` ends just before `text`."""
    found: list[str] = []
    depth, start, index, quote = 0, 0, 0, ""
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "'`\"":
            quote = char
        elif char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            if depth == 0:
                return [*found, text[start:index].strip()]
            depth -= 1
        elif char == "," and depth == 0:
            found.append(text[start:index].strip())
            start = index + 1
        index += 1
    return [*found, text[start:].strip()]


def _literal(argument: str) -> str | None:
    """A JMESPath string literal's value (`'raw'` or a JSON string in backticks)."""
    if len(argument) >= 2 and argument[0] == argument[-1] == "'":
        return argument[1:-1].replace("\\'", "'")
    if argument[:1] == argument[-1:] == "`":  # a lone "`" holds "", never JSON
        try:
            value = json.loads(argument[1:-1])
        except ValueError:
            return None
        return value if isinstance(value, str) else None
    return None


def _calls_in(path: str, text: str) -> Iterator[Call]:
    for match in _CALL.finditer(text):
        args = _arguments(text[match.end() :])
        literals = [_literal(a) for a in args[1:3]] + [None, None]
        yield Call(path, match.group(1), literals[0], literals[1])


def calls(value: Any, path: str = "") -> Iterator[Call]:
    """Every reading call in any key or string value under `value`, with its path."""
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if isinstance(key, str):
                yield from _calls_in(where, key)
            yield from calls(item, where)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from calls(item, f"{path}[{index}]")
    elif isinstance(value, str):
        yield from _calls_in(path, value)
