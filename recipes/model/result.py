"""RecipeResult: the resolved, registry-filled recipe a deployer consumes.

Its YAML form is AICR's `kind: RecipeResult` (`aicr.run/v1alpha2`, what AICR emits for a
resolved recipe), so `aicr bundle -r` style tools can read it; empty optional fields are
left out where AICR's `omitempty` leaves them out (a componentRef's `source` and a declared
validation phase stay, as in AICR). As in AICR, a component the recipe disables
(`overrides.enabled: false`) stays in the YAML's `componentRefs`, marked by that override,
and is left out of `deploymentOrder`. In Python the enabled ones are `componentRefs` and
the disabled ones `disabledRefs` (their names also in `metadata.disabledComponents`), so a
consumer iterating `componentRefs` deploys only what is enabled.
"""

from __future__ import annotations

from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from core import yaml_text
from recipes.model.criteria import RecipeCriteria
from recipes.model.overlays import ComponentRef, Constraint, Validation
from recipes.model.validation import PHASES

RESULT_API_VERSION = "aicr.run/v1alpha2"


class ResultMetadata(BaseModel):
    """How the result was put together."""

    model_config = ConfigDict(extra="forbid")

    version: str = ""
    appliedOverlays: list[str] = Field(default_factory=list)
    disabledComponents: list[str] = Field(default_factory=list)


class RecipeResult(BaseModel):
    """The merged recipe for one query: components in deployment order, constraints, checks."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["RecipeResult"] = "RecipeResult"
    apiVersion: str = RESULT_API_VERSION
    metadata: ResultMetadata = Field(default_factory=ResultMetadata)
    criteria: RecipeCriteria
    constraints: list[Constraint] = Field(default_factory=list)
    componentRefs: list[ComponentRef] = Field(default_factory=list)
    disabledRefs: list[ComponentRef] = Field(default_factory=list, exclude=True)
    deploymentOrder: list[str] = Field(default_factory=list)
    validation: Validation | None = None
    refOrder: list[str] = Field(default_factory=list, exclude=True)
    """Every component's name in AICR's componentRefs order (the YAML's)."""
    warnings: list[str] = Field(default_factory=list, exclude=True)
    """What AICR logs while resolving (e.g. that no overlay but the root matched)."""

    def component(self, name: str) -> ComponentRef | None:
        """The enabled component called `name`, if the recipe has one."""
        return next((c for c in self.componentRefs if c.name == name), None)

    def ref(self, name: str) -> ComponentRef | None:
        """The component called `name`, enabled or disabled."""
        return self.component(name) or next((c for c in self.disabledRefs if c.name == name), None)

    def all_refs(self) -> list[ComponentRef]:
        """Every component, enabled or not, in AICR's order."""
        by_name = {c.name: c for c in [*self.componentRefs, *self.disabledRefs]}
        order = [n for n in self.refOrder if n in by_name] or sorted(by_name)
        return [by_name[n] for n in order]

    def to_dict(self) -> dict[str, Any]:
        """Plain data with empty optional fields dropped (AICR's `omitempty`)."""
        data = _prune(self.model_dump(mode="json"))
        assert isinstance(data, dict)
        data["criteria"] = self.criteria.model_dump(mode="json", exclude_defaults=False)
        if not self.criteria.nodes:
            data["criteria"].pop("nodes")
        data["componentRefs"] = [_ref_dict(r) for r in self.all_refs()]
        if self.validation is not None:
            data["validation"] = _validation_dict(self.validation)
        data.setdefault("deploymentOrder", [])
        keys = [*type(self).model_fields]
        return {k: data[k] for k in keys if k in data}

    def to_yaml(self) -> str:
        """The result as AICR-shaped YAML, keys in model order; a multi-line string (a health
        check's Test) as a literal block, as AICR's yaml.v3 writes it (and libyaml and PyYAML
        write alike: a long double-quoted string folds differently in each)."""
        return yaml_text.dump(self.to_dict(), dumper=_Dumper, sort_keys=False)


class _Dumper(yaml_text.SafeDumper):  # type: ignore[misc,valid-type]
    """Block style; multi-line strings as literal blocks."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    return dumper.represent_scalar(
        "tag:yaml.org,2002:str", value, style="|" if "\n" in value else None
    )


_Dumper.add_representer(str, _str)
_KEEP_EMPTY = frozenset({"overrides"})


def _ref_dict(ref: ComponentRef) -> dict[str, Any]:
    """A componentRef as AICR writes it: `source` even when empty, since AICR's
    `ComponentRef.Source` has no `omitempty` (`pkg/recipe/metadata.go` line 79 at v0.11.1,
    line 83 at 23e97a7d): a registry entry naming no repository (`skyhook-customizations`)
    prints `source: ""`."""
    data = {**_prune(ref.model_dump(mode="json")), "source": ref.source}
    return {k: data[k] for k in type(ref).model_fields if k in data}


def _validation_dict(validation: Validation) -> dict[str, Any]:
    """The validation phases, a declared phase kept even when empty: AICR's phases are
    pointers with `omitempty` (`ValidationConfig`, `pkg/recipe/validation.go` lines 20-32
    at 23e97a7d; `metadata.go` line 161 at v0.11.1), so a phase an overlay empties
    (`performance: {checks: [], constraints: []}` in the slurm overlays) prints as `{}`: it
    stays present, and a present phase is enabled."""
    return {
        name: _prune(phase.model_dump(mode="json"))
        for name in PHASES
        if (phase := getattr(validation, name)) is not None
    }


def _prune(value: Any, key: str = "") -> Any:
    if isinstance(value, dict):
        if key in _KEEP_EMPTY:
            return value
        out = {k: _prune(v, k) for k, v in value.items()}
        return {k: v for k, v in out.items() if v not in (None, "", [], {}, False)}
    if isinstance(value, list):
        return [_prune(v) for v in value]
    return value
