"""Typed catalog documents: RecipeMetadata overlays and RecipeMixin fragments, by format.

Field names are the YAML's camelCase keys. Each model lists exactly the fields of one AICR
format (see `recipes.catalogs.versions`): `aicr.nvidia.com/v1alpha1` as AICR v0.11 read it, and the
`aicr.run` formats, which add `preManifestFiles` (manifests applied before the component's
chart) and `healthCheckSkip` (no registry health check for this component). A key a format
does not define is reported by `recipes.catalogs.documents` (a warning where AICR ignores it, an
error where AICR refuses it). Documents of the older format are read into the current
models, so the resolver works on one shape.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from recipes.model.base_types import Constraint, ExpectedResource
from recipes.model.criteria import RecipeCriteria
from recipes.model.validation import PHASES, Validation, ValidationPhase

__all__ = [
    "PHASES",
    "ComponentRef",
    "Constraint",
    "ExpectedResource",
    "RecipeMetadata",
    "RecipeMixin",
    "Validation",
    "ValidationPhase",
]


_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _RefFields(_Strict):
    """A componentRef as `aicr.nvidia.com/v1alpha1` defines it (empty fields inherit)."""

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

    @field_validator("namespace")
    @classmethod
    def _namespace_is_a_dns_label(cls, namespace: str) -> str:
        """The component's Namespace is created with this name, and Kubernetes names a
        namespace with an RFC 1123 DNS label (kubernetes/kubernetes staging/src/k8s.io/
        apimachinery/pkg/api/validation/generic.go, commit 95f08499: `ValidateNamespaceName
        = NameIsDNSLabel`, at most 63 characters); "" inherits the overlay's."""
        if namespace and not _DNS_LABEL.fullmatch(namespace):
            raise ValueError(
                f"{namespace[:70]!r} is not a Kubernetes namespace name (an RFC 1123 DNS "
                "label): 1 to 63 lowercase letters, digits or '-', starting and ending with "
                "a letter or digit"
            )
        return namespace


class ComponentRefV1Alpha1(_RefFields):
    """`aicr.nvidia.com/v1alpha1`: no pre-manifests, no health-check opt-out."""


class ComponentRef(_RefFields):
    """One deployable component (the `aicr.run` formats' fields)."""

    preManifestFiles: list[str] = Field(default_factory=list)
    healthCheckSkip: bool = False

    def is_enabled(self) -> bool:
        """False when `overrides.enabled` is the boolean false (AICR's `IsEnabled`)."""
        return self.overrides.get("enabled") is not False


class Metadata(_Strict):
    """Kubernetes-style metadata: only the name is meaningful to the resolver."""

    name: str = Field(min_length=1)


class _SpecFields(_Strict):
    base: str = ""
    criteria: RecipeCriteria | None = None
    mixins: list[str] = Field(default_factory=list)
    constraints: list[Constraint] = Field(default_factory=list)
    validation: Validation | None = None


class RecipeSpecV1Alpha1(_SpecFields):
    componentRefs: list[ComponentRefV1Alpha1] = Field(default_factory=list)


class RecipeSpec(_SpecFields):
    """An overlay's body."""

    componentRefs: list[ComponentRef] = Field(default_factory=list)


class _Header(_Strict):
    apiVersion: str
    metadata: Metadata


class RecipeMetadataV1Alpha1(_Header):
    kind: Literal["RecipeMetadata"]
    spec: RecipeSpecV1Alpha1 = Field(default_factory=RecipeSpecV1Alpha1)


class RecipeMetadata(_Header):
    """An overlay file (`overlays/*.yaml`); `overlays/base.yaml` is the root of all chains."""

    kind: Literal["RecipeMetadata"]
    spec: RecipeSpec = Field(default_factory=RecipeSpec)


class MixinSpecV1Alpha1(_Strict):
    constraints: list[Constraint] = Field(default_factory=list)
    componentRefs: list[ComponentRefV1Alpha1] = Field(default_factory=list)


class MixinSpec(_Strict):
    """A mixin contributes only constraints and componentRefs."""

    constraints: list[Constraint] = Field(default_factory=list)
    componentRefs: list[ComponentRef] = Field(default_factory=list)


class RecipeMixinV1Alpha1(_Header):
    kind: Literal["RecipeMixin"]
    spec: MixinSpecV1Alpha1 = Field(default_factory=MixinSpecV1Alpha1)


class RecipeMixin(_Header):
    """A composable fragment (`mixins/*.yaml`) named from an overlay's `spec.mixins`."""

    kind: Literal["RecipeMixin"]
    spec: MixinSpec = Field(default_factory=MixinSpec)
