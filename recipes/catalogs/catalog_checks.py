"""Cross-file checks of a loaded catalog, inheritance chains, and the criteria vocabulary.

Every reference is checked when the catalog loads (base, mixins, valuesFile, manifestFiles,
preManifestFiles, patches, registry names, health-check assert files: each a regular file
inside its data directory once symlinks are followed, within its size bound, checked
without opening it), so a broken catalog fails at once rather than on the one query that
reaches the bad overlay. AICR finds some of these only when a query reaches them, and does
not require a componentRef's name to be in the registry (it then fills no defaults); gpu-ci
refuses such a name, which is most often a typo (`gpu-operater`).
"""

from __future__ import annotations

from collections.abc import Iterable

from core.errors import did_you_mean
from recipes.catalogs.catalog import BASE, REGISTRY, Catalog, Overlay
from recipes.errors import RecipeError
from recipes.model.criteria import FIELDS
from recipes.model.overlays import ComponentRef


def unknown(kind: str, value: str, choices: Iterable[str]) -> str:
    """`overlay 'kindd' does not exist (did you mean 'kind'?)`."""
    options = sorted(choices)
    hint = did_you_mean(value, options)
    tail = f" (did you mean {hint!r}?)" if hint else f"; known: {', '.join(options) or 'none'}"
    return f"{kind} {value!r} does not exist{tail}"


def check_file(catalog: Catalog, rel: str, where: str, ref: str) -> None:
    """`ref` must be a file inside the catalog's data directories, once symlinks are
    followed, and one the careful reader reads (a regular file within its size bound)."""
    if ref.startswith("/") or ".." in ref.split("/"):
        raise RecipeError(f"{rel}: {where}: {ref} must be a path inside the data directory")
    if ref not in catalog.files:
        raise RecipeError(f"{rel}: {where}: file {ref} does not exist")
    catalog.check_readable(ref, f"{rel}: {where}: {ref}")


def _check_refs(catalog: Catalog, rel: str, refs: list[ComponentRef]) -> None:
    for i, ref in enumerate(refs):
        where = f"spec.componentRefs[{i}]"
        if ref.name not in catalog.registry:
            message = unknown("component", ref.name, catalog.registry)
            raise RecipeError(
                f"{rel}: {where}.name: "
                + message.replace("does not exist", "is not in registry.yaml")
            )
        if ref.valuesFile:
            check_file(catalog, rel, f"{where}.valuesFile", ref.valuesFile)
        for key in ("manifestFiles", "preManifestFiles", "patches"):
            for j, path in enumerate(getattr(ref, key)):
                check_file(catalog, rel, f"{where}.{key}[{j}]", path)


def check_references(catalog: Catalog) -> None:
    """Every overlay's base, mixins and component files exist; chains have no cycle."""
    for overlay in catalog.overlays.values():
        spec, rel = overlay.doc.spec, overlay.rel
        if spec.base and spec.base != BASE and spec.base not in catalog.overlays:
            raise RecipeError(
                f"{rel}: spec.base: " + unknown("overlay", spec.base, catalog.overlays)
            )
        for i, name in enumerate(spec.mixins):
            if name not in catalog.mixins:
                raise RecipeError(
                    f"{rel}: spec.mixins[{i}]: " + unknown("mixin", name, catalog.mixins)
                )
        _check_refs(catalog, rel, spec.componentRefs)
        chain_of(catalog, overlay.name)
    for mixin in catalog.mixins.values():
        _check_refs(catalog, mixin.rel, mixin.doc.spec.componentRefs)


def check_registry(catalog: Catalog) -> None:
    """Each registry entry's health-check and default manifest files exist."""
    for i, comp in enumerate(catalog.registry.values()):
        where = f"components[{i}]"
        if comp.healthCheck.assertFile:
            check_file(
                catalog, REGISTRY, f"{where}.healthCheck.assertFile", comp.healthCheck.assertFile
            )
        for j, path in enumerate(comp.manifestFiles):
            check_file(catalog, REGISTRY, f"{where}.manifestFiles[{j}]", path)


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


def vocabulary(overlays: Iterable[Overlay]) -> dict[str, set[str]]:
    """The criteria values the overlays pin, by field (AICR's criteria registry)."""
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
