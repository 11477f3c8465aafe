"""ARC's listener and controller metrics: every key as the upstream charts spell it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, cast

import pytest
import yaml

from components.arc.controller import METRICS
from components.observability.metrics import (
    CONTROLLER_METRICS,
    EXECUTION_BUCKETS,
    JOB_DURATION_BUCKETS,
    LISTENER_METRICS,
    PER_PR_LABELS,
    listener_metrics_values,
)
from stacks.offline.records import ProgramRun
from tests.components.arc.arc_helpers import RELEASE, documented_values, release
from tests.oracles.arc_runner_set import render_runner_set
from tests.oracles.crd_schema import validate_object

SCALE_SETS = ("oracle-vm-gpu-a10-1", "oracle-vm-gpu-a10-2", "oke-gpu-a10-pod")


def commented_block(path: Path, key: str) -> dict[str, Any]:
    """The commented-out `key:` block of a values.yaml, uncommented and parsed."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if re.fullmatch(rf"# {key}:\s*", line))
    block = [lines[start][2:]]
    for line in lines[start + 1 :]:
        if not line.startswith("#   ") and not line.startswith("#\t"):
            break
        block.append(line[2:])
    loaded: dict[str, dict[str, Any]] = yaml.safe_load("\n".join(block))
    return loaded[key]


@pytest.fixture(scope="module")
def documented(upstream: Path) -> dict[str, Any]:
    return commented_block(upstream / "charts/gha-runner-scale-set/values.yaml", "listenerMetrics")


def test_listener_metrics_are_the_charts_documented_set(documented: dict[str, Any]) -> None:
    """The chart's set, labels and buckets, but for the execution histogram's buckets (the
    chart's then 1.5, 2 and 3 hours: GPU jobs run about an hour) and the per-PR labels ARC's
    own defaults leave out (metrics.py: a series per pull request hides each one's first job)."""
    ours = listener_metrics_values()
    execution = ours["histograms"]["gha_job_execution_duration_seconds"]
    theirs = documented["histograms"]["gha_job_execution_duration_seconds"]["buckets"]
    assert execution["buckets"] == [*theirs, 5400.0, 7200.0, 10800.0]
    execution["buckets"] = theirs
    for kind in documented.values():
        for entry in kind.values():
            entry["labels"] = [label for label in entry["labels"] if label not in PER_PR_LABELS]
    assert ours == documented
    assert not any(
        set(PER_PR_LABELS) & set(cast(list[str], entry["labels"]))
        for kind in ours.values()
        for entry in kind.values()
    )


def test_the_documented_block_is_read_whole(documented: dict[str, Any]) -> None:
    """The parser above would make the first test pass vacuously if it read nothing."""
    assert sorted(documented) == ["counters", "gauges", "histograms"]
    assert len(documented["gauges"]) == 8
    assert documented["histograms"]["gha_job_startup_duration_seconds"]["buckets"][-1] == 3600.0
    assert (
        list(JOB_DURATION_BUCKETS)
        == documented["histograms"]["gha_job_execution_duration_seconds"]["buckets"]
    )
    assert EXECUTION_BUCKETS[-1] == 3 * 3600.0


def test_a_changed_label_would_be_seen(documented: dict[str, Any]) -> None:
    ours = listener_metrics_values()
    ours["gauges"]["gha_busy_runners"]["labels"] = ["name"]
    assert ours != documented


def test_listener_metrics_validate_against_the_crd(runner_set_crd: dict[str, Any]) -> None:
    metrics = listener_metrics_values()
    values: dict[str, Any] = {
        "githubConfigUrl": "https://github.com/kubeflow",
        "githubConfigSecret": "s",
        "template": {"spec": {"containers": [{"name": "runner", "image": "x:1"}]}},
        "listenerMetrics": metrics,
    }
    obj = render_runner_set(values, release="r", namespace="arc-runners")
    assert obj["spec"]["listenerMetrics"] == listener_metrics_values()
    assert validate_object(runner_set_crd, obj) == []
    metrics["gauges"]["gha_busy_runners"] = {"lables": ["name"]}
    problems = validate_object(
        runner_set_crd, render_runner_set(values, release="r", namespace="arc-runners")
    )
    assert any("listenerMetrics.gauges.gha_busy_runners" in p for p in problems), problems


def test_controller_metrics_keys_are_the_charts(upstream: Path) -> None:
    documented = commented_block(
        upstream / "charts/gha-runner-scale-set-controller/values.yaml", "metrics"
    )
    assert documented == METRICS
    assert "metrics" in documented_values(
        upstream / "charts/gha-runner-scale-set-controller/values.yaml"
    )


def test_every_example_scale_set_enables_every_listener_metric(example_plan: ProgramRun) -> None:
    run = example_plan
    for name in SCALE_SETS:
        assert release(run, name).inputs["values"]["listenerMetrics"] == listener_metrics_values()
    controller = release(run, "arc").inputs["values"]
    assert controller["metrics"] == METRICS
    assert len(run.by_type(RELEASE)) >= len(SCALE_SETS) + 1


def test_names_are_unique_and_typed() -> None:
    names = [m.name for m in (*LISTENER_METRICS, *CONTROLLER_METRICS)]
    assert len(names) == len(set(names)) == 16
    assert {m.type for m in LISTENER_METRICS} == {"counter", "gauge", "histogram"}
    assert all(m.name.endswith("_total") for m in LISTENER_METRICS if m.type == "counter")
