"""The "GPU CI" Grafana dashboard, built with Grafana's own grafana-foundation-sdk.

Four rows, each answering one question (docs/observability.md#the-gpu-ci-dashboard):
1. Jobs: how long do GPU jobs wait for a runner, and run? (the whole queue time from GitHub's
   job list, p50/p95, and the jobs queued now; the runner's start after assignment; execution
   p50/p95; jobs completed)
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


Panel = timeseries.Panel | stat.Panel
QUEUE_DOCS = "docs/observability.md#queue-time"


def _jobs() -> list[Panel]:
    return [
        _timeseries(
            "Queue time (p50, p95 of the last hour's jobs, per runner label)",
            "The whole wait: GitHub's created_at to started_at of each job that got a runner, "
            f"from GitHub's job list ({QUEUE_DOCS}). gpu_ci_queue_wait_seconds.",
            "s",
            *queries.queue_over_the_last_hour(),
        ),
        _timeseries(
            "Jobs queued in GitHub now; the oldest one's wait",
            "Jobs with no runner yet, per runner label, and how long the oldest has waited "
            "(seconds, right axis of the legend: `oldest`). gpu_ci_queue_jobs_queued, "
            "gpu_ci_queue_oldest_job_age_seconds.",
            "short",
            *queries.queued_now(),
        ),
        _timeseries(
            "Runner start after assignment (p50, p95 of the last hour's jobs)",
            "The part of the queue time after the scale set took the job: a VM's launch and "
            "boot (vm-launcher), a pod's scheduling (gpu-pod). "
            "gha_job_startup_duration_seconds.",
            "s",
            *queries.over_the_last_hour(queries.STARTUP),
        ),
        _timeseries(
            "Execution time (p50, p95 of the last hour's jobs)",
            "How long jobs run on the runner. gha_job_execution_duration_seconds.",
            "s",
            *queries.over_the_last_hour(queries.EXECUTION),
        ),
        _stat(
            "Queue time in range (p50, p95)",
            "The whole wait of every job that started in the dashboard's time range, the "
            "selected runner labels together.",
            "s",
            *queries.queue_in_range(),
        ),
        _stat(
            "Execution time in range (p50, p95)",
            "Every job in the dashboard's time range, the selected scale sets together.",
            "s",
            *queries.in_range(queries.EXECUTION),
        ),
        _stat(
            "Jobs completed in range, by result",
            "gha_completed_jobs_total over the dashboard's time range, counting each new "
            "series' first job.",
            "short",
            queries.jobs_completed(),
        ),
    ]


def _runners() -> list[Panel]:
    return [
        _timeseries(
            "Runners busy / idle / desired / max",
            "Desired above busy for long: runners that cannot start (capacity, images). "
            "Busy at max: jobs queue.",
            "short",
            *queries.runners(),
        ),
        _timeseries(
            "Jobs assigned / running; failed runners",
            "Assigned but not running: jobs waiting for a runner. Failed: EphemeralRunners "
            "the controller holds in phase Failed.",
            "short",
            *queries.jobs_waiting(),
            queries.failed_runners(),
        ),
    ]


def _gpus() -> list[Panel]:
    return [
        _timeseries(
            "GPU utilization per GPU",
            "DCGM_FI_DEV_GPU_UTIL: the share of time a kernel ran, per GPU (by UUID).",
            "percent",
            queries.gpu_utilization(),
        ).max(100),
        _timeseries(
            "GPU memory used per GPU",
            "DCGM_FI_DEV_FB_USED of the framebuffer's total: used + free + reserved.",
            "percent",
            queries.gpu_memory(),
        ).max(100),
        _stat(
            "GPU-hours used vs paid (cluster GPUs)",
            "Every GPU the DCGM exporter sees is billed; used: a non-zero utilization, "
            "at one-minute resolution.",
            "h",
            *queries.gpu_hours(),
            width=12,
        ),
        _stat(
            "Job-hours in range, per scale set",
            "What vm-launcher sets' VMs (no exporter) are billed for, besides launch.",
            "h",
            queries.job_hours(),
            width=12,
        ),
    ]


def _cost_model() -> list[Panel]:
    usage = queries.usage_queries()
    return [
        _stat(
            "usage.jobsPerDay",
            "GPU jobs completed a day, averaged over a week.",
            "short",
            usage["jobsPerDay"],
        ),
        _stat(
            "usage.minutesPerJob",
            "Mean execution time of a GPU job.",
            "m",
            usage["minutesPerJob"],
        ),
        _stat(
            "usage.overheadMinutesPerJob (launch)",
            "Mean wait for a runner after assignment; add teardown (not measured).",
            "m",
            usage["overheadMinutesPerJob"],
        ),
    ]


ROWS = (
    ("Jobs: how long do GPU jobs wait for a runner, and run?", _jobs),
    ("Runners: is each scale set sized right?", _runners),
    ("GPUs: how busy are the GPUs we pay for?", _gpus),
    ("Cost model: measured gpu-ci:usage (last 7 days)", _cost_model),
)


def build() -> gd.Dashboard:
    """The dashboard, as the SDK's builder; rows and panels numbered 1, 2, ... in order
    (Grafana links, alerts and library panels refer to a panel by its `id`)."""
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
    ids = 0
    for title, panels in ROWS:
        ids += 1
        board = board.with_row(gd.Row(title).id(ids))
        for panel in panels():
            ids += 1
            board = board.with_panel(panel.id(ids))
    return board


def dashboard_json() -> dict[str, Any]:
    """The dashboard as Grafana's JSON model (what a dashboard ConfigMap holds)."""
    loaded: dict[str, Any] = json.loads(json.dumps(build().build(), cls=JSONEncoder))
    return loaded


def dashboard_text() -> str:
    """The JSON, with sorted keys: the same bytes for the same dashboard (stable diffs)."""
    return json.dumps(dashboard_json(), indent=2, sort_keys=True) + "\n"
