"""The loaded catalog: its overlays, mixins, merged registry and file index, and its rules.

`recipes.catalogs.load` builds a `Catalog` from data directories; the cross-file checks
(`recipes.catalogs.catalog_checks`) and the resolver read it. Every file is read through
the careful reader (`recipes.catalogs.yamlfiles`), each inside the data directory it comes
from. `semantics_of` gives the rules a catalog resolves by: those of its newest document
format's AICR release (`recipes.catalogs.versions`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from recipes.catalogs import versions
from recipes.catalogs.yamlfiles import check_catalog_file, load_yaml, read_catalog_text
from recipes.errors import RecipeError
from recipes.model.overlays import RecipeMetadata, RecipeMixin
from recipes.model.registry import ComponentConfig
from recipes.model.semantics import TODAY_SEMANTICS, Semantics
from recipes.model.validation import MergeRule

BASE = "base"
REGISTRY = "registry.yaml"


@dataclass(frozen=True)
class Overlay:
    """An overlay with the catalog file it came from and its format's merge rule."""

    rel: str
    doc: RecipeMetadata
    api_version: str = versions.CURRENT
    validation_merge: MergeRule = "fieldwise"

    @property
    def name(self) -> str:
        """The overlay's `metadata.name`."""
        return self.doc.metadata.name


@dataclass(frozen=True)
class Mixin:
    """A mixin with the catalog file it came from."""

    rel: str
    doc: RecipeMixin
    api_version: str = versions.CURRENT


@dataclass(eq=False)
class Catalog:
    """The layered catalog: overlays by name, mixins by name, merged registry, file index."""

    roots: tuple[Path, ...]
    files: dict[str, Path]
    overlays: dict[str, Overlay]
    mixins: dict[str, Mixin]
    registry: dict[str, ComponentConfig]
    vocabulary: dict[str, set[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    origins: dict[str, Path] = field(default_factory=dict)
    """The data directory each file of `files` comes from (the one it must lie in)."""
    _texts: dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def base(self) -> Overlay | None:
        """The root overlay every chain starts from (None: an empty root)."""
        return self.overlays.get(BASE)

    def read_yaml(self, rel: str) -> Any:
        """A catalog file's parsed YAML (cached; callers must not mutate it)."""
        return load_yaml(self._path(rel), rel, self.origins.get(rel))

    def read_text(self, rel: str) -> str:
        """A catalog file's text (cached per catalog)."""
        text = self._texts.get(rel)
        if text is None:
            text = read_catalog_text(self._path(rel), rel, self.origins.get(rel))
            self._texts[rel] = text
        return text

    def check_readable(self, rel: str, name: str) -> None:
        """`rel` would be read (inside its data directory, a regular file within the size
        bound), checked without opening it; `name` says where it is named."""
        check_catalog_file(self._path(rel), name, self.origins.get(rel))

    def _path(self, rel: str) -> Path:
        path = self.files.get(rel)
        if path is None:
            raise RecipeError(f"{rel}: file does not exist in {self._where()}")
        return path

    def _where(self) -> str:
        return ", ".join(str(r) for r in self.roots)


@lru_cache(maxsize=64)
def semantics_of(catalog: Catalog) -> Semantics:
    """The rules `catalog` resolves by: its newest document format's (today's if none)."""
    apis = {o.api_version for o in catalog.overlays.values()}
    apis |= {m.api_version for m in catalog.mixins.values()}
    found = [versions.FORMATS[api].semantics for api in apis]
    return max(found, key=lambda s: s.rank, default=TODAY_SEMANTICS)
