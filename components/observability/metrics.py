"""The metrics each deployed component exports: what the scrapes collect, what queries read.

One typed catalog, so that ARC's `listenerMetrics` (what a listener exports is exactly what
its scale set's values list), the dashboards' queries and the usage queries cannot name a
metric nobody exports (tests parse every query against it).

- ARC listener: the set the gha-runner-scale-set chart documents in its values (commented
  `listenerMetrics`, chart 0.14.2) and CNCF's `oracle-vm-gpu-a10-*` scale sets enable, with
  the execution histogram's buckets extended past an hour.
- ARC controller: the gauges of controllers/actions.github.com/metrics (actions-runner-
  controller), served on `metrics.controllerManagerAddr`.
- DCGM exporter: the fields of dcgm-exporter's default counters (etc/default-counters.csv)
  used here; each carries `gpu`, `UUID`, `modelName`, `Hostname` and, with the GPU operator's
  pod mapping, `namespace`/`pod`/`container` of the pod holding the GPU.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

MetricType = Literal["counter", "gauge", "histogram"]

_JOB = ["repository", "organization", "enterprise", "job_name", "event_name"]
_WORKFLOW = ["job_workflow_ref", "job_workflow_name", "job_workflow_target"]
_RUNNERS = ["name", "namespace", "repository", "organization", "enterprise"]
JOB_DURATION_BUCKETS: tuple[float, ...] = (
    0.01, 0.05, 0.1, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 12.0, 15.0,
    18.0, 20.0, 25.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 100.0, 110.0, 120.0, 150.0,
    180.0, 210.0, 240.0, 300.0, 360.0, 420.0, 480.0, 540.0, 600.0, 900.0, 1200.0, 1800.0,
    2400.0, 3000.0, 3600.0,
)  # fmt: skip
"""The chart's documented default buckets, in seconds: up to an hour."""
EXECUTION_BUCKETS: tuple[float, ...] = (*JOB_DURATION_BUCKETS, 5400.0, 7200.0, 10800.0)
"""The execution histogram's: the chart's, then 1.5, 2 and 3 hours. GPU e2e jobs run about an
hour with two-hour timeouts; above the top bucket `histogram_quantile` can only answer the
top bucket's bound, so with the chart's buckets every long job would read as exactly 1 h."""


class Metric(BaseModel):
    """One metric a component exports, with the labels it carries."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")
    type: MetricType
    labels: tuple[str, ...]
    buckets: tuple[float, ...] = ()

    def series(self) -> tuple[str, ...]:
        """The names Prometheus stores: a histogram is `_bucket`, `_sum` and `_count`."""
        if self.type == "histogram":
            return tuple(f"{self.name}_{part}" for part in ("bucket", "sum", "count"))
        return (self.name,)


def _metric(
    name: str, kind: MetricType, labels: list[str], buckets: tuple[float, ...] = ()
) -> Metric:
    return Metric(name=name, type=kind, labels=tuple(labels), buckets=buckets)


LISTENER_METRICS: tuple[Metric, ...] = (
    _metric("gha_started_jobs_total", "counter", [*_JOB, *_WORKFLOW]),
    _metric("gha_completed_jobs_total", "counter", [*_JOB, "job_result", *_WORKFLOW]),
    *(
        _metric(f"gha_{gauge}", "gauge", _RUNNERS)
        for gauge in (
            "assigned_jobs",
            "running_jobs",
            "registered_runners",
            "busy_runners",
            "min_runners",
            "max_runners",
            "desired_runners",
            "idle_runners",
        )
    ),
    _metric(
        "gha_job_startup_duration_seconds", "histogram", [*_JOB, *_WORKFLOW], JOB_DURATION_BUCKETS
    ),
    _metric(
        "gha_job_execution_duration_seconds",
        "histogram",
        [*_JOB, "job_result", *_WORKFLOW],
        EXECUTION_BUCKETS,
    ),
)

_CONTROLLER = ["name", "namespace", "repository", "organization", "enterprise"]
CONTROLLER_METRICS: tuple[Metric, ...] = (
    _metric("gha_controller_pending_ephemeral_runners", "gauge", _CONTROLLER),
    _metric("gha_controller_running_ephemeral_runners", "gauge", _CONTROLLER),
    _metric("gha_controller_failed_ephemeral_runners", "gauge", _CONTROLLER),
    _metric("gha_controller_running_listeners", "gauge", _CONTROLLER),
)

_GPU = ["gpu", "UUID", "device", "modelName", "Hostname", "namespace", "pod", "container"]
DCGM_METRICS: tuple[Metric, ...] = tuple(
    _metric(name, "gauge", _GPU)
    for name in (
        "DCGM_FI_DEV_GPU_UTIL",
        "DCGM_FI_DEV_MEM_COPY_UTIL",
        "DCGM_FI_DEV_FB_USED",
        "DCGM_FI_DEV_FB_FREE",
        "DCGM_FI_DEV_GPU_TEMP",
        "DCGM_FI_DEV_POWER_USAGE",
    )
)

SCRAPE_LABELS = ("scale_set",)
"""Labels the listeners' PodMonitor adds to every listener series (monitors.py): the scale
set a listener serves, from its pod's `actions.github.com/scale-set-name` label."""

EXPORTED: dict[str, Metric] = {
    m.name: m for m in (*LISTENER_METRICS, *CONTROLLER_METRICS, *DCGM_METRICS)
}


def series_names() -> frozenset[str]:
    """Every series name a query may select."""
    return frozenset(name for m in EXPORTED.values() for name in m.series())


def listener_metrics_values() -> dict[str, dict[str, dict[str, object]]]:
    """The gha-runner-scale-set chart's `listenerMetrics` value enabling every listener metric."""
    values: dict[str, dict[str, dict[str, object]]] = {
        "counters": {},
        "gauges": {},
        "histograms": {},
    }
    for m in LISTENER_METRICS:
        entry: dict[str, object] = {"labels": list(m.labels)}
        if m.buckets:
            entry["buckets"] = list(m.buckets)
        values[f"{m.type}s"][m.name] = entry
    return values
