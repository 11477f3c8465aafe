"""The "GPU CI" Grafana dashboard, built with Grafana's own grafana-foundation-sdk.

Four rows, each answering one question (docs/observability.md#the-gpu-ci-dashboard):
1. Jobs: how long do GPU jobs wait for a runner, and run? (queue and execution p50/p95, jobs)
2. Runners: is each scale set sized right? (busy/idle/desired/max, assigned/running, failed)
3. GPUs: how busy are the GPUs we pay for? (utilization and memory per GPU, GPU-hours)
4. Cost model: the measured `gpu-ci:usage` numbers (jobs/day, minutes/job, launch minutes).

Every query is in queries.py; the datasource is a variable, so the dashboard works with
whichever Prometheus datasource a Grafana has.
"""

from __future__ import annotations

import json
from typing import Any

from grafana_foundation_sdk.builders import dashboard as gd
from grafana_foundation_sdk.builders import prometheus, stat, timeseries
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models.dashboard import (
    DashboardCursorSync,
    DataSourceRef,
    VariableHide,
    VariableRefresh,
)

from components.observability import queries
from components.observability.queries import Query

UID = "gpu-ci"
TITLE = "GPU CI"
DATASOURCE = DataSourceRef(type_val="prometheus", uid="${datasource}")
_HEIGHT = 8


def _targets(items: tuple[Query, ...]) -> list[prometheus.Dataquery]:
    return [
        prometheus.Dataquery().expr(q.expr).legend_format(q.legend or "__auto").ref_id(chr(65 + i))
        for i, q in enumerate(items)
    ]


def _timeseries(
    title: str, description: str, unit: str, *items: Query, width: int = 12
) -> timeseries.Panel:
    panel = (
        timeseries.Panel()
        .title(title)
        .description(description)
        .datasource(DATASOURCE)
        .unit(unit)
        .min(0)
        .height(_HEIGHT)
        .span(width)
    )
    for target in _targets(items):
        panel = panel.with_target(target)
    return panel


