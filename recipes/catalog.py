"""Loading recipe catalogs from one or more data directories.

Directories are layered like aicr's repeated `--data`: a later directory adds files and
replaces any file with the same relative path, except `registry.yaml`, whose components are
merged by name (a later entry replaces an earlier one), so a small project catalog can add
components without restating AICR's registry.

Loading validates structure and every cross-file reference (base, mixins, valuesFile,
manifestFiles, registry names, assert files) up front, so a broken catalog fails when it is
loaded rather than on the one query that reaches the bad overlay. Values files are only
indexed here; they are parsed when a component's values are first asked for.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from core.errors import did_you_mean
from recipes.criteria import FIELDS
from recipes.errors import RecipeError, from_validation_error
from recipes.model import ComponentRef, RecipeMetadata, RecipeMixin
from recipes.registry import ComponentConfig, ComponentRegistry
from recipes.yamlfiles import load_yaml

BASE = "base"
REGISTRY = "registry.yaml"
PROJECT_CATALOG = Path(__file__).resolve().parent / "catalog"
_M = TypeVar("_M", bound=BaseModel)


@dataclass(frozen=True)
class Overlay:
    """An overlay with the catalog file it came from."""

    rel: str
    doc: RecipeMetadata

    @property
    def name(self) -> str:
        """The overlay's `metadata.name`."""
        return self.doc.metadata.name


@dataclass(frozen=True)
class Mixin:
    """A mixin with the catalog file it came from."""

    rel: str
    doc: RecipeMixin


@dataclass(eq=False)
class Catalog:
    """The layered catalog: overlays by name, mixins by name, merged registry, file index."""

    roots: tuple[Path, ...]
    files: dict[str, Path]
    overlays: dict[str, Overlay]
    mixins: dict[str, Mixin]
    registry: dict[str, ComponentConfig]
    vocabulary: dict[str, set[str]] = field(default_factory=dict)

    @property
    def base(self) -> Overlay | None:
        """The root overlay every chain starts from (None: an empty root)."""
        return self.overlays.get(BASE)

    def read_yaml(self, rel: str) -> Any:
        """A catalog file's parsed YAML (cached; callers must not mutate it)."""
        path = self.files.get(rel)
        if path is None:
            raise RecipeError(f"{rel}: file does not exist in {self._where()}")
        return load_yaml(path, rel)

    def _where(self) -> str:
        return ", ".join(str(r) for r in self.roots)


def load_catalog(dirs: Sequence[str | os.PathLike[str]] | None = None) -> Catalog:
    """Load and cross-check the catalogs in `dirs` (default: the project's own catalog)."""
    roots = tuple(Path(d) for d in (dirs or [PROJECT_CATALOG]))
    files: dict[str, Path] = {}
    registry: dict[str, ComponentConfig] = {}
    for root in roots:
        if not root.is_dir():
            raise RecipeError(f"--data {root}: not a directory")
        for rel, path in _walk(root):
            files[rel] = path
        if (root / REGISTRY).is_file():
            reg = _parse(ComponentRegistry, root / REGISTRY, REGISTRY)
            for comp in reg.components:
                registry[comp.name] = comp
    overlays = _load_overlays(files)
    mixins = _load_mixins(files)
    catalog = Catalog(roots, files, overlays, mixins, registry)
    _check_registry(catalog)
    _check_references(catalog)
    catalog.vocabulary = _vocabulary(overlays.values())
    return catalog


def _walk(root: Path) -> Iterable[tuple[str, Path]]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            path = Path(dirpath) / name
            yield path.relative_to(root).as_posix(), path


