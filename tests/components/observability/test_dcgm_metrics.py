"""The DCGM metrics the dashboard and alerts read: as the exporter the pinned GPU operator
deploys emits them (dcgm_metrics.py records its version and the source of each label)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from components.observability.dcgm_metrics import (
    COUNTERS_FILE_LINES,
    DCGM_EXPORTER_VERSION,
    DCGM_METRICS,
    HOST_LABEL,
)

_ROW = re.compile(r"^\s*(DCGM_FI_[A-Z0-9_]+)\s*,\s*(gauge|counter|label)\s*,", re.MULTILINE)


def test_the_catalog_is_the_exporter_the_operator_deploys(upstream: Path) -> None:
    values = yaml.safe_load((upstream / "charts/gpu-operator/values.yaml").read_text())
    version = values["dcgmExporter"]["version"]
    assert version == f"{DCGM_EXPORTER_VERSION}-distroless"
    assert values["dcgmExporter"]["image"] == "dcgm-exporter"
    # at that version the host label is lower case (dcgm-exporter PR #655)
    assert HOST_LABEL == "hostname"
    assert all(HOST_LABEL in m.labels and "Hostname" not in m.labels for m in DCGM_METRICS)


def test_every_metric_read_cites_the_line_that_enables_it() -> None:
    assert {m.name for m in DCGM_METRICS} == set(COUNTERS_FILE_LINES)
    assert all(m.type == "gauge" for m in DCGM_METRICS)
    assert len(set(COUNTERS_FILE_LINES.values())) == len(COUNTERS_FILE_LINES)


def _counters(text: str) -> dict[str, str]:
    return dict(_ROW.findall(text))


@pytest.fixture(scope="module")
def aicr_counters(upstream: Path) -> dict[str, str]:
    """AICR's own exporter counters: v0.11.1's manifest and main's gpu-operator values."""
    v0 = upstream / "aicr-v0.11.1/recipes/components/gpu-operator/manifests/dcgm-exporter.yaml"
    main = upstream / "aicr-main-2026-07-09/recipes/components/gpu-operator/values.yaml"
    data = yaml.safe_load(main.read_text())["dcgmExporter"]["config"]["data"]
    first, second = _counters(v0.read_text()), _counters(data)
    assert len(first) > 20 and len(second) > 20  # the files were read, not empty matches
    return {**first, **second}


def test_under_aicrs_counters_only_the_reserve_is_missing(aicr_counters: dict[str, str]) -> None:
    """Every field read is one AICR's exporter emits too, with the same type, but
    FB_RESERVED, which the memory query reads as 0 where it is missing."""
    read = {m.name: m.type for m in DCGM_METRICS}
    assert {n for n in read if n not in aicr_counters} == {"DCGM_FI_DEV_FB_RESERVED"}
    assert all(aicr_counters[n] == t for n, t in read.items() if n in aicr_counters)


def test_a_commented_row_does_not_count() -> None:
    text = "# DCGM_FI_PROF_SM_ACTIVE, gauge, x\n    DCGM_FI_DEV_GPU_UTIL, gauge, y\n"
    assert _counters(text) == {"DCGM_FI_DEV_GPU_UTIL": "gauge"}
