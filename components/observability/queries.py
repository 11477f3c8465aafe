"""The PromQL behind every dashboard panel and the cost model's usage numbers, by name.

Grafana fills `$__rate_interval` (a rate window of at least four scrapes), `$__range` (the
dashboard's time range) and `$scale_set` (the dashboard variable, a regex of scale sets) in
before Prometheus sees a query; `PROMQL_SAMPLE_VALUES` are values a test substitutes to parse
them. Listener series carry `scale_set` (the listeners' PodMonitor adds it: monitors.py).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

SCALE_SET = 'scale_set=~"$scale_set"'
PROMQL_SAMPLE_VALUES = {"$__rate_interval": "2m", "$__range": "1d", "$scale_set": ".*"}


class Query(BaseModel):
    """One PromQL expression and the legend of each series it returns."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    expr: str
    legend: str = ""


def _quantile(q: float, histogram: str) -> Query:
    """The q-quantile of the last hour's jobs, per scale set: at tens of jobs a day a
    shorter window would mostly hold no job, and `histogram_quantile` of nothing is NaN."""
    return Query(
        expr=f"histogram_quantile({q}, sum by (le, scale_set) "
        f"(rate({histogram}_bucket{{{SCALE_SET}}}[1h])))",
        legend=f"{{{{scale_set}}}} p{round(q * 100)}",
    )


def _over_range(q: float, histogram: str) -> Query:
    """The q-quantile of every job in the dashboard's time range, all scale sets selected."""
    return Query(
        expr=f"histogram_quantile({q}, sum by (le) "
        f"(increase({histogram}_bucket{{{SCALE_SET}}}[$__range])))",
        legend=f"p{round(q * 100)}",
    )


def _runners(gauge: str, legend: str) -> Query:
    return Query(
        expr=f"sum by (scale_set) (gha_{gauge}{{{SCALE_SET}}})",
        legend=f"{{{{scale_set}}}} {legend}",
    )


_PER_GPU = "Hostname, gpu, modelName"

QUEUE_TIME = (
    _quantile(0.5, "gha_job_startup_duration_seconds"),
    _quantile(0.95, "gha_job_startup_duration_seconds"),
)
"""From the scale set's assignment of a job to a runner starting it: the wait on our capacity
(a VM's launch and boot for vm-launcher sets, a pod's scheduling for gpu-pod sets). ARC's ADR
"Exposing metrics" (2023-05-08): "time spent waiting for a workflow job to get started on
the runner owned by the scale set"; GitHub's queue before assignment is not in it."""
EXECUTION_TIME = (
    _quantile(0.5, "gha_job_execution_duration_seconds"),
    _quantile(0.95, "gha_job_execution_duration_seconds"),
)
QUEUE_TIME_IN_RANGE = (
    _over_range(0.5, "gha_job_startup_duration_seconds"),
    _over_range(0.95, "gha_job_startup_duration_seconds"),
)
EXECUTION_TIME_IN_RANGE = (
    _over_range(0.5, "gha_job_execution_duration_seconds"),
    _over_range(0.95, "gha_job_execution_duration_seconds"),
)
JOBS_COMPLETED = Query(
    expr=f"sum by (scale_set, job_result) (increase(gha_completed_jobs_total{{{SCALE_SET}}}"
    "[$__range]))",
    legend="{{scale_set}} {{job_result}}",
)
RUNNERS = (
    _runners("busy_runners", "busy"),
    _runners("idle_runners", "idle"),
    _runners("desired_runners", "desired"),
    _runners("max_runners", "max"),
)
JOBS_WAITING = (
    _runners("assigned_jobs", "assigned"),
    _runners("running_jobs", "running"),
)
FAILED_RUNNERS = Query(
    expr="sum by (name) (gha_controller_failed_ephemeral_runners)",
    legend="{{name}} failed",
)
"""EphemeralRunners the controller holds in phase Failed (they block scale-up)."""
GPU_UTILIZATION = Query(
    expr=f"avg by ({_PER_GPU}) (DCGM_FI_DEV_GPU_UTIL)",
    legend="{{Hostname}} GPU {{gpu}} ({{modelName}})",
)
GPU_MEMORY = Query(
    expr=f"100 * sum by ({_PER_GPU}) (DCGM_FI_DEV_FB_USED) / sum by ({_PER_GPU}) "
    "(DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE)",
    legend="{{Hostname}} GPU {{gpu}} ({{modelName}})",
)
GPU_HOURS = (
    Query(
        expr="sum_over_time((count(DCGM_FI_DEV_GPU_UTIL > 0) or vector(0))[$__range:1m]) / 60",
        legend="used (a process on the GPU)",
    ),
    Query(
        expr="sum_over_time((count(DCGM_FI_DEV_GPU_UTIL) or vector(0))[$__range:1m]) / 60",
        legend="paid (GPU present)",
    ),
)
"""GPU-hours over the dashboard's range, at one-minute resolution: every GPU the exporter
sees is billed; one with non-zero utilization was used. VMs launched per job (vm-launcher
sets) run no exporter: their hours are the jobs' own (`JOB_HOURS`)."""
JOB_HOURS = Query(
    expr=f"sum by (scale_set) (increase(gha_job_execution_duration_seconds_sum{{{SCALE_SET}}}"
    "[$__range])) / 3600",
    legend="{{scale_set}}",
)

JOBS_PER_DAY = Query(expr="sum(increase(gha_completed_jobs_total[7d])) / 7")
"""`gpu-ci:usage.jobsPerDay`: GPU jobs completed a day, averaged over the last week."""
MINUTES_PER_JOB = Query(
    expr="sum(increase(gha_job_execution_duration_seconds_sum[7d])) / "
    "sum(increase(gha_job_execution_duration_seconds_count[7d])) / 60"
)
"""`gpu-ci:usage.minutesPerJob`: the mean GPU job's execution time over the last week."""
OVERHEAD_MINUTES_PER_JOB = Query(
    expr="sum(increase(gha_job_startup_duration_seconds_sum[7d])) / "
    "sum(increase(gha_job_startup_duration_seconds_count[7d])) / 60"
)
"""`gpu-ci:usage.overheadMinutesPerJob`'s launch part: the mean wait for a runner (for a
vm-launcher set, the VM's launch and boot, which is billed). Teardown is not measured."""
USAGE_QUERIES = {
    "jobsPerDay": JOBS_PER_DAY,
    "minutesPerJob": MINUTES_PER_JOB,
    "overheadMinutesPerJob": OVERHEAD_MINUTES_PER_JOB,
}
"""`gpu-ci:usage` keys and the query that measures each
(docs/observability.md#feed-the-cost-model)."""
