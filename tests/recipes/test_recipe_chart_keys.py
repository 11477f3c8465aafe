"""Every Helm values key the project's catalog sets exists in the chart's default values.

Free-form maps are the exception the charts document: a key whose default is an empty map
(`resources: {}`, `nodeSelector: {}`) or not a map at all accepts anything beneath it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from recipes import PROJECT_CATALOG, load_catalog
from tests.oracles.chart_values import CHARTS, unknown_keys


def project_values() -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(component, source, values) for every values file and override in the catalog."""
    catalog = load_catalog([PROJECT_CATALOG])
    for overlay in catalog.overlays.values():
        for ref in overlay.doc.spec.componentRefs:
            if ref.valuesFile:
                yield ref.name, ref.valuesFile, catalog.read_yaml(ref.valuesFile)
            if ref.overrides:
                yield ref.name, f"{overlay.rel} overrides", ref.overrides


def test_walker_reports_unknown_keys() -> None:
    defaults = {"driver": {"enabled": True}, "resources": {}}
    ours = {"driver": {"enabled": False, "typo": 1}, "resources": {"limits": {"cpu": 1}}}
    assert list(unknown_keys(ours, defaults)) == ["driver.typo"]


@pytest.mark.parametrize(
    ("component", "source", "values"), list(project_values()), ids=lambda v: str(v)[:40]
)
def test_values_keys_exist_upstream(
    upstream: Path, component: str, source: str, values: dict[str, Any]
) -> None:
    assert component in CHARTS, f"{source}: no upstream chart defaults for {component}"
    chart = upstream / "charts" / CHARTS[component] / "values.yaml"
    defaults = yaml.safe_load(chart.read_text(encoding="utf-8"))
    assert list(unknown_keys(values, defaults)) == [], source


def test_project_catalog_sets_values() -> None:
    assert {c for c, _, _ in project_values()} == set(CHARTS)
