"""Evaluating a recipe's constraints against known facts about a target.

Facts are measurement paths mapped to observed strings (``{"K8s.server.version":
"v1.33.1"}``). A constraint whose fact is unknown is reported UNCHECKED, never passed: a
plan that cannot see the cluster yet must say so rather than claim compliance.

Values: ``>= 1.30`` style expressions (``>=, <=, >, <, ==, !=``) compare versions when both
sides parse as one (``v1.33.1``, ``6.8.0-1028-oracle``, ``24.04``: the leading dotted
numbers). Ordering zero-pads the shorter side; ``==``/``!=`` compare only as many parts as
the bound has (``== 1.33`` holds for ``1.33.1``). A bare value is an exact string match.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from recipes.model.overlays import PHASES, Constraint
from recipes.model.result import RecipeResult

_EXPR = re.compile(r"^\s*(>=|<=|==|!=|>|<)\s*(\S.*?)\s*$")
_VERSION = re.compile(r"^\s*[vV]?(\d+(?:\.\d+)*)")
_ORDER: dict[str, Callable[[tuple[int, ...], tuple[int, ...]], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
}


class Status(StrEnum):
    """Outcome of one constraint."""

    PASSED = "passed"
    FAILED = "failed"
    UNCHECKED = "unchecked"


class ConstraintOutcome(BaseModel):
    """One constraint, what was observed, and what to do if it failed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    expected: str
    status: Status
    phase: str = "recipe"
    actual: str | None = None
    reason: str = ""
    remediation: str | None = None
    severity: str | None = None


class ConstraintReport(BaseModel):
    """All outcomes, split by status."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    outcomes: list[ConstraintOutcome] = Field(default_factory=list)

    def _with(self, status: Status) -> list[ConstraintOutcome]:
        return [o for o in self.outcomes if o.status is status]

    @property
    def passed(self) -> list[ConstraintOutcome]:
        """Constraints the facts satisfy."""
        return self._with(Status.PASSED)

    @property
    def failed(self) -> list[ConstraintOutcome]:
        """Constraints the facts violate (each with its remediation, if any)."""
        return self._with(Status.FAILED)

    @property
    def unchecked(self) -> list[ConstraintOutcome]:
        """Constraints whose fact is unknown."""
        return self._with(Status.UNCHECKED)

    @property
    def ok(self) -> bool:
        """No failures (unchecked constraints do not count as failures or passes)."""
        return not self.failed


def parse_version(text: str) -> tuple[int, ...] | None:
    """Leading dotted numbers of `text` (``v1.33.1`` -> (1, 33, 1)); None if there are none."""
    match = _VERSION.match(text)
    return tuple(int(p) for p in match.group(1).split(".")) if match else None


def _pad(a: tuple[int, ...], n: int) -> tuple[int, ...]:
    return a + (0,) * (n - len(a))


def check(expected: str, actual: str) -> tuple[bool, str]:
    """Whether `actual` satisfies the constraint value `expected`, and why not."""
    match = _EXPR.match(expected)
    if match is None:
        ok = actual.strip() == expected.strip()
        return ok, "" if ok else f"expected exactly {expected.strip()!r}, got {actual!r}"
    op, bound = match.groups()
    want, have = parse_version(bound), parse_version(actual)
    if want is None or have is None:
        if op in ("==", "!="):
            ok = (actual.strip() == bound) == (op == "==")
            return ok, "" if ok else f"expected {op} {bound!r}, got {actual!r}"
        return False, f"cannot compare {actual!r} with {op} {bound}: not a version"
    if op in ("==", "!="):
        equal = _pad(have, len(want))[: len(want)] == want
        ok = equal == (op == "==")
    else:
        n = max(len(want), len(have))
        ok = _ORDER[op](_pad(have, n), _pad(want, n))
    return ok, "" if ok else f"expected {op} {bound}, got {actual}"


def _outcome(c: Constraint, phase: str, facts: Mapping[str, str]) -> ConstraintOutcome:
    base = {
        "name": c.name,
        "expected": c.value,
        "phase": phase,
        "remediation": c.remediation,
        "severity": c.severity,
    }
    if c.name not in facts:
        return ConstraintOutcome(status=Status.UNCHECKED, reason="fact unknown", **base)
    actual = str(facts[c.name])
    ok, reason = check(c.value, actual)
    status = Status.PASSED if ok else Status.FAILED
    return ConstraintOutcome(status=status, actual=actual, reason=reason, **base)


def evaluate(result: RecipeResult, facts: Mapping[str, str]) -> ConstraintReport:
    """Evaluate the recipe's constraints and its validation phases' constraints."""
    outcomes = [_outcome(c, "recipe", facts) for c in result.constraints]
    if result.validation is not None:
        for phase in PHASES:
            block = getattr(result.validation, phase)
            if block is not None:
                outcomes.extend(_outcome(c, phase, facts) for c in block.constraints or [])
    return ConstraintReport(outcomes=outcomes)
