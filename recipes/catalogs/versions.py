"""The AICR catalog formats gpu-ci reads, one per `apiVersion`, each with its fields and rules.

AICR has versioned its catalog documents (`pkg/header`, ADR-013, ADR-022):

- `aicr.nvidia.com/v1alpha1`: AICR up to v0.11, the first format (the v0.11.1 catalog);
- `aicr.run/v1alpha2`: AICR v0.12 on (ADR-013 moved the group), today's catalog: adds
  `preManifestFiles`, `healthCheckSkip` and registry bundler flags; validation phases merge
  field by field;
- `aicr.run/v1beta1`: ADR-022's authoring track (AICR v0.22 on), the same schema;
- `aicr.run/v1alpha3`, `aicr.run/v1beta2`: profile-bearing overlays (`spec.profile`),
  recognised and refused with the reason: gpu-ci has no profiles.

For each format: the models its RecipeMetadata, RecipeMixin and ComponentRegistry documents
are read with, whether a key outside them is tolerated (AICR's lenient decode of overlays
and the registry) or refused (its strict decode of mixins), and the resolution rules of
the AICR release it is from (`recipes.model.semantics`); a whole catalog resolves by its
newest format's (`recipes.catalogs.catalog.semantics_of`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel

from recipes.errors import RecipeError
from recipes.model import overlays, registry
from recipes.model.semantics import TODAY_SEMANTICS, V0_11_1_SEMANTICS, Semantics
from recipes.model.validation import MergeRule

METADATA, MIXIN, REGISTRY = "RecipeMetadata", "RecipeMixin", "ComponentRegistry"
KINDS = (METADATA, MIXIN, REGISTRY)


@dataclass(frozen=True)
class Format:
    """One catalog format: its document models and rules."""

    api_version: str
    aicr: str
    models: dict[str, type[BaseModel]] = field(default_factory=dict)
    """Document kind -> the model it is read with."""
    semantics: Semantics = TODAY_SEMANTICS
    """How the AICR release of this format resolved a catalog."""
    refused: str = ""
    """Why documents of this format are recognised but not read (empty: they are read)."""

    @property
    def validation_merge(self) -> MergeRule:
        """How an overlay in this format merges its validation phases."""
        return self.semantics.validation_merge


_V1ALPHA1: dict[str, type[BaseModel]] = {
    METADATA: overlays.RecipeMetadataV1Alpha1,
    MIXIN: overlays.RecipeMixinV1Alpha1,
    REGISTRY: registry.ComponentRegistryV1Alpha1,
}
_CURRENT: dict[str, type[BaseModel]] = {
    METADATA: overlays.RecipeMetadata,
    MIXIN: overlays.RecipeMixin,
    REGISTRY: registry.ComponentRegistry,
}
_PROFILES = (
    "profile-bearing RecipeMetadata (spec.profile, AICR's configuration profiles): gpu-ci "
    "does not implement profiles; write the overlay as aicr.run/v1alpha2 without a profile"
)

FORMATS: dict[str, Format] = {
    f.api_version: f
    for f in (
        Format("aicr.nvidia.com/v1alpha1", "v0.11 and earlier", _V1ALPHA1, V0_11_1_SEMANTICS),
        Format("aicr.run/v1alpha2", "v0.12 and later", _CURRENT),
        Format("aicr.run/v1beta1", "v0.22 and later (ADR-022 authoring track)", _CURRENT),
        Format(
            "aicr.run/v1alpha3",
            "profile-bearing overlays",
            {METADATA: overlays.RecipeMetadata},
            refused=_PROFILES,
        ),
        Format(
            "aicr.run/v1beta2",
            "profile-bearing overlays (ADR-022)",
            {METADATA: overlays.RecipeMetadata},
            refused=_PROFILES,
        ),
    )
}
STRICT_KINDS = frozenset({MIXIN})
"""Kinds AICR decodes with KnownFields(true): an unknown key is an error, not a warning."""
CURRENT = "aicr.run/v1alpha2"
"""The format of AICR's own catalog today (main, July 2026) and of this project's."""


def readable(kind: str) -> list[str]:
    """The apiVersions gpu-ci reads documents of `kind` in."""
    return [v for v, f in FORMATS.items() if kind in f.models and not f.refused]


def format_for(rel: str, kind: str, data: object) -> Format:
    """The format of document `data` (of `kind`) in file `rel`, or one clear error."""
    api = data.get("apiVersion") if isinstance(data, dict) else None
    found = FORMATS.get(api) if isinstance(api, str) else None
    known = ", ".join(readable(kind))
    if found is None or kind not in found.models:
        given = "no apiVersion" if api is None else f"apiVersion {api!r}"
        raise RecipeError(
            f"{rel}: apiVersion: {given} is not a {kind} format gpu-ci reads; "
            f"it reads {kind} in {known}"
        )
    if found.refused:
        raise RecipeError(f"{rel}: apiVersion: {api} is {found.refused}; gpu-ci reads {known}")
    return found
