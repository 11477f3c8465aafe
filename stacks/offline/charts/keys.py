"""The values keys a real chart has, for the did-you-mean of a value that renders nothing.

Which values a chart *uses* is decided by rendering (`dead_values`); this only names
what a misspelt key was probably meant to be. It reads the chart itself, not a copy: its
`values.yaml` (with the keys its comments document, `components.platform.chart_values.defaults`),
and each dependency's under its name or alias (its own `charts/<name>/values.yaml` in an
unpacked chart; free-form where the chart is a packed `.tgz`), `global` free-form.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from components.platform.chart_values.defaults import from_values_text
from components.platform.chart_values.lookup import ChartValues
from components.platform.chart_values.paths import FREE, Known
from core.read_limits import CHART_FILE
from core.read_yaml import SAFE, load
from stacks.offline.charts.release import run_tool


@functools.cache
def chart_keys(helm: Path, chart: Path, version: str = "") -> ChartValues:
    """What `chart` (an unpacked folder or a `.tgz`) and its dependencies know; named in
    messages at `version` (the release's: an unpacked chart's Chart.yaml may be a
    development build's, as gpu-operator's git one is), else its Chart.yaml's."""
    meta = _meta(helm, chart)
    name = str(meta.get("name", chart.name))
    return ChartValues(name, version or str(meta.get("version", "")), _known(helm, chart))


def _known(helm: Path, chart: Path) -> Known:
    root = from_values_text(_show(helm, chart, "values"))
    if root.kind != "map":
        return root
    opened: dict[str, Known] = {}
    for dependency in _meta(helm, chart).get("dependencies") or []:
        if not isinstance(dependency, dict) or not dependency.get("name"):
            continue
        sub = chart / "charts" / str(dependency["name"])
        key = str(dependency.get("alias") or dependency["name"])
        opened[key] = _known(helm, sub) if (sub / "Chart.yaml").is_file() else FREE
    if opened:
        opened["global"] = FREE
    return Known("map", {**root.keys, **opened})


def _meta(helm: Path, chart: Path) -> dict[str, Any]:
    data = load(
        _show(helm, chart, "chart"), name=f"{chart}/Chart.yaml", limits=CHART_FILE, schema=SAFE
    )
    return data.data if isinstance(data.data, dict) else {}


@functools.cache
def _show(helm: Path, chart: Path, what: str) -> str:
    """A chart's own file: read from an unpacked chart, or `helm show` for a packed one."""
    if chart.is_dir():
        file = chart / ("Chart.yaml" if what == "chart" else "values.yaml")
        return file.read_text(encoding="utf-8") if file.is_file() else ""
    done = run_tool([str(helm), "show", what, str(chart)], what="helm", timeout=120, env={})
    return done.stdout if done.returncode == 0 else ""
