"""AICR's merge rules for overlays applied on top of each other.

- constraints: keyed by name, the later overlay wins;
- componentRefs: keyed by name; a non-empty scalar in the later overlay wins, `overrides`
  are deep-merged, `patches`/`expectedResources` are replaced when the later overlay sets
  them, `dependencyRefs` and `manifestFiles` are appended without duplicates, `cleanup` is
  set-if-true;
- validation: per phase, a phase the later overlay declares replaces the earlier one;
- mixins named along the chain accumulate (deduplicated) and are applied after the chain.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from recipes.model import PHASES, ComponentRef, Constraint, RecipeSpec, Validation

_SCALARS = ("namespace", "chart", "type", "source", "version", "tag", "valuesFile", "path")
_REPLACED = ("patches", "expectedResources")
_APPENDED = ("dependencyRefs", "manifestFiles")
# What a mixin may add to a component the chain already declares (AICR's ADR-005 rule).
MIXIN_SAFE_FIELDS = frozenset({"name", "namespace", "manifestFiles"})


def deep_merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    """A new dict: maps merge recursively, anything else in `top` replaces `base`."""
    out = dict(base)
    for key, value in top.items():
        old = out.get(key)
        if isinstance(old, dict) and isinstance(value, dict):
            out[key] = deep_merge(old, value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def merge_component(base: ComponentRef, top: ComponentRef) -> ComponentRef:
    """`top` applied over `base` (same component name)."""
    update: dict[str, Any] = {f: getattr(top, f) for f in _SCALARS if getattr(top, f)}
    if top.overrides:
        update["overrides"] = deep_merge(base.overrides, top.overrides)
    for name in _REPLACED:
        if getattr(top, name):
            update[name] = list(getattr(top, name))
    for name in _APPENDED:
        if getattr(top, name):
            update[name] = list(dict.fromkeys([*getattr(base, name), *getattr(top, name)]))
    if top.cleanup:
        update["cleanup"] = True
    if top.healthCheckAsserts:
        update["healthCheckAsserts"] = top.healthCheckAsserts
    return base.model_copy(update=update) if update else base


@dataclass
class MergedSpec:
    """The spec being accumulated while overlays are applied in order."""

    constraints: dict[str, Constraint] = field(default_factory=dict)
    components: dict[str, ComponentRef] = field(default_factory=dict)
    validation: Validation | None = None
    mixins: list[str] = field(default_factory=list)

    def apply(self, spec: RecipeSpec) -> None:
        """Merge one overlay's spec on top (AICR's RecipeMetadataSpec.Merge)."""
        self.add(spec.constraints, spec.componentRefs)
        if spec.validation is not None:
            self.validation = merge_validation(self.validation, spec.validation)
        self.mixins.extend(m for m in spec.mixins if m not in self.mixins)

    def add(self, constraints: list[Constraint], refs: list[ComponentRef]) -> None:
        """Merge constraints and componentRefs (shared by overlays and mixins)."""
        for constraint in constraints:
            self.constraints[constraint.name] = constraint
        for ref in refs:
            old = self.components.get(ref.name)
            self.components[ref.name] = ref if old is None else merge_component(old, ref)


def merge_validation(base: Validation | None, top: Validation) -> Validation:
    """Per phase: a phase present in `top` replaces the one in `base`."""
    if base is None:
        return top
    update = {p: getattr(top, p) for p in PHASES if getattr(top, p) is not None}
    return base.model_copy(update=update)
