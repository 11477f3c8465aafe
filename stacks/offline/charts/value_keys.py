"""Where a value of a release comes from: the key a user edits to fix it.

A platform release's values are the recipe's (the component's values file in the catalog,
then the overlays' `overrides`) with the stack's `gpu-ci:platform.set` over them
(`components/platform/release_plan.py`); every other release's values are built by
gpu-ci's own code from its config. A problem with a value is reported at the last layer
that set it: the `set` entry, else the overlays, else the values file, else the code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from components.platform.chart_values.paths import Segment, render
from components.platform.releases.overrides import split_set
from core.errors import GpuCiError
from recipes.catalogs.catalog import Catalog
from recipes.model.overlays import ComponentRef
from stacks.config import load_config, raw_from_flat
from stacks.config.recipe import resolve_recipe
from stacks.offline.charts.release import HelmRelease
from stacks.offline.stack_file.read import read_stack_file

SET_KEY = "gpu-ci:platform.set"


@dataclass(frozen=True)
class ValueSources:
    """What a stack's platform releases are built from (empty: no platform)."""

    sets: tuple[tuple[int, str, tuple[str, ...]], ...] = ()
    """(index, component, path) of each `gpu-ci:platform.set` entry that sets a value."""
    refs: dict[str, ComponentRef] = field(default_factory=dict)
    catalog: Catalog | None = None
    overlays: tuple[str, ...] = ()
    root: Path | None = None
    """The project folder: catalog files are named relative to it."""


def value_sources(root: Path, stack: str) -> ValueSources:
    """The sources of `stack`'s platform values, read as the program reads them (a stack
    that does not plan has none: the plan itself reports why)."""
    try:
        stack_file = read_stack_file(root, stack)
        raw = raw_from_flat(
            stack_file.config,
            stack_file.secret_keys,
            secret_leaves=stack_file.secret_leaves,
            esc_leaves=stack_file.esc_leaves,
        )
        platform = load_config(raw, stack, root).platform
    except GpuCiError:
        return ValueSources()
    if platform is None:
        return ValueSources()
    sets = []
    for index, item in enumerate(platform.set):  # load_config has refused any it cannot split
        component, path, _ = split_set(item)
        sets.append((index, component, tuple(path)))
    prepared, _ = resolve_recipe(platform, platform.accelerator, root)
    if prepared is None:
        return ValueSources(tuple(sets))
    refs = {r.name: r for r in prepared.recipe.componentRefs}
    overlays = tuple(prepared.recipe.metadata.appliedOverlays)
    return ValueSources(tuple(sets), refs, prepared.catalog, overlays, root)


@dataclass(frozen=True)
class ValueKey:
    """Where a value comes from, in words, and whether that place is the recipe's (shared by
    every stack that deploys it) rather than this stack's config or gpu-ci's code."""

    where: str
    recipe: bool = False


def value_key(sources: ValueSources, release: HelmRelease, path: tuple[Segment, ...]) -> ValueKey:
    """The key to fix for the value at `path` of `release`."""
    shown = render(path)
    component = release.component
    if component is None:
        return ValueKey(
            f"{release.source} (gpu-ci's values of release {release.resource}): {shown}"
        )
    for index, named, given in reversed(sources.sets):  # the last `set` wins
        if named == component and _overlaps(given, path):
            return ValueKey(f"{SET_KEY}[{index}] ({component}:{render(given)})")
    ref = sources.refs.get(component)
    if ref is not None and _has(ref.overrides, path):
        applied = ", ".join(sources.overlays) or "base"
        return ValueKey(
            f"the recipe's overrides of {component} (overlays {applied}): {shown}", True
        )
    for rel in _values_files(ref, sources.catalog):
        assert sources.catalog is not None
        if _has(sources.catalog.read_yaml(rel), path):
            return ValueKey(f"{_shown(sources.catalog.files[rel], sources.root)}: {shown}", True)
    return ValueKey(
        f"gpu-ci's own values of {component} (from its config, e.g. gpu-ci:observability's "
        f"DCGM ServiceMonitor; {release.source}): {shown}"
    )


def _values_files(ref: ComponentRef | None, catalog: Catalog | None) -> list[str]:
    """The catalog's values files of `ref`, the last layer first
    (`recipes/resolution/values.py`)."""
    if ref is None or catalog is None or not ref.valuesFile:
        return []
    default = f"components/{ref.name}/values.yaml"
    return [rel for rel in dict.fromkeys((ref.valuesFile, default)) if rel in catalog.files]


def _shown(path: Path, root: Path | None) -> str:
    """`path` relative to the project when it is inside it (the project's catalog)."""
    if root is not None and path.is_relative_to(root):
        return str(path.relative_to(root))
    return str(path)


def _overlaps(given: tuple[str, ...], path: tuple[Segment, ...]) -> bool:
    """One is the other's prefix (neither is empty: `split_set` and `dead_leaves` skip it)."""
    size = min(len(given), len(path))
    return tuple(map(str, path[:size])) == given[:size]


def _has(values: Any, path: tuple[Segment, ...]) -> bool:
    node = values
    for segment in path:
        if isinstance(node, list) and isinstance(segment, int) and segment < len(node):
            node = node[segment]
            continue
        if not isinstance(node, dict) or segment not in node:
            return False
        node = node[segment]
    return True