def _stat(title: str, description: str, unit: str, *items: Query, width: int = 8) -> stat.Panel:
    panel = (
        stat.Panel()
        .title(title)
        .description(description)
        .datasource(DATASOURCE)
        .unit(unit)
        .decimals(1)
        .height(_HEIGHT // 2)
        .span(width)
    )
    for target in _targets(items):
        panel = panel.with_target(target.instant())
    return panel


def _variables(builder: gd.Dashboard) -> gd.Dashboard:
    return builder.with_variable(
        gd.DatasourceVariable("datasource").label("Prometheus").type("prometheus")
    ).with_variable(
        gd.QueryVariable("scale_set")
        .label("Scale set")
        .datasource(DATASOURCE)
        .query("label_values(gha_registered_runners, scale_set)")
        .refresh(VariableRefresh.ON_TIME_RANGE_CHANGED)
        .include_all(True)
        .all_value(".*")
        .multi(True)
        .hide(VariableHide.DONT_HIDE)
    )


def build() -> gd.Dashboard:
    """The dashboard, as the SDK's builder."""
    board = (
        gd.Dashboard(TITLE)
        .uid(UID)
        .tags(["gpu-ci", "gpu", "github-actions"])
        .description("How long GPU jobs wait and run, and how busy the GPUs are (gpu-ci)")
        .refresh("1m")
        .time("now-24h", "now")
        .timezone("browser")
        .tooltip(DashboardCursorSync.CROSSHAIR)
        .readonly()
    )
    board = _variables(board)
    board = (
        board.with_row(gd.Row("Jobs: how long do GPU jobs wait for a runner, and run?"))
        .with_panel(
            _timeseries(
                "Queue time (p50, p95 of the last hour's jobs)",
                "From the scale set assigning a job to a runner starting it: a VM's launch "
                "and boot (vm-launcher) or a pod's scheduling (gpu-pod). "
                "gha_job_startup_duration_seconds.",
                "s",
                *queries.QUEUE_TIME,
            )
        )
        .with_panel(
            _timeseries(
                "Execution time (p50, p95 of the last hour's jobs)",
                "How long jobs run on the runner. gha_job_execution_duration_seconds.",
                "s",
                *queries.EXECUTION_TIME,
            )
        )
        .with_panel(
            _stat(
                "Queue time in range (p50, p95)",
                "Every job in the dashboard's time range, the selected scale sets together.",
                "s",
                *queries.QUEUE_TIME_IN_RANGE,
            )
        )
        .with_panel(
            _stat(
                "Execution time in range (p50, p95)",
                "Every job in the dashboard's time range, the selected scale sets together.",
                "s",
                *queries.EXECUTION_TIME_IN_RANGE,
            )
        )
        .with_panel(
            _stat(
                "Jobs completed in range, by result",
                "gha_completed_jobs_total over the dashboard's time range.",
                "short",
                queries.JOBS_COMPLETED,
            )
        )
    )
    board = (
        board.with_row(gd.Row("Runners: is each scale set sized right?"))
        .with_panel(
            _timeseries(
                "Runners busy / idle / desired / max",
                "Desired above busy for long: runners that cannot start (capacity, images). "
                "Busy at max: jobs queue.",
                "short",
                *queries.RUNNERS,
            )
        )
        .with_panel(
            _timeseries(
                "Jobs assigned / running",
                "Assigned but not running: jobs waiting for a runner.",
                "short",
                *queries.JOBS_WAITING,
                queries.FAILED_RUNNERS,
            )
        )
    )
    board = (
        board.with_row(gd.Row("GPUs: how busy are the GPUs we pay for?"))
        .with_panel(
            _timeseries(
                "GPU utilization per GPU",
                "DCGM_FI_DEV_GPU_UTIL: the share of time a kernel ran, per GPU.",
                "percent",
                queries.GPU_UTILIZATION,
            ).max(100)
        )
        .with_panel(
            _timeseries(
                "GPU memory used per GPU",
                "DCGM_FI_DEV_FB_USED of FB_USED + FB_FREE.",
                "percent",
                queries.GPU_MEMORY,
            ).max(100)
        )
        .with_panel(
            _stat(
                "GPU-hours used vs paid (cluster GPUs)",
                "Every GPU the DCGM exporter sees is billed; used: a non-zero utilization, "
                "at one-minute resolution.",
                "h",
                *queries.GPU_HOURS,
                width=12,
            )
        )
        .with_panel(
            _stat(
                "Job-hours in range, per scale set",
                "What vm-launcher sets' VMs (no exporter) are billed for, besides launch.",
                "h",
                queries.JOB_HOURS,
                width=12,
            )
        )
    )
    board = (
        board.with_row(gd.Row("Cost model: measured gpu-ci:usage (last 7 days)"))
        .with_panel(
            _stat(
                "usage.jobsPerDay",
                "GPU jobs completed a day, averaged over a week.",
                "short",
                queries.JOBS_PER_DAY,
            )
        )
        .with_panel(
            _stat(
                "usage.minutesPerJob",
                "Mean execution time of a GPU job.",
                "m",
                queries.MINUTES_PER_JOB,
            )
        )
        .with_panel(
            _stat(
                "usage.overheadMinutesPerJob (launch)",
                "Mean wait for a runner; add teardown (not measured).",
                "m",
                queries.OVERHEAD_MINUTES_PER_JOB,
            )
        )
    )
    return board


def dashboard_json() -> dict[str, Any]:
    """The dashboard as Grafana's JSON model (what a dashboard ConfigMap holds)."""
    loaded: dict[str, Any] = json.loads(json.dumps(build().build(), cls=JSONEncoder))
    return loaded


def dashboard_text() -> str:
    """The JSON, with sorted keys: the same bytes for the same dashboard (stable diffs)."""
    return json.dumps(dashboard_json(), indent=2, sort_keys=True) + "\n"
