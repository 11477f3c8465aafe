"""The plan's own `set` path check reads `recipes/chart-values/` (it runs with no chart and no
Helm); the charts Helm renders are the vendored complete ones. Both must know the same
values paths, or a path would pass the plan and render nothing (or the reverse)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from components.platform.chart_values.lookup import CHART_VALUES


def _paths(values: Any, path: str = "") -> set[str]:
    if isinstance(values, dict) and values:
        return {p for k, v in values.items() for p in _paths(v, f"{path}.{k}")}
    return {path}


@pytest.mark.parametrize("folder", sorted(p.name for p in CHART_VALUES.iterdir() if p.is_dir()))
def test_the_copy_knows_the_paths_of_the_chart_helm_renders(folder: str, charts: Path) -> None:
    copy = yaml.safe_load((CHART_VALUES / folder / "values.yaml").read_text(encoding="utf-8"))
    real = yaml.safe_load((charts / folder / "values.yaml").read_text(encoding="utf-8"))
    assert _paths(copy) == _paths(real)
