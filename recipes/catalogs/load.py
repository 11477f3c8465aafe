"""Loading recipe catalogs from one or more data directories.

Directories are layered like aicr's repeated `--data`: a later directory adds files and
replaces any file with the same relative path, except `registry.yaml`, whose components are
merged by name (a later entry replaces an earlier one). As in AICR, every directory must
have a `registry.yaml`. Each document is read in its own format (`recipes.catalogs.versions`, by its
`apiVersion`); keys a format does not define, which AICR ignores in overlays and the
registry, are dropped and reported in one warning per load (`Catalog.warnings`, also logged
on the `recipes` logger); AICR refuses them in mixins, and so does gpu-ci.

Values files are only indexed here; they are parsed when a component's values are first
asked for. Health-check assert files are read when a recipe first needs them. Every file
is read by the careful reader (`recipes.catalogs.yamlfiles`): inside its own data directory once
symlinks are followed, a regular file (a named pipe is refused, never opened), within
`core.read_limits.CATALOG_FILE`; every file a catalog names is checked so when it loads.

Two choices differ from AICR's loader: overlays are read from `overlays/` only (AICR takes
any `kind: RecipeMetadata` file outside `components/`, `checks/` and `mixins/`; its catalogs
keep them all in `overlays/`), and two overlays or mixins of one name are an error (AICR
keeps the one it walks last, silently).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel

from recipes.catalogs import versions
from recipes.catalogs.catalog import BASE, REGISTRY, Catalog, Mixin, Overlay
from recipes.catalogs.catalog_checks import check_references, check_registry, vocabulary
from recipes.catalogs.documents import parse_document
from recipes.catalogs.yamlfiles import load_yaml
from recipes.errors import RecipeError
from recipes.model.overlays import RecipeMetadata, RecipeMixin
from recipes.model.registry import ComponentConfig, ComponentRegistry

PROJECT_CATALOG = Path(__file__).resolve().parents[1] / "catalog"
LOG = logging.getLogger("recipes")
_SHOWN = 12


def load_catalog(
    dirs: Sequence[str | os.PathLike[str]] | None = None, *, log: bool = True
) -> Catalog:
    """Load and cross-check the catalogs in `dirs` (default: the project's own catalog).

    Its warnings are logged on the `recipes` logger unless `log` is False (the caller then
    shows `Catalog.warnings` itself)."""
    roots = tuple(Path(d) for d in (dirs or [PROJECT_CATALOG]))
    files: dict[str, Path] = {}
    origins: dict[str, Path] = {}
    registry: dict[str, ComponentConfig] = {}
    ignored: list[str] = []
    for root in roots:
        if not root.is_dir():
            raise RecipeError(f"--data {root}: not a directory")
        if not os.path.lexists(root / REGISTRY):  # a pipe or a link out is refused when read
            raise RecipeError(
                f"--data {root}: {REGISTRY} is required, as in aicr: every data directory "
                "has one (it is merged by component name with the directories before it)"
            )
        for rel, path in _walk(root):
            files[rel], origins[rel] = path, root
        for comp in _registry(root, ignored):
            registry[comp.name] = comp
    overlays = _load_overlays(files, origins, ignored)
    mixins = _load_mixins(files, origins)
    catalog = Catalog(roots, files, overlays, mixins, registry, origins=origins)
    check_registry(catalog)
    check_references(catalog)
    catalog.vocabulary = vocabulary(overlays.values())
    if ignored:
        catalog.warnings.append(_ignored_message(ignored))
        if log:
            LOG.warning("warning: %s", catalog.warnings[-1])
    return catalog


def _ignored_message(ignored: list[str]) -> str:
    shown = "; ".join(ignored[:_SHOWN])
    more = f"; and {len(ignored) - _SHOWN} more" if len(ignored) > _SHOWN else ""
    return (
        f"recipe catalog: {len(ignored)} key(s) its format does not define, ignored as aicr "
        f"ignores them: {shown}{more}"
    )


def _walk(root: Path) -> Iterable[tuple[str, Path]]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            path = Path(dirpath) / name
            yield path.relative_to(root).as_posix(), path


def _registry(root: Path, ignored: list[str]) -> list[ComponentConfig]:
    data = load_yaml(root / REGISTRY, REGISTRY, root)
    fmt = versions.format_for(REGISTRY, versions.REGISTRY, data)
    doc, dropped = parse_document(
        fmt.models[versions.REGISTRY],
        data,
        REGISTRY,
        tolerant=True,
        newer=_newer(fmt, ComponentRegistry),
    )
    ignored += dropped
    if not isinstance(doc, ComponentRegistry):
        doc = ComponentRegistry.model_validate(doc.model_dump())
    return doc.components


def _newer(fmt: versions.Format, current: type[BaseModel]) -> tuple[str, type[BaseModel]] | None:
    return None if current in fmt.models.values() else (versions.CURRENT, current)


def _yaml_files(files: dict[str, Path], folder: str) -> list[str]:
    return sorted(r for r in files if r.startswith(folder + "/") and r.endswith(".yaml"))


def _load_overlays(
    files: dict[str, Path], origins: dict[str, Path], ignored: list[str]
) -> dict[str, Overlay]:
    overlays: dict[str, Overlay] = {}
    for rel in _yaml_files(files, "overlays"):
        data = load_yaml(files[rel], rel, origins[rel])
        fmt = versions.format_for(rel, versions.METADATA, data)
        parsed, dropped = parse_document(
            fmt.models[versions.METADATA],
            data,
            rel,
            tolerant=True,
            newer=_newer(fmt, RecipeMetadata),
        )
        ignored += dropped
        doc = (
            parsed
            if isinstance(parsed, RecipeMetadata)
            else RecipeMetadata.model_validate(parsed.model_dump())
        )
        name = doc.metadata.name
        if name in overlays:
            raise RecipeError(
                f"{rel}: metadata.name: overlay {name!r} is already defined in {overlays[name].rel}"
            )
        if name == BASE and (doc.spec.base or doc.spec.criteria is not None):
            raise RecipeError(f"{rel}: spec: the root overlay 'base' takes no base or criteria")
        overlays[name] = Overlay(rel, doc, fmt.api_version, fmt.validation_merge)
    return overlays


def _load_mixins(files: dict[str, Path], origins: dict[str, Path]) -> dict[str, Mixin]:
    mixins: dict[str, Mixin] = {}
    for rel in _yaml_files(files, "mixins"):
        data = load_yaml(files[rel], rel, origins[rel])
        fmt = versions.format_for(rel, versions.MIXIN, data)
        parsed, _ = parse_document(fmt.models[versions.MIXIN], data, rel, tolerant=False)
        doc = (
            parsed
            if isinstance(parsed, RecipeMixin)
            else RecipeMixin.model_validate(parsed.model_dump())
        )
        name = doc.metadata.name
        if name in mixins:
            raise RecipeError(
                f"{rel}: metadata.name: mixin {name!r} is already defined in {mixins[name].rel}"
            )
        mixins[name] = Mixin(rel, doc, fmt.api_version)
    return mixins
