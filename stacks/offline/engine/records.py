"""What one in-process run of the program leaves behind: its requests, invokes and exports.

Plain data, shared by the recording mock engine that fills it, the snapshot that writes it
and the tests that assert on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Registration:
    """One `RegisterResource` (or `ReadResource`) request, as the engine saw it."""

    urn: str
    type: str
    name: str
    parent: str
    custom: bool
    dependencies: list[str]
    property_dependencies: dict[str, list[str]]
    inputs: dict[str, Any]
    options: dict[str, Any]
    read: bool = False
    outputs: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    """Where the program registered it (`file:line`, relative to the repository)."""
    aliases: list[str] = field(default_factory=list)
    """The URNs it may have had before, as the engine resolves its aliases."""


@dataclass
class InvokeCall:
    token: str
    args: dict[str, Any]


@dataclass
class ProgramRun:
    """Everything one in-process run registered, logged and exported."""

    project: str
    stack: str
    registrations: list[Registration]
    invokes: list[InvokeCall]
    logs: list[tuple[str, str]]
    exports: dict[str, Any]
    export_sources: dict[str, list[str]] = field(default_factory=dict)
    """Each export -> the URNs of the resources its value is built from (sorted)."""

    def by_type(self, type_: str) -> list[Registration]:
        return [r for r in self.registrations if r.type == type_]

    def one(self, type_: str, name: str | None = None) -> Registration:
        found = [r for r in self.by_type(type_) if name is None or r.name == name]
        if len(found) != 1:
            names = [r.name for r in self.by_type(type_)]
            raise LookupError(f"expected one {type_} named {name!r}, found {names}")
        return found[0]

    def urn_of(self, name: str) -> str:
        return next(r.urn for r in self.registrations if r.name == name)
