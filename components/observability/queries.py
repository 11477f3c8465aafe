"""The PromQL behind every dashboard panel and the cost model's usage numbers, by name.

Grafana fills `$__range` (the dashboard's time range) and `$scale_set` (the dashboard
variable, a regex of scale sets) in before Prometheus sees a query; `PROMQL_SAMPLE_VALUES`
are values a test substitutes to run them. ARC's series carry `scale_set` (the monitors add
it: monitors.py); DCGM's are grouped by `UUID`, the one GPU label every exporter version has.

Every query is built by a function, called when the dashboard (or the stack's outputs) is
built: what the tests run through Prometheus is what the program builds.

Counting jobs. ARC creates a counter or histogram series when it first records into it, so
the first sample of a new series already holds its first job, and `increase()` (the change
between samples) never sees that job. New series appear mid-range for every new label set
(a job name, a result) and whenever the listener restarts on a new pod. Windows are those of
the Prometheus gpu-ci deploys (v3.11.3): left-open, `(t - window, t]`, so a sample exactly at
a window's start is the value before it and not in it (promql/engine.go `matrixIterSlice`
drops samples at or before the start; Prometheus's migration guide, "Range selectors and
lookback exclude samples coinciding with the left boundary"; Prometheus 2 had it in both).
`counted()` takes, per series:
- one that was there in the hour before the window and neither fell below its value from
  then nor reset in the window: its largest value less that value (exact: `increase()`
  would extrapolate a series that ends or starts inside the window, and show 1.006 jobs);
- one that did not reset in the window and is new, or fell below the value before it by its
  first sample in the window (restarted in place between the two, which `resets()` over the
  window cannot see): its largest value, all its jobs;
- one that was there before and reset in the window (a listener restarted in its pod):
  `increase()`, which adds the value after each reset but extrapolates the samples to the
  window's edges (a scrape interval's share more); `jobs()` rounds counts back to whole jobs;
- one that is new and reset in the window: its larger life only.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from components.observability.queue_exporter import poller as queue

SCALE_SET = 'scale_set=~"$scale_set"'
PROMQL_SAMPLE_VALUES = {"$__range": "3h", "$scale_set": ".*"}
SEEN_BEFORE = "1h"
"""How far before a window a series must have had a sample to count as already there: longer
than any scrape gap (a failed scrape marks a series stale; a range selector skips that)."""
QUEUE = queue.WAIT
"""The whole queue time: GitHub's `created_at` to `started_at` (queue_exporter/)."""
QUEUE_LABEL = 'runner_label=~"$scale_set"'
"""The exporter's series are per runner label: a scale set's name is its label."""
STARTUP = "gha_job_startup_duration_seconds"
EXECUTION = "gha_job_execution_duration_seconds"
COMPLETED = "gha_completed_jobs_total"
PER_GPU = "UUID, hostname, gpu, modelName"
"""One series per GPU: `UUID` keeps GPUs apart (two hosts each have a `gpu="0"`), `hostname`
(the node) and the others only name it in the legend."""
GPU_LEGEND = "{{hostname}} GPU {{gpu}} ({{modelName}})"


