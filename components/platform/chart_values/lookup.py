"""Which Helm values paths a chart knows, read from the pinned chart's own values file.

`gpu-ci:platform.set: ["kubeflow-trainer:image.tagg=test"]` would deploy the chart's default
image and the e2e run would pass on it: a false green. So every `set` path is checked
against the chart the recipe pins, before anything registers (`set_problems`, reported by
`stacks/config/recipe.py` at `gpu-ci:platform.set[i]` with a did-you-mean). That is the
plan's check, with no chart and no Helm; whether a value changes what the chart renders is
`python -m stacks check-charts`, Helm on the complete chart (`stacks/offline/charts/check.py`),
which reuses `ChartValues.miss` for its did-you-mean.

The chart's values are data: `recipes/chart-values/<chart>-<version>/` holds the chart's
`values.yaml` (or `values.schema.json`, which wins where a chart ships one), its
`Chart.yaml` and where both come from. A chart version without a folder there is not
checked: nothing is guessed from another version.

What a chart knows is read from its `values.yaml` (`defaults`, with the keys its
comments document: `comments`) or its `values.schema.json` (`schema`), as a
tree of `paths.Known` along Helm's values paths. A subchart's values are free-form
too: anything under a dependency's name (or alias) in `Chart.yaml` (gpu-operator's
`node-feature-discovery`, the Trainer's `jobset` and `lws`), whose own values are not
shipped here, and `global` in a chart with dependencies.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from components.platform.chart_values.defaults import from_values_text
from components.platform.chart_values.paths import FREE, Known, Segment, render, walk
from components.platform.chart_values.schema import from_schema
from components.platform.releases.overrides import ENABLED, PlatformError, split_set
from core import yaml_text
from core.errors import did_you_mean
from recipes import PROJECT_CATALOG
from recipes.model.result import RecipeResult

CHART_VALUES = PROJECT_CATALOG.parent / "chart-values"
"""`recipes/chart-values`: one `<chart>-<version>` folder per chart version."""

_LISTED_KEYS = 15


@dataclass(frozen=True)
class ChartValues:
    """The values paths one chart version knows."""

    name: str
    version: str
    root: Known

    def miss(self, path: Sequence[Segment]) -> str | None:
        """Why the chart does not know `path` (None: it does), with a did-you-mean."""
        found = walk(self.root, path)
        if found is None:
            return None
        index, parent = found
        chart = f"the {self.name} chart ({self.version})"
        where = render(path[:index])
        at = render(path[: index + 1])
        segment = path[index]
        if parent.kind == "scalar":
            return f"'{where}' is {parent.what} in {chart}, so nothing can be set under it"
        if parent.kind == "list":
            return f"'{where}' is a list in {chart}, not a map [given: '{at}']"
        if isinstance(segment, int):
            return f"'{where or 'the values'}' is a map in {chart}, not a list [given: '{at}']"
        hint = self._suggest(path, index, list(parent.keys))
        keys = sorted(parent.keys)
        listed = ", ".join(keys[:_LISTED_KEYS])
        if len(keys) > _LISTED_KEYS:
            listed += f", ... ({len(keys) - _LISTED_KEYS} more)"
        under = f"keys under '{where}'" if where else "top-level keys"
        return f"{chart} has no value '{at}'{hint}; {under}: {listed}"

    def _suggest(self, path: Sequence[Segment], index: int, keys: list[str]) -> str:
        guess = did_you_mean(str(path[index]), keys)
        if guess is None:
            return ""
        whole = [*path[:index], guess, *path[index + 1 :]]
        shown = whole if walk(self.root, whole) is None else whole[: index + 1]
        return f" (did you mean '{render(shown)}'?)"


# -- the charts --------------------------------------------------------------------------------
def chart_name(chart: str) -> str:
    """The chart's own name in a recipe's chart reference (`nvidia/gpu-operator`)."""
    return chart.rpartition("/")[2]


def chart_values(chart: str, version: str, root: Path = CHART_VALUES) -> ChartValues | None:
    """What chart `chart` at `version` knows, or None when `root` has no values for it."""
    name = chart_name(chart)
    for candidate in dict.fromkeys((version, version.removeprefix("v"), f"v{version}")):
        folder = root / f"{name}-{candidate}"
        if (folder / "values.yaml").is_file() or (folder / "values.schema.json").is_file():
            return _load(name, candidate, folder)
    return None


@cache
def _load(name: str, version: str, folder: Path) -> ChartValues:
    chart_file = folder / "Chart.yaml"
    meta = yaml_text.load(chart_file.read_text(encoding="utf-8")) if chart_file.is_file() else {}
    dependencies = [
        str(d.get("alias") or d["name"])
        for d in (meta or {}).get("dependencies") or []
        if isinstance(d, dict) and d.get("name")
    ]
    schema = folder / "values.schema.json"
    if schema.is_file():
        document = json.loads(schema.read_text(encoding="utf-8"))
        root = from_schema(document, document)
    else:
        root = from_values_text((folder / "values.yaml").read_text(encoding="utf-8"))
    if root.kind == "map" and dependencies:
        opened = dict.fromkeys([*dependencies, "global"], FREE)
        root = Known("map", {**root.keys, **opened})
    return ChartValues(name, version, root)


# -- checks ------------------------------------------------------------------------------------
def unknown_paths(chart: ChartValues, values: Mapping[str, Any]) -> list[str]:
    """What `chart` says of each key of `values` (a values file, overrides) it does not know.

    One message per unknown key (not per leaf beneath it). A list is walked only where the
    chart describes its items (a schema's `items`): elsewhere a list value replaces the
    chart's list, or sets a key to a list, and has no keys of the chart's to check."""
    found: list[str] = []
    _unknown(chart, chart.root, dict(values), (), found)
    return found


def _unknown(
    chart: ChartValues, node: Known, value: Any, path: tuple[Segment, ...], found: list[str]
) -> None:
    if node.kind == "free":
        return
    if isinstance(value, dict):
        for key, child in value.items():
            here = (*path, str(key))
            if node.kind == "map" and str(key) in node.keys:
                _unknown(chart, node.keys[str(key)], child, here, found)
            else:
                found.append(f"{render(here)}: {chart.miss(here)}")
    elif isinstance(value, list) and node.kind == "list" and node.items is not None:
        for index, item in enumerate(value):
            _unknown(chart, node.items, item, (*path, index), found)


def set_problems(items: Sequence[str], recipe: RecipeResult) -> list[tuple[int, str]]:
    """(index, message) for each `set` item whose values path the component's chart, as the
    recipe pins it, does not know. Items that do not parse, `enabled` switches, components
    the recipe lacks and charts without values data are left to their own checks."""
    problems: list[tuple[int, str]] = []
    for index, item in enumerate(items):
        try:
            component, path, _ = split_set(item)
        except PlatformError:
            continue
        ref = recipe.ref(component)
        if path == [ENABLED] or ref is None or not ref.chart or not ref.version:
            continue
        chart = chart_values(ref.chart, ref.version)
        why = chart.miss(path) if chart is not None else None
        if why is not None:
            problems.append((index, f"platform override '{component}:{render(path)}': {why}"))
    return problems
