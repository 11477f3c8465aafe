"""The GPU CI dashboard: built from code, every query parsed against what is exported.

What each query returns is test_queries_promtool.py's; this is the dashboard's shape."""

from __future__ import annotations

import json
from typing import Any

import promql_parser as pp
import pytest

from components.observability import queries
from components.observability.dashboard import UID, dashboard_json, dashboard_text
from components.observability.queries import USAGE_QUERIES
from stacks.config.usage import Usage
from tests.components.observability.promql_check import check


@pytest.fixture
def board() -> dict[str, Any]:
    """Built in each test: the queries are built when the dashboard is (and mutation testing
    credits a query to every test that reads it)."""
    return dashboard_json()


def panels(board: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in board["panels"] if p["type"] != "row"]


def by_title(board: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["title"]: p for p in panels(board)}


def test_every_panel_query_parses_and_uses_exported_metrics(board: dict[str, Any]) -> None:
    exprs = [t["expr"] for p in panels(board) for t in p["targets"]]
    assert len(exprs) >= 20
    assert {e: check(e) for e in exprs if check(e)} == {}


def test_the_check_catches_an_unknown_metric_and_label() -> None:
    assert check("sum(gha_busy_runner)") == ["gha_busy_runner: not exported"]
    assert check("sum by (pool) (gha_busy_runners)") == ["label pool: not on ['gha_busy_runners']"]
    # the label of dcgm-exporter before PR #655 is not the pinned exporter's
    assert check("avg by (Hostname) (DCGM_FI_DEV_GPU_UTIL)") == [
        "label Hostname: not on ['DCGM_FI_DEV_GPU_UTIL']"
    ]
    assert check("avg by (hostname, UUID) (DCGM_FI_DEV_GPU_UTIL)") == []
    # ARC's per-PR labels are not on the listener's series any more
    assert check("sum by (job_workflow_ref) (gha_completed_jobs_total)") == [
        "label job_workflow_ref: not on ['gha_completed_jobs_total']"
    ]
    assert check('a and on (x) label_replace(kube_node_info, "x", "$1", "node", "(.+)")') == [
        "a: not exported"
    ]
    with pytest.raises(ValueError):
        pp.parse("rate(gha_started_jobs_total[$__range])")  # why substitute exists


def test_usage_queries_measure_usage_keys() -> None:
    assert set(queries.usage_queries()) == set(Usage.model_fields)
    assert queries.usage_queries() == USAGE_QUERIES
    for query in queries.usage_queries().values():
        assert check(query.expr) == []


def test_every_panel_has_a_unique_id(board: dict[str, Any]) -> None:
    ids = [p["id"] for p in board["panels"]]
    assert ids == list(range(1, len(board["panels"]) + 1))


def test_the_dashboard_answers_the_questions(board: dict[str, Any]) -> None:
    titles = by_title(board)
    queue = titles["Queue time (p50, p95 of the last hour's jobs, per runner label)"]
    assert "partial" not in queue["description"].lower()
    assert "docs/observability.md#queue-time" in queue["description"]
    exprs = [t["expr"] for t in queue["targets"]]
    assert [e.split(",")[0] for e in exprs] == ["histogram_quantile(0.5", "histogram_quantile(0.95"]
    assert all('gpu_ci_queue_wait_seconds_bucket{runner_label=~"$scale_set"}' in e for e in exprs)
    assert [t["legendFormat"] for t in queue["targets"]] == [
        "{{runner_label}} p50",
        "{{runner_label}} p95",
    ]
    now = titles["Jobs queued in GitHub now; the oldest one's wait"]["targets"]
    assert [t["legendFormat"] for t in now] == [
        "{{runner_label}} queued",
        "{{runner_label}} oldest",
    ]
    start = titles["Runner start after assignment (p50, p95 of the last hour's jobs)"]["targets"]
    assert all("gha_job_startup_duration_seconds_bucket" in t["expr"] for t in start)
    execution = titles["Execution time (p50, p95 of the last hour's jobs)"]["targets"]
    assert all("gha_job_execution_duration_seconds_bucket" in t["expr"] for t in execution)
    runners = [t["legendFormat"] for t in titles["Runners busy / idle / desired / max"]["targets"]]
    assert runners == [f"{{{{scale_set}}}} {r}" for r in ("busy", "idle", "desired", "max")]
    waiting = titles["Jobs assigned / running; failed runners"]["targets"]
    assert [t["legendFormat"] for t in waiting] == [
        "{{scale_set}} assigned",
        "{{scale_set}} running",
        "{{scale_set}} failed",
    ]
    assert all('scale_set=~"$scale_set"' in t["expr"] for t in waiting)
    for title in ("GPU utilization per GPU", "GPU memory used per GPU"):
        (target,) = titles[title]["targets"]
        assert target["legendFormat"] == "{{hostname}} GPU {{gpu}} ({{modelName}})"
        assert "by (UUID, hostname, gpu, modelName)" in target["expr"]
    assert "DCGM_FI_DEV_FB_RESERVED" in titles["GPU memory used per GPU"]["targets"][0]["expr"]
    hours = [t["legendFormat"] for t in titles["GPU-hours used vs paid (cluster GPUs)"]["targets"]]
    assert hours == ["used (a process on the GPU)", "paid (GPU present)"]
    in_range = titles["Queue time in range (p50, p95)"]
    assert in_range["type"] == "stat"
    assert all("gpu_ci_queue_wait_seconds_bucket" in t["expr"] for t in in_range["targets"])
    assert all(t["instant"] and "[$__range]" in t["expr"] for t in in_range["targets"])
    assert [t["legendFormat"] for t in in_range["targets"]] == ["p50", "p95"]
    completed = titles["Jobs completed in range, by result"]["targets"]
    assert [t["legendFormat"] for t in completed] == ["{{scale_set}} {{job_result}}"]
    assert [t["legendFormat"] for t in titles["Job-hours in range, per scale set"]["targets"]] == [
        "{{scale_set}}"
    ]
    rows = [p["title"] for p in board["panels"] if p["type"] == "row"]
    assert [r.split(":")[0] for r in rows] == ["Jobs", "Runners", "GPUs", "Cost model"]


def test_units_and_datasource(board: dict[str, Any]) -> None:
    for panel in panels(board):
        assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}, panel["title"]
        assert panel["fieldConfig"]["defaults"]["unit"], panel["title"]
    variables = {v["name"]: v for v in board["templating"]["list"]}
    assert variables["datasource"]["query"] == "prometheus"
    assert check(variables["scale_set"]["query"].removeprefix("label_values(").split(",")[0]) == []


def test_panels_do_not_overlap(board: dict[str, Any]) -> None:
    cells: set[tuple[int, int]] = set()
    for panel in board["panels"]:
        pos = panel["gridPos"]
        assert pos["x"] + pos["w"] <= 24, panel["title"]
        mine = {
            (x, y)
            for x in range(pos["x"], pos["x"] + pos["w"])
            for y in range(pos["y"], pos["y"] + pos["h"])
        }
        assert not cells & mine, panel["title"]
        cells |= mine


def test_the_json_is_stable_and_identified(board: dict[str, Any]) -> None:
    assert dashboard_text() == dashboard_text()
    assert json.loads(dashboard_text()) == board
    assert board["uid"] == UID and board["title"] == "GPU CI"
    assert board["schemaVersion"] >= 39  # Grafana 11
