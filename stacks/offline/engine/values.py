"""How the record holds a value: secrets as `Secret`, unknowns as `UNKNOWN`.

The engine sees property values in wire form; the recording mock engine keeps them as plain
Python with their secret markers intact, so a test can assert what a secret holds
(`reveal`) while a snapshot shows only "[secret]" (`mask`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pulumi
from pulumi.runtime import rpc


class Secret:
    """A secret input as the engine would receive it; never shown in plain text."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "[secret]"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other.value == self.value

    def __hash__(self) -> int:
        return hash(repr(self.value))


UNKNOWN = "[unknown]"
"""How a value that is only known after deployment (`output<T>` in a preview) is shown."""


def unwire(value: Any) -> Any:
    """Wire-form property value -> plain Python, secrets as `Secret`, whole floats as int."""
    if isinstance(value, pulumi.output.Unknown):
        return UNKNOWN
    if rpc.is_rpc_secret(value):
        return Secret(unwire(rpc.unwrap_rpc_secret(value)))
    if isinstance(value, dict):
        return {k: unwire(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unwire(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def reveal(value: Any) -> Any:
    """The same value with every `Secret` opened (for asserting what a secret holds)."""
    if isinstance(value, Secret):
        return reveal(value.value)
    if isinstance(value, dict):
        return {k: reveal(v) for k, v in value.items()}
    if isinstance(value, list):
        return [reveal(v) for v in value]
    return value


def mask(value: Any) -> Any:
    """The same value with every `Secret` replaced by the string "[secret]"."""
    if isinstance(value, Secret):
        return "[secret]"
    if isinstance(value, dict):
        return {k: mask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [mask(v) for v in value]
    return value


def _any_leaf(value: Any, test: Callable[[Any], bool]) -> bool:
    """Whether `test` holds for `value` or anything inside it (dicts, lists)."""
    if test(value):
        return True
    if isinstance(value, dict):
        return any(_any_leaf(v, test) for v in value.values())
    if isinstance(value, list):
        return any(_any_leaf(v, test) for v in value)
    return False


def has_secret(value: Any) -> bool:
    return _any_leaf(value, lambda v: isinstance(v, Secret))


def has_unknown(value: Any) -> bool:
    return _any_leaf(value, lambda v: v == UNKNOWN)
