"""The metrics each deployed component exports: what the scrapes collect, what queries read.

One typed catalog, so that ARC's `listenerMetrics` (what a listener exports is exactly what
its scale set's values list), the dashboard's and the alerts' queries, and the synthetic
series the query tests feed Prometheus cannot name a metric or label nobody exports.

- ARC listener (chart 0.14.2): the set the gha-runner-scale-set chart documents in its values
  (commented `listenerMetrics`), with the labels of the listener's own defaults
  (actions/actions-runner-controller cmd/ghalistener/metrics/metrics.go, `defaultMetrics`):
  the chart's list less `job_workflow_ref`, `job_workflow_name` and `job_workflow_target`,
  which ARC's chart test calls opt-in ("Labels documented in the values files as not being
  part of the defaults", metrics/chart_values_test.go). `job_workflow_ref` is
  `owner/repo/.github/workflows/x.yml@refs/pull/N/merge` and its target `pull/N/merge`: a new
  series for every pull request, whose first job `increase()` cannot see. The execution
  histogram's buckets go on past an hour.
- ARC controller: the gauges of controllers/actions.github.com/metrics/metrics.go, served on
  `metrics.controllerManagerAddr`; `name` is the scale set's (the ephemeral runner gauges) or
  its AutoscalingListener's, `<set>-<hash>-listener` (`gha_controller_running_listeners`).
- DCGM exporter: dcgm_metrics.py.
- gpu-ci's queue-time exporter (queue_exporter/, deployed by queue_deploy.py): the whole
  queue time from GitHub's job list, per repository and runner label, and its own health.
"""

from __future__ import annotations

from components.observability.dcgm_metrics import DCGM_METRICS, KSM_METRICS
from components.observability.metric_model import TARGET_LABELS, Metric, MetricType
from components.observability.queue_exporter import poller as queue

_JOB = ["repository", "organization", "enterprise", "job_name", "event_name"]
_RUNNERS = ["name", "namespace", "repository", "organization", "enterprise"]
PER_PR_LABELS = ("job_workflow_ref", "job_workflow_name", "job_workflow_target")
"""The chart's documented job labels that ARC's defaults leave out (see above)."""
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


LISTENER_SCRAPE = (*TARGET_LABELS, "scale_set")
"""The listeners' PodMonitor adds `scale_set` from the pod's `actions.github.com/scale-set-name`
label (monitors.py): the job histograms carry no scale set label of their own."""
CONTROLLER_SCRAPE = (*TARGET_LABELS, "scale_set")
"""The controller's PodMonitor copies the scale set out of `name` (monitors.py), so every
query filters ARC's series by the one `scale_set` label."""


def _listener(
    name: str, kind: MetricType, labels: list[str], buckets: tuple[float, ...] = ()
) -> Metric:
    return Metric(
        name=name, type=kind, labels=tuple(labels), buckets=buckets, scraped=LISTENER_SCRAPE
    )


LISTENER_METRICS: tuple[Metric, ...] = (
    _listener("gha_started_jobs_total", "counter", _JOB),
    _listener("gha_completed_jobs_total", "counter", [*_JOB, "job_result"]),
    *(
        _listener(f"gha_{gauge}", "gauge", _RUNNERS)
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
    _listener("gha_job_startup_duration_seconds", "histogram", _JOB, JOB_DURATION_BUCKETS),
    _listener(
        "gha_job_execution_duration_seconds",
        "histogram",
        [*_JOB, "job_result"],
        EXECUTION_BUCKETS,
    ),
)

CONTROLLER_METRICS: tuple[Metric, ...] = tuple(
    Metric(
        name=f"gha_controller_{gauge}",
        type="gauge",
        labels=tuple(_RUNNERS),
        scraped=CONTROLLER_SCRAPE,
    )
    for gauge in (
        "pending_ephemeral_runners",
        "running_ephemeral_runners",
        "failed_ephemeral_runners",
        "running_listeners",
    )
)

QUEUE_BUCKETS: tuple[float, ...] = (*EXECUTION_BUCKETS, 14400.0, 21600.0, 43200.0, 86400.0)
"""The queue histogram's: the execution buckets, then 4, 6, 12 and 24 hours (GitHub cancels a
job still queued after 24 hours)."""
_PER_JOB = ("repository", "runner_label")


def _queue(
    name: str, kind: MetricType, labels: tuple[str, ...], buckets: tuple[float, ...] = ()
) -> Metric:
    return Metric(name=name, type=kind, labels=labels, buckets=buckets, scraped=TARGET_LABELS)


QUEUE_METRICS: tuple[Metric, ...] = (
    _queue(queue.WAIT, "histogram", _PER_JOB, QUEUE_BUCKETS),
    _queue(queue.QUEUED, "gauge", ("runner_label",)),
    _queue(queue.OLDEST, "gauge", ("runner_label",)),
    _queue(queue.LEFT, "counter", _PER_JOB),
    _queue(queue.REQUESTS, "counter", ("code",)),
    _queue(queue.REMAINING, "gauge", ()),
    _queue(queue.ERRORS, "counter", ("kind",)),
    _queue(queue.SKIPPED, "counter", ("reason",)),
    _queue(queue.LAST_SUCCESS, "gauge", ()),
)
"""What the queue-time exporter serves (poller.py names them); its PodMonitor adds only the
target labels, `job` being `gpu-ci-queue-exporter`."""

UP = Metric(
    name="up",
    type="gauge",
    labels=(),
    optional=("scale_set", "service"),
    scraped=TARGET_LABELS,
)
"""Prometheus's own per-target series: 1 if the last scrape worked. A listener target carries
`scale_set` (its PodMonitor's relabeling applies to the target, so to `up` as well)."""

EXPORTED: dict[str, Metric] = {
    m.name: m
    for m in (
        *LISTENER_METRICS,
        *CONTROLLER_METRICS,
        *DCGM_METRICS,
        *KSM_METRICS,
        *QUEUE_METRICS,
        UP,
    )
}


def series_names() -> frozenset[str]:
    """Every series name a query may select."""
    return frozenset(name for m in EXPORTED.values() for name in m.series())


def labels_of(series: str) -> frozenset[str]:
    """Every label a stored series of this name may carry (a histogram bucket's `le` too)."""
    for metric in EXPORTED.values():
        if series in metric.series():
            le = ("le",) if series.endswith("_bucket") else ()
            return frozenset((*metric.labels, *metric.optional, *metric.scraped, *le))
    raise KeyError(f"{series}: no exported metric stores it")


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
