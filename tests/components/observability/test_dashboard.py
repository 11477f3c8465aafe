"""The GPU CI dashboard: built from code, every query parsed against what is exported."""

from __future__ import annotations

import json
import re
from typing import Any

import promql_parser as pp
import pytest

from components.observability import queries
from components.observability.dashboard import UID, dashboard_json, dashboard_text
from components.observability.metrics import EXPORTED, SCRAPE_LABELS, series_names
from components.observability.queries import PROMQL_SAMPLE_VALUES, USAGE_QUERIES
from stacks.config.usage import Usage

_STRING = re.compile(r'"(?:\\.|[^"\\])*"')


def substitute(expr: str) -> str:
    """Grafana's variables replaced as Grafana does before the query reaches Prometheus
    (outside string literals only; a `$` inside a label matcher's string is kept)."""
    out, pos = [], 0
    for match in _STRING.finditer(expr):
        out.append(_vars(expr[pos : match.start()]))
        out.append(match.group(0).replace("$scale_set", PROMQL_SAMPLE_VALUES["$scale_set"]))
        pos = match.end()
    out.append(_vars(expr[pos:]))
    return "".join(out)


def _vars(code: str) -> str:
    for name, value in PROMQL_SAMPLE_VALUES.items():
        code = code.replace(name, value)
    assert "$" not in code, f"an unknown Grafana variable in {code!r}"
    return code


def selected(expr: str) -> tuple[set[str], set[str]]:
    """(metric names selected, labels grouped by or matched on) in a parsed expression."""
    names: set[str] = set()
    labels: set[str] = set()

    def visit(node: Any) -> None:
        if isinstance(node, pp.VectorSelector):
            assert node.name, f"a selector without a metric name in {expr!r}"
            names.add(node.name)
            labels.update(m.name for m in node.matchers.matchers)
        if isinstance(node, pp.AggregateExpr) and node.modifier is not None:
            labels.update(node.modifier.labels)

    pp.walk(pp.parse(substitute(expr)), pre_visit=visit)
    return names, labels


def _labels_of(series: str) -> set[str]:
    for metric in EXPORTED.values():
        if series in metric.series():
            extra = {"le"} if series.endswith("_bucket") else set()
            scraped = set(SCRAPE_LABELS) if metric.name.startswith("gha_") else set()
            return {*metric.labels, *extra, *scraped}
    raise AssertionError(series)


def check(expr: str) -> list[str]:
    """What is wrong with a query: metrics nobody exports, labels those metrics lack."""
    names, labels = selected(expr)
    problems = [f"{n}: not exported" for n in sorted(names - series_names())]
    known = set().union(*(_labels_of(n) for n in names & series_names())) if names else set()
    problems += [f"label {label}: not on {sorted(names)}" for label in sorted(labels - known)]
    return problems


@pytest.fixture(scope="module")
def board() -> dict[str, Any]:
    return dashboard_json()


def panels(board: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in board["panels"] if p["type"] != "row"]


def test_every_panel_query_parses_and_uses_exported_metrics(board: dict[str, Any]) -> None:
    exprs = [t["expr"] for p in panels(board) for t in p["targets"]]
    assert len(exprs) >= 20
    assert {e: check(e) for e in exprs if check(e)} == {}


def test_the_check_catches_an_unknown_metric_and_label() -> None:
    assert check("sum(gha_busy_runner)") == ["gha_busy_runner: not exported"]
    assert check("sum by (pool) (gha_busy_runners)") == ["label pool: not on ['gha_busy_runners']"]
    assert check("avg by (Hostname) (DCGM_FI_DEV_GPU_UTIL)") == []
    assert check('rate(gha_job_startup_duration_seconds_bucket{le="+Inf"}[$__rate_interval])') == []
    with pytest.raises(ValueError):
        pp.parse("rate(gha_started_jobs_total[$__rate_interval])")  # why substitute exists


def test_usage_queries_measure_usage_keys() -> None:
    assert set(USAGE_QUERIES) == set(Usage.model_fields)
    for query in USAGE_QUERIES.values():
        assert check(query.expr) == []


def test_the_dashboard_answers_the_questions(board: dict[str, Any]) -> None:
    by_title = {p["title"]: p for p in panels(board)}
    queue = [
        t["expr"] for t in by_title["Queue time (p50, p95 of the last hour's jobs)"]["targets"]
    ]
    assert [e.split(",")[0] for e in queue] == ["histogram_quantile(0.5", "histogram_quantile(0.95"]
    assert all("gha_job_startup_duration_seconds_bucket" in e for e in queue)
    execution = by_title["Execution time (p50, p95 of the last hour's jobs)"]["targets"]
    assert all("gha_job_execution_duration_seconds_bucket" in t["expr"] for t in execution)
    runners = {
        t["legendFormat"].split()[-1]
        for t in by_title["Runners busy / idle / desired / max"]["targets"]
    }
    assert {"busy", "idle", "desired"} <= runners
    assert "DCGM_FI_DEV_GPU_UTIL" in by_title["GPU utilization per GPU"]["targets"][0]["expr"]
    assert "DCGM_FI_DEV_FB_USED" in by_title["GPU memory used per GPU"]["targets"][0]["expr"]
    hours = [
        t["legendFormat"] for t in by_title["GPU-hours used vs paid (cluster GPUs)"]["targets"]
    ]
    assert [h.split()[0] for h in hours] == ["used", "paid"]
    in_range = by_title["Queue time in range (p50, p95)"]
    assert in_range["type"] == "stat"
    assert all(t["instant"] and "[$__range]" in t["expr"] for t in in_range["targets"])
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


def test_queries_module_names_only_parsed_queries() -> None:
    """Every Query the module defines is on the dashboard or a usage query."""
    on_board = {t["expr"] for p in panels(dashboard_json()) for t in p["targets"]}
    defined: list[queries.Query] = []
    for value in vars(queries).values():
        if isinstance(value, queries.Query):
            defined.append(value)
        elif isinstance(value, tuple) and all(isinstance(q, queries.Query) for q in value):
            defined.extend(value)
    assert defined
    missing = [
        q.expr for q in defined if q.expr not in on_board and q not in USAGE_QUERIES.values()
    ]
    assert missing == []
