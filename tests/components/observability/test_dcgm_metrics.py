"""The DCGM exporter metrics the dashboards read are ones the exporter is configured to emit.

AICR's catalog is the upstream record of the exporter's configuration: the counters file it
deploys (`dcgm-exporter.yaml`, `DCGM FIELD, Prometheus metric type, help`) lists each field
with its type, the same as dcgm-exporter's own default counters for these fields.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from components.observability.metrics import DCGM_METRICS

_ROW = re.compile(r"^\s*(DCGM_FI_[A-Z0-9_]+)\s*,\s*(gauge|counter)\s*,", re.MULTILINE)


@pytest.fixture(scope="module")
def counters(upstream: Path) -> dict[str, str]:
    path = upstream / "aicr-v0.11.1/recipes/components/gpu-operator/manifests/dcgm-exporter.yaml"
    return dict(_ROW.findall(path.read_text()))


def test_every_dcgm_metric_read_is_a_counter_the_exporter_emits(counters: dict[str, str]) -> None:
    assert len(counters) > 20  # the file was read, not an empty match
    assert {m.name: m.type for m in DCGM_METRICS} == {
        m.name: counters[m.name] for m in DCGM_METRICS
    }


def test_a_commented_row_does_not_count() -> None:
    text = "# DCGM_FI_PROF_SM_ACTIVE, gauge, x\n    DCGM_FI_DEV_GPU_UTIL, gauge, y\n"
    assert dict(_ROW.findall(text)) == {"DCGM_FI_DEV_GPU_UTIL": "gauge"}
