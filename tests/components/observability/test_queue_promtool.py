"""The queue-time exporter's real /metrics, scraped over HTTP every minute of a timeline,
through the deployed Prometheus's promtool: the format (`promtool check metrics`), the
dashboard's queue queries and GpuJobsWaiting at its thresholds.

Timeline (minutes after T0, one poll and one scrape a minute, 0-150): job 1001 waits 5
minutes; job 1002 is queued from minute 1 for two hours; job 1003 (another repository) waits
100 s at minute 30. Every sample is the exporter's own, with the labels its PodMonitor adds.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from components.observability import queries
from components.observability.alerts import rule_groups
from components.observability.alerts_config import AlertsConfig
from components.observability.metrics import QUEUE_BUCKETS, labels_of, series_names
from components.observability.queue_deploy import JOB
from tests.components.observability.promtool import run, substitute
from tests.components.observability.queue_harness import (
    HOUR,
    LABEL,
    MINUTE,
    T0,
    Life,
    Spec,
    World,
    clock_of,
    config,
    polls,
    samples,
    served,
)
from tests.components.observability.scenario import bucket_quantile
from tests.upstream_tools import run_tool

A, B = "octo-org/trainer", "octo-org/katib"
END = 150
SPECS = [
    Spec(1001, 101, A, (LABEL,), T0, T0 + 300, T0 + 1800),
    Spec(1002, 102, A, (LABEL,), T0 + 60, T0 + 60 + 2 * HOUR, T0 + 140 * MINUTE),
    Spec(1003, 103, B, ("GPU-A10",), T0 + 1700, T0 + 1800, T0 + 2400),
]
WAITS = [300.0, 2 * HOUR, 100.0]
TARGET = (
    f'job="{JOB}",namespace="arc-runners",pod="{JOB}-5c7d9f8b6-x2x9q",container="exporter",'
    'endpoint="metrics",instance="10.0.1.20:9102"'
)


@pytest.fixture(scope="module")
def scrapes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    """The /metrics text after each minute's poll, minutes 0 to END."""
    tmp = tmp_path_factory.mktemp("queue")
    with served(tmp) as fake:
        life = Life.start(config(fake, tmp, [A, B]), clock_of(fake))
        texts = polls(life, World(fake, SPECS), T0, T0 + END * MINUTE, scrape=True)
        life.stop()
    yield texts


def _input_series(texts: list[str]) -> list[dict[str, str]]:
    """promtool's input series: each scraped series, its value each minute ('_' before it
    existed), with the target labels."""
    series: dict[tuple[str, str], list[str]] = {}
    for minute, text in enumerate(texts):
        for (name, labels), value in samples(text).items():
            values = series.setdefault((name, labels), ["_"] * len(texts))
            values[minute] = f"{value:g}"
    out = []
    for (name, labels), values in sorted(series.items()):
        inner = labels[1:-1] if labels else ""
        out.append(
            {
                "series": f"{name}{{{TARGET}{',' if inner else ''}{inner}}}",
                "values": " ".join(values),
            }
        )
    return out


def test_the_exposition_passes_promtool_and_the_catalog(tmp_path: Path, scrapes: list[str]) -> None:
    done = run_tool("promtool", "check", "metrics", stdin=scrapes[-1])
    assert done.returncode == 0, done.stdout + done.stderr
    for name, labels in samples(scrapes[-1]):
        assert name in series_names(), name
        keys = {part.split("=")[0] for part in labels.strip("{}").split(",") if part}
        assert keys <= labels_of(name), (name, keys)


def _sample(expr: str, at: int, labels: dict[str, str], value: float) -> dict[str, Any]:
    inner = ",".join(f'{k}="{v}"' for k, v in labels.items())
    return {
        "expr": substitute(expr),
        "eval_time": f"{at}m",
        "exp_samples": [{"labels": f"{{{inner}}}", "value": value}],
    }


def test_the_dashboard_reads_the_whole_queue_time(tmp_path: Path, scrapes: list[str]) -> None:
    last_hour = [w for w, m in zip(WAITS, (5, 121, 30), strict=True) if m > END - 60]
    per_label = {"runner_label": LABEL}
    tests = [
        *(
            _sample(q.expr, END, {}, bucket_quantile(p, WAITS, QUEUE_BUCKETS))
            for q, p in zip(queries.queue_in_range(), (0.5, 0.95), strict=True)
        ),
        *(
            _sample(q.expr, END, per_label, bucket_quantile(p, last_hour, QUEUE_BUCKETS))
            for q, p in zip(queries.queue_over_the_last_hour(), (0.5, 0.95), strict=True)
        ),
        # Minute 100: job 1002 has waited 99 minutes, alone in the queue.
        _sample(queries.queued_now()[0].expr, 100, per_label, 1.0),
        _sample(queries.queued_now()[1].expr, 100, per_label, 99 * MINUTE),
        _sample(queries.queued_now()[0].expr, END, per_label, 0.0),
    ]
    run(
        tmp_path,
        [{"interval": "1m", "input_series": _input_series(scrapes), "promql_expr_test": tests}],
    )


@pytest.mark.parametrize("group", ["gpu-ci.arc", "gpu-ci.queue"])
@pytest.mark.parametrize(("threshold", "first"), [("15m", 17), ("10m", 12)])
def test_jobs_waiting_fires_once_the_oldest_job_waited_the_threshold(
    tmp_path: Path, scrapes: list[str], threshold: str, first: int, group: str
) -> None:
    """Job 1002 was created at minute 1: at minute m it has waited m - 1 minutes. The same
    with ARC (`gpu-ci.arc`) and for VM runners without it (`gpu-ci.queue`)."""
    cfg = AlertsConfig(jobsWaitingLongerThan=threshold)
    waited = first - 1

    def at(minute: int, fired: bool) -> dict[str, Any]:
        alerts = []
        if fired:
            alerts = [
                {
                    "exp_labels": {"severity": "warning", "runner_label": LABEL},
                    "exp_annotations": {
                        "summary": f"A GPU job for runner label {LABEL} has been queued for "
                        f"{waited}m 0s",
                        "description": f"GitHub has held a job asking for this label for over "
                        f"{threshold} with no runner (created_at, from GitHub's job list): no "
                        "capacity (an AD out of GPUs, the set at maxRunners), runners that do "
                        "not start, or no scale set or runner serving the label. See "
                        "docs/observability.md#alerts.",
                    },
                }
            ]
        return {"eval_time": f"{minute}m", "alertname": "GpuJobsWaiting", "exp_alerts": alerts}

    arc = group == "gpu-ci.arc"
    groups = [g for g in rule_groups(cfg, arc=arc, queue_time=True) if g["name"] == group]
    rules = [r for r in groups[0]["rules"] if r["alert"] == "GpuJobsWaiting"]
    run(
        tmp_path,
        [
            {
                "interval": "1m",
                "input_series": _input_series(scrapes),
                "alert_rule_test": [at(first - 1, False), at(first, True), at(122, False)],
            }
        ],
        [{"name": group, "rules": rules}],
    )
