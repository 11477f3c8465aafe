"""Validation phases (readiness, deployment, performance, conformance) and their merges.

Two merge rules, by the format of the overlay merged on top (its AICR release's,
`recipes.model.semantics`):

- `aicr.nvidia.com/v1alpha1` (AICR up to v0.11): a phase the later overlay declares
  replaces the earlier one whole (`RecipeMetadataSpec.Merge` of that release);
- `aicr.run/*`: phases merge field by field (AICR issue #1000, `mergeValidationPhase`):
  `checks` and `constraints` are unioned (base entries first, constraints keyed by name,
  the later one winning), an explicit empty list (`checks: []`) clears the inherited one
  while an omitted list inherits it, `nodeSelection` is replaced when given, `timeout` and
  `infrastructure` win when non-empty.

Lists are `None` when the YAML omits them, so the two cases stay apart.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from recipes.model.base_types import Constraint

PHASES = ("readiness", "deployment", "performance", "conformance")
MergeRule = Literal["replace", "fieldwise"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NodeSelection(_Strict):
    """Which nodes a phase validates."""

    selector: dict[str, str] | None = None
    maxNodes: int = 0
    excludeNodes: list[str] | None = None


class ValidationPhase(_Strict):
    """One validation phase: checks to run and constraints on what they measure."""

    timeout: str = ""
    constraints: list[Constraint] | None = None
    checks: list[str] | None = None
    nodeSelection: NodeSelection | None = None
    infrastructure: str = Field(default="", description="a componentRef giving the infra")


class Validation(_Strict):
    """Validation phases; a phase that is present is enabled."""

    readiness: ValidationPhase | None = None
    deployment: ValidationPhase | None = None
    performance: ValidationPhase | None = None
    conformance: ValidationPhase | None = None


def merge_validation(base: Validation | None, top: Validation, rule: MergeRule) -> Validation:
    """`top` merged over `base` under `rule` (a new object; neither input is changed)."""
    if base is None:
        return top.model_copy(deep=True)
    update = {}
    for name in PHASES:
        phase = getattr(top, name)
        if phase is None:
            continue
        old = getattr(base, name)
        update[name] = (
            phase.model_copy(deep=True)
            if rule == "replace" or old is None
            else merge_phase(old, phase)
        )
    return base.model_copy(update=update)


def merge_phase(base: ValidationPhase, top: ValidationPhase) -> ValidationPhase:
    """AICR's `mergeValidationPhase`."""
    checks: list[str] | None = None
    if top.checks is not None and not top.checks:
        checks = []
    elif base.checks or top.checks:
        checks = list(dict.fromkeys([*(base.checks or []), *(top.checks or [])]))
    constraints: list[Constraint] | None = None
    if top.constraints is not None and not top.constraints:
        constraints = []
    elif base.constraints or top.constraints:
        later = {c.name: c for c in top.constraints or []}
        merged: dict[str, Constraint] = {}
        for c in base.constraints or []:
            merged.setdefault(c.name, later.get(c.name, c))
        for c in top.constraints or []:
            merged.setdefault(c.name, later[c.name])
        constraints = list(merged.values())
    selection = top.nodeSelection or base.nodeSelection
    return ValidationPhase(
        timeout=top.timeout or base.timeout,
        constraints=constraints,
        checks=checks,
        nodeSelection=selection.model_copy(deep=True) if selection else None,
        infrastructure=top.infrastructure or base.infrastructure,
    )
