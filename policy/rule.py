"""What a policy rule is and what it sees: plain data, so tests run the rules too.

`policy/__main__.py` wraps each `Rule` into a pulumi-policy `ResourceValidationPolicy`
and each `StackRule` (which sees every resource at once) into a `StackValidationPolicy`;
tests call the same rules over the resources the offline plan records. Inputs are the
engine's (camelCase keys, plain values). Every check returns its violations as messages
that name the resource; an empty list passes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

UNKNOWN = "[unknown]"
"""How the offline plan shows a value known only after deployment."""


@dataclass(frozen=True)
class Resource:
    """What a resource validation sees: type token, logical name and inputs (and, in a
    stack validation, the URN a violation is reported against)."""

    type: str
    name: str
    props: Mapping[str, Any]
    urn: str | None = None

    def where(self) -> str:
        return f"{self.name} ({self.type})"


Check = Callable[[Resource, Mapping[str, Any]], list[str]]
StackCheck = Callable[[Sequence[Resource], Mapping[str, Any]], list[tuple[Resource, str]]]
"""A check over every resource of a stack: (the resource to report against, message)."""


@dataclass(frozen=True)
class Rule:
    name: str
    description: str
    check: Check
    config: dict[str, dict[str, Any]] = field(default_factory=dict)
    """JSON-schema properties of the policy's config, with their defaults."""

    def defaults(self) -> dict[str, Any]:
        return {k: v["default"] for k, v in self.config.items() if "default" in v}

    def __call__(self, resource: Resource, config: Mapping[str, Any] | None = None) -> list[str]:
        return self.check(resource, {**self.defaults(), **(config or {})})


@dataclass(frozen=True)
class StackRule:
    """A rule over all of a stack's resources at once (a pulumi-policy stack validation),
    for what no single resource shows, such as the union of the sources ingress opens."""

    name: str
    description: str
    check: StackCheck
    config: dict[str, dict[str, Any]] = field(default_factory=dict)
    """JSON-schema properties of the policy's config, with their defaults."""

    def defaults(self) -> dict[str, Any]:
        return {k: v["default"] for k, v in self.config.items() if "default" in v}

    def violations(
        self, resources: Iterable[Resource], config: Mapping[str, Any] | None = None
    ) -> list[tuple[Resource, str]]:
        return self.check(list(resources), {**self.defaults(), **(config or {})})

    def __call__(
        self, resources: Iterable[Resource], config: Mapping[str, Any] | None = None
    ) -> list[str]:
        return [message for _, message in self.violations(resources, config)]


def known(value: Any) -> bool:
    return value is not None and value != UNKNOWN
