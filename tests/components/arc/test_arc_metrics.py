"""ARC's listener and controller metrics: every key as the upstream charts spell it."""

from __future__ import annotations

import copy
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
from stacks.offline.engine.records import ProgramRun
from stacks.offline.engine.values import reveal
from tests.components.arc.arc_helpers import RELEASE, release, runner_set
from tests.stacks.offline.charts.chart_helpers import problems_of

SCALE_SETS = ("oracle-vm-gpu-a10-1", "oracle-vm-gpu-a10-2", "oke-gpu-a10-pod")


def scale_set_chart(upstream: Path) -> Path:
    """The chart at the version gpu-ci deploys, as its release shipped it."""
    return upstream / "helm-charts" / "gha-runner-scale-set-0.14.2"


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
    return commented_block(scale_set_chart(upstream) / "values.yaml", "listenerMetrics")


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


def test_listener_metrics_land_in_the_runner_set_and_validate(
    example: ProgramRun, upstream: Path
) -> None:
    """Helm renders them into the AutoscalingRunnerSet as given; kubectl-validate takes them
    against the upstream CRD, and names a misspelt key."""
    reg = release(example, "oracle-vm-gpu-a10-1")
    obj = runner_set(reg, upstream)
    assert obj["spec"]["listenerMetrics"] == listener_metrics_values()
    assert problems_of([obj], upstream, "1.33.1") == []
    values = copy.deepcopy(reveal(reg.inputs["values"]))
    values["listenerMetrics"]["gauges"]["gha_busy_runners"] = {"lables": ["name"]}
    (problem,) = problems_of([runner_set(reg, upstream, values)], upstream, "1.33.1")
    assert "spec.listenerMetrics.gauges.gha_busy_runners.lables" in problem, problem


def test_controller_metrics_keys_are_the_charts(upstream: Path) -> None:
    chart = upstream / "helm-charts" / "gha-runner-scale-set-controller-0.14.2"
    assert commented_block(chart / "values.yaml", "metrics") == METRICS


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
