"""AICR's merge rules for overlays applied on top of each other (`RecipeMetadataSpec.Merge`).

- constraints: keyed by name, the later overlay wins; the list is kept sorted by name;
- componentRefs: keyed by name and kept sorted by name; a non-empty scalar in the later
  overlay wins, `overrides` are deep-merged (a `null` is kept here: it deletes the key when
  the values are merged, `recipes.resolution.values`), `patches` and `expectedResources`
  are replaced when the later overlay sets them, `dependencyRefs`, `manifestFiles` and
  `preManifestFiles` are appended without duplicates, `cleanup` and `healthCheckSkip` are
  set-if-true, an inline `healthCheckAsserts` wins;
- validation: by the format of the later overlay (`recipes.model.validation`);
- mixins named along the chain accumulate (deduplicated) and are applied after the chain;
  a mixin may add to a component the chain declares only its namespace, manifestFiles or
  preManifestFiles, and may not restate a constraint (AICR's `mergeMixins`, ADR-005).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from recipes.model.overlays import ComponentRef, Constraint, RecipeSpec
from recipes.model.validation import MergeRule, Validation, merge_validation

_SCALARS = ("namespace", "chart", "type", "source", "version", "tag", "valuesFile", "path")
_REPLACED = ("patches", "expectedResources")
_APPENDED = ("dependencyRefs", "manifestFiles", "preManifestFiles")
_SET_IF_TRUE = ("cleanup", "healthCheckSkip")
MIXIN_SAFE_FIELDS = ("name", "namespace", "manifestFiles", "preManifestFiles")
"""What a mixin may set on a component the chain already declares."""
_MIXIN_UNSAFE = (
    "chart",
    "type",
    "source",
    "version",
    "tag",
    "path",
    "valuesFile",
    "overrides",
    "patches",
    "dependencyRefs",
    "cleanup",
    "expectedResources",
    "healthCheckAsserts",
    "healthCheckSkip",
)


def deep_merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    """A new dict: maps merge recursively, anything else in `top` (null too) replaces `base`.

    This is AICR's `deepMergeMap` (overrides merged between overlays, and gpu-ci's stack
    overrides over hydrated values); Helm values files merge with `values.merge_values`."""
    out = dict(base)
    for key, value in top.items():
        old = out.get(key)
        if isinstance(old, dict) and isinstance(value, dict):
            out[key] = deep_merge(old, value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def merge_component(base: ComponentRef, top: ComponentRef) -> ComponentRef:
    """`top` applied over `base` (same component name): AICR's `mergeComponentRef`."""
    update: dict[str, Any] = {f: getattr(top, f) for f in _SCALARS if getattr(top, f)}
    if top.overrides:
        update["overrides"] = deep_merge(base.overrides, top.overrides)
    for name in _REPLACED:
        if getattr(top, name):
            update[name] = list(getattr(top, name))
    for name in _APPENDED:
        if getattr(top, name):
            update[name] = list(dict.fromkeys([*getattr(base, name), *getattr(top, name)]))
    for name in _SET_IF_TRUE:
        if getattr(top, name):
            update[name] = True
    if top.healthCheckAsserts:
        update["healthCheckAsserts"] = top.healthCheckAsserts
    return base.model_copy(update=update) if update else base


def mixin_conflict(ref: ComponentRef) -> str | None:
    """The first identity/sourcing field a mixin's ref sets (AICR's order), or None."""
    return next((f for f in _MIXIN_UNSAFE if getattr(ref, f)), None)


@dataclass
class MergedSpec:
    """The spec being accumulated while overlays are applied in order."""

    constraints: dict[str, Constraint] = field(default_factory=dict)
    components: dict[str, ComponentRef] = field(default_factory=dict)
    validation: Validation | None = None
    mixins: list[str] = field(default_factory=list)

    def start(self, spec: RecipeSpec) -> None:
        """The root overlay's spec as AICR's `initBaseMergedSpec` takes it: constraints,
        componentRefs (not yet sorted) and validation; the root's own `mixins` are not read."""
        self.add(spec.constraints, spec.componentRefs, sort=False)
        self.validation = spec.validation.model_copy(deep=True) if spec.validation else None

    def apply(self, spec: RecipeSpec, rule: MergeRule) -> None:
        """Merge one overlay's spec on top."""
        self.add(spec.constraints, spec.componentRefs)
        if spec.validation is not None:
            self.validation = merge_validation(self.validation, spec.validation, rule)
        self.mixins.extend(m for m in dict.fromkeys(spec.mixins) if m not in self.mixins)

    def add(
        self, constraints: list[Constraint], refs: list[ComponentRef], *, sort: bool = True
    ) -> None:
        """Merge constraints and componentRefs (shared by overlays and mixins)."""
        for constraint in constraints:
            self.constraints[constraint.name] = constraint
        for ref in refs:
            old = self.components.get(ref.name)
            self.components[ref.name] = ref if old is None else merge_component(old, ref)
        if sort:
            self.constraints = dict(sorted(self.constraints.items()))
            self.components = dict(sorted(self.components.items()))
