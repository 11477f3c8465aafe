"""Typed catalog documents: RecipeMetadata overlays and RecipeMixin fragments.

Field names are the YAML's camelCase keys and unknown keys are rejected, so a typo in a
catalog (`valueFile:`) is an error that names the file and field instead of a silently
ignored setting. The models cover every field AICR's resolver reads, including ones the
v0.11.1 catalog does not use yet (tag, path, patches, cleanup, expectedResources, ...).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from recipes.criteria import RecipeCriteria

API_VERSIONS = ("aicr.nvidia.com/v1alpha1", "aicr.run/v1beta1")
ApiVersion = Literal["aicr.nvidia.com/v1alpha1", "aicr.run/v1beta1"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Constraint(_Strict):
    """A measured fact the target must satisfy, e.g. ``K8s.server.version >= 1.30``."""

    name: str = Field(min_length=1)
    value: str
    severity: Literal["error", "warning"] | None = None
    remediation: str | None = None
    unit: str | None = None


class ExpectedResource(_Strict):
    """A Kubernetes object that must exist once a component is deployed."""

    kind: str
    name: str
    namespace: str | None = None


class ComponentRef(_Strict):
    """One deployable component as an overlay declares it (empty fields are inherited)."""

    name: str = Field(min_length=1)
    namespace: str = ""
    chart: str = ""
    type: Literal["Helm", "Kustomize", ""] = ""
    source: str = ""
    version: str = ""
    tag: str = ""
    valuesFile: str = ""
    overrides: dict[str, Any] = Field(default_factory=dict)
    patches: list[str] = Field(default_factory=list)
    dependencyRefs: list[str] = Field(default_factory=list)
    manifestFiles: list[str] = Field(default_factory=list)
    path: str = ""
    cleanup: bool = False
    expectedResources: list[ExpectedResource] = Field(default_factory=list)
    healthCheckAsserts: str = ""

    def is_enabled(self) -> bool:
        """False when `overrides.enabled` is the boolean false (AICR's disable switch)."""
        return self.overrides.get("enabled") is not False


class ValidationPhase(_Strict):
    """One validation phase: checks to run and constraints on what they measure."""

    timeout: str | None = None
    constraints: list[Constraint] = Field(default_factory=list)
    checks: list[str] = Field(default_factory=list)
    nodeSelection: dict[str, Any] | None = None
    infrastructure: dict[str, Any] | None = None


class Validation(_Strict):
    """Validation phases; a phase that is present is enabled."""

    readiness: ValidationPhase | None = None
    deployment: ValidationPhase | None = None
    performance: ValidationPhase | None = None
    conformance: ValidationPhase | None = None


PHASES = ("readiness", "deployment", "performance", "conformance")


class Metadata(_Strict):
    """Kubernetes-style metadata: only the name is meaningful to the resolver."""

    name: str = Field(min_length=1)


class RecipeSpec(_Strict):
    """An overlay's body."""

    base: str = ""
    criteria: RecipeCriteria | None = None
    mixins: list[str] = Field(default_factory=list)
    constraints: list[Constraint] = Field(default_factory=list)
    componentRefs: list[ComponentRef] = Field(default_factory=list)
    validation: Validation | None = None


class RecipeMetadata(_Strict):
    """An overlay file (`overlays/*.yaml`); the one named `base` is the root of all chains."""

    kind: Literal["RecipeMetadata"]
    apiVersion: ApiVersion
    metadata: Metadata
    spec: RecipeSpec = Field(default_factory=RecipeSpec)


class MixinSpec(_Strict):
    """A mixin contributes only constraints and componentRefs."""

    constraints: list[Constraint] = Field(default_factory=list)
    componentRefs: list[ComponentRef] = Field(default_factory=list)


class RecipeMixin(_Strict):
    """A composable fragment (`mixins/*.yaml`) named from an overlay's `spec.mixins`."""

    kind: Literal["RecipeMixin"]
    apiVersion: ApiVersion
    metadata: Metadata
    spec: MixinSpec = Field(default_factory=MixinSpec)