class Query(BaseModel):
    """One PromQL expression and the legend of each series it returns."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    expr: str
    legend: str = ""


def selector(metric: str, matchers: str) -> str:
    return f"{metric}{{{matchers}}}" if matchers else metric


def counted(series: str, window: str) -> str:
    """What a counter series counted in `window`, one result per series (see the module)."""
    before = f"last_over_time({series}[{SEEN_BEFORE}] offset {window})"
    most = f"max_over_time({series}[{window}])"
    least = f"min_over_time({series}[{window}])"
    steady = f"(resets({series}[{window}]) == 0)"
    return (
        f"(({most} - {before}) and ({before} <= {least}) and {steady}) or "
        f"({most} and {steady}) or "
        f"(increase({series}[{window}]) and {before}) or "
        f"{most}"
    )


def jobs(series: str, window: str) -> str:
    """`counted()` of a counter of jobs (completed jobs, a histogram's `_count` or bucket),
    rounded per series: jobs are whole, and only `increase()`'s extrapolation of a series
    that reset in the window (a scrape interval's share of it) makes fractions."""
    return f"round({counted(series, window)})"


def _quantile(q: float, histogram: str, window: str, by: str, matchers: str = SCALE_SET) -> str:
    bucket = selector(f"{histogram}_bucket", matchers)
    return f"histogram_quantile({q}, sum by ({by}) ({jobs(bucket, window)}))"


def _percent(q: float) -> str:
    return f"p{round(q * 100)}"


def over_the_last_hour(histogram: str) -> tuple[Query, ...]:
    """p50 and p95 of the last hour's jobs, per scale set: at tens of jobs a day a shorter
    window would mostly hold no job, and `histogram_quantile` of nothing is NaN."""
    return tuple(
        Query(
            expr=_quantile(q, histogram, "1h", "le, scale_set"),
            legend=f"{{{{scale_set}}}} {_percent(q)}",
        )
        for q in (0.5, 0.95)
    )


def in_range(histogram: str) -> tuple[Query, ...]:
    """p50 and p95 of every job in the dashboard's range, the selected scale sets together."""
    return tuple(
        Query(expr=_quantile(q, histogram, "$__range", "le"), legend=_percent(q))
        for q in (0.5, 0.95)
    )


def queue_over_the_last_hour() -> tuple[Query, ...]:
    """p50 and p95 of the whole queue time of the last hour's jobs, per runner label."""
    return tuple(
        Query(
            expr=_quantile(q, QUEUE, "1h", "le, runner_label", QUEUE_LABEL),
            legend=f"{{{{runner_label}}}} {_percent(q)}",
        )
        for q in (0.5, 0.95)
    )


def queue_in_range() -> tuple[Query, ...]:
    """p50 and p95 of the whole queue time of every job that started in the range."""
    return tuple(
        Query(expr=_quantile(q, QUEUE, "$__range", "le", QUEUE_LABEL), legend=_percent(q))
        for q in (0.5, 0.95)
    )


def queued_now() -> tuple[Query, ...]:
    """Jobs GitHub holds queued now (no runner yet), and how long the oldest has waited."""
    return (
        Query(
            expr=f"max by (runner_label) ({selector(queue.QUEUED, QUEUE_LABEL)})",
            legend="{{runner_label}} queued",
        ),
        Query(
            expr=f"max by (runner_label) ({selector(queue.OLDEST, QUEUE_LABEL)})",
            legend="{{runner_label}} oldest",
        ),
    )


def jobs_completed() -> Query:
    return Query(
        expr=f"sum by (scale_set, job_result) ({jobs(selector(COMPLETED, SCALE_SET), '$__range')})",
        legend="{{scale_set}} {{job_result}}",
    )


def _by_scale_set(metric: str, legend: str) -> Query:
    return Query(
        expr=f"sum by (scale_set) ({selector(metric, SCALE_SET)})",
        legend=f"{{{{scale_set}}}} {legend}",
    )


def runners() -> tuple[Query, ...]:
    return tuple(
        _by_scale_set(f"gha_{gauge}_runners", gauge) for gauge in ("busy", "idle", "desired", "max")
    )


def jobs_waiting() -> tuple[Query, ...]:
    """Assigned to the scale set, and running: the difference waits for a runner."""
    return (
        _by_scale_set("gha_assigned_jobs", "assigned"),
        _by_scale_set("gha_running_jobs", "running"),
    )


def failed_runners() -> Query:
    """EphemeralRunners the controller holds in phase Failed (they block scale-up)."""
    return _by_scale_set("gha_controller_failed_ephemeral_runners", "failed")


def gpu_utilization() -> Query:
    return Query(expr=f"avg by ({PER_GPU}) (DCGM_FI_DEV_GPU_UTIL)", legend=GPU_LEGEND)


RESERVED = "(DCGM_FI_DEV_FB_RESERVED or DCGM_FI_DEV_FB_USED * 0)"
"""The driver's reserve, or 0 from an exporter whose counters leave it out (AICR's own
dcgm-exporter counters list FB_USED and FB_FREE only)."""


def gpu_memory() -> Query:
    """Used of the framebuffer's total: used + free + reserved (the driver's reserve is part
    of the total NVML reports, and no job can use it)."""
    total = f"DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE + {RESERVED}"
    return Query(
        expr=f"100 * max by ({PER_GPU}) (DCGM_FI_DEV_FB_USED) / max by ({PER_GPU}) ({total})",
        legend=GPU_LEGEND,
    )


def _gpus(condition: str) -> str:
    """GPUs (by UUID) at each whole minute after the range's start, in hours: a subquery's
    steps are left-open too, so a 3h range is 180 steps, not 181."""
    return (
        f"sum_over_time((count(count by (UUID) (DCGM_FI_DEV_GPU_UTIL{condition})) "
        "or vector(0))[$__range:1m]) / 60"
    )


def gpu_hours() -> tuple[Query, ...]:
    """GPU-hours over the dashboard's range, at one-minute resolution: every GPU the exporter
    sees is billed; one with non-zero utilization was used. VMs launched per job (vm-launcher
    sets) run no exporter: their hours are the jobs' own (`job_hours`)."""
    return (
        Query(expr=_gpus(" > 0"), legend="used (a process on the GPU)"),
        Query(expr=_gpus(""), legend="paid (GPU present)"),
    )


def _seconds(histogram: str, window: str, matchers: str = "") -> str:
    return counted(selector(f"{histogram}_sum", matchers), window)


def _count(histogram: str, window: str) -> str:
    return jobs(f"{histogram}_count", window)


def job_hours() -> Query:
    return Query(
        expr=f"sum by (scale_set) ({_seconds(EXECUTION, '$__range', SCALE_SET)}) / 3600",
        legend="{{scale_set}}",
    )


def _mean_minutes(histogram: str) -> Query:
    return Query(expr=f"sum({_seconds(histogram, '7d')}) / sum({_count(histogram, '7d')}) / 60")


def usage_queries() -> dict[str, Query]:
    """`gpu-ci:usage` keys and the query that measures each, over the last week
    (docs/observability.md#feed-the-cost-model): GPU jobs completed a day; the mean job's
    execution minutes; the mean wait for a runner (for a vm-launcher set the VM's launch and
    boot, which is billed; teardown is not measured)."""
    return {
        "jobsPerDay": Query(expr=f"sum({jobs(COMPLETED, '7d')}) / 7"),
        "minutesPerJob": _mean_minutes(EXECUTION),
        "overheadMinutesPerJob": _mean_minutes(STARTUP),
    }


USAGE_QUERIES = usage_queries()
"""The same, for the stack's `observability.usageQueries` output."""