def _parse(model: type[_M], path: Path, rel: str) -> _M:
    data = load_yaml(path, rel)
    if not isinstance(data, dict):
        raise RecipeError(f"{rel}: expected a YAML mapping, got {type(data).__name__}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise from_validation_error(rel, exc) from None


def _yaml_files(files: dict[str, Path], folder: str) -> list[str]:
    return sorted(r for r in files if r.startswith(folder + "/") and r.endswith((".yaml", ".yml")))


def _load_overlays(files: dict[str, Path]) -> dict[str, Overlay]:
    overlays: dict[str, Overlay] = {}
    for rel in _yaml_files(files, "overlays"):
        doc = _parse(RecipeMetadata, files[rel], rel)
        name = doc.metadata.name
        if name in overlays:
            raise RecipeError(
                f"{rel}: metadata.name: overlay {name!r} is already defined in {overlays[name].rel}"
            )
        if name == BASE and (doc.spec.base or doc.spec.criteria is not None):
            raise RecipeError(f"{rel}: spec: the root overlay 'base' takes no base or criteria")
        overlays[name] = Overlay(rel, doc)
    return overlays


def _load_mixins(files: dict[str, Path]) -> dict[str, Mixin]:
    mixins: dict[str, Mixin] = {}
    for rel in _yaml_files(files, "mixins"):
        doc = _parse(RecipeMixin, files[rel], rel)
        name = doc.metadata.name
        if name in mixins:
            raise RecipeError(
                f"{rel}: metadata.name: mixin {name!r} is already defined in {mixins[name].rel}"
            )
        mixins[name] = Mixin(rel, doc)
    return mixins


def _unknown(kind: str, value: str, choices: Iterable[str]) -> str:
    options = sorted(choices)
    hint = did_you_mean(value, options)
    tail = f" (did you mean {hint!r}?)" if hint else f"; known: {', '.join(options) or 'none'}"
    return f"{kind} {value!r} does not exist{tail}"


def _check_file(catalog: Catalog, rel: str, where: str, ref: str) -> None:
    if ref.startswith("/") or ".." in ref.split("/"):
        raise RecipeError(f"{rel}: {where}: {ref} must be a path inside the data directory")
    if ref not in catalog.files:
        raise RecipeError(f"{rel}: {where}: file {ref} does not exist")


def _check_refs(catalog: Catalog, rel: str, prefix: str, refs: list[ComponentRef]) -> None:
    for i, ref in enumerate(refs):
        where = f"{prefix}.componentRefs[{i}]"
        if ref.name not in catalog.registry:
            raise RecipeError(
                f"{rel}: {where}.name: "
                + _unknown("component", ref.name, catalog.registry).replace(
                    "does not exist", "is not in registry.yaml"
                )
            )
        if ref.valuesFile:
            _check_file(catalog, rel, f"{where}.valuesFile", ref.valuesFile)
        for j, manifest in enumerate(ref.manifestFiles):
            _check_file(catalog, rel, f"{where}.manifestFiles[{j}]", manifest)
        for j, patch in enumerate(ref.patches):
            _check_file(catalog, rel, f"{where}.patches[{j}]", patch)


def _check_references(catalog: Catalog) -> None:
    for overlay in catalog.overlays.values():
        spec, rel = overlay.doc.spec, overlay.rel
        if spec.base and spec.base != BASE and spec.base not in catalog.overlays:
            raise RecipeError(
                f"{rel}: spec.base: " + _unknown("overlay", spec.base, catalog.overlays)
            )
        for i, name in enumerate(spec.mixins):
            if name not in catalog.mixins:
                raise RecipeError(
                    f"{rel}: spec.mixins[{i}]: " + _unknown("mixin", name, catalog.mixins)
                )
        _check_refs(catalog, rel, "spec", spec.componentRefs)
        chain_of(catalog, overlay.name)
    for mixin in catalog.mixins.values():
        _check_refs(catalog, mixin.rel, "spec", mixin.doc.spec.componentRefs)


def _check_registry(catalog: Catalog) -> None:
    for i, comp in enumerate(catalog.registry.values()):
        if comp.healthCheck and comp.healthCheck.assertFile:
            _check_file(
                catalog,
                REGISTRY,
                f"components[{i}].healthCheck.assertFile",
                comp.healthCheck.assertFile,
            )


def chain_of(catalog: Catalog, name: str) -> list[Overlay]:
    """`name`'s inheritance chain without the root, root-most first; cycles are errors."""
    chain: list[Overlay] = []
    seen: list[str] = []
    current = name
    while current and current != BASE:
        if current in seen:
            loop = " -> ".join([*seen[seen.index(current) :], current])
            raise RecipeError(f"{catalog.overlays[name].rel}: spec.base: inheritance cycle {loop}")
        seen.append(current)
        overlay = catalog.overlays[current]
        chain.append(overlay)
        current = overlay.doc.spec.base
    chain.reverse()
    return chain


def _vocabulary(overlays: Iterable[Overlay]) -> dict[str, set[str]]:
    vocab: dict[str, set[str]] = {f: set() for f in FIELDS}
    for overlay in overlays:
        crit = overlay.doc.spec.criteria
        if crit is None:
            continue
        for f in FIELDS:
            value = crit.value(f).lower()
            if value not in ("", "any"):
                vocab[f].add(value)
    return vocab
