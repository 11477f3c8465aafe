"""Synthetic series shaped as the pinned exporters emit them, for promtool.

Every series is built through `shaped()`, which refuses a name the catalog (metrics.py) does
not export and a label set that is not exactly the catalog's: the labels the exporter always
emits, what the scrape adds, and only the optional ones it may add. A label ARC emits empty
(an org-level scale set's `enterprise`) is given as "" and dropped, as Prometheus drops it.

The ARC scenario is simulated from listener lives and jobs, as the listener records them
(cmd/ghalistener/metrics: a series is created at its first record; a new listener process
starts every series again from zero): one minute per scrape, minutes 0 to END.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from components.observability.metrics import EXPORTED, labels_of
from components.observability.monitors import CONTROLLER_JOB, CONTROLLER_SCALE_SET, LISTENER_JOB

END = 240
"""The last minute of the timeline; queries over the range are evaluated here."""
Point = float | str
"""A sample value, or "stale" (a Prometheus staleness marker)."""


def _required(name: str) -> frozenset[str]:
    for metric in EXPORTED.values():
        if name in metric.series():
            le = {"le"} if name.endswith("_bucket") else set()
            return frozenset({*metric.labels, *metric.scraped, *le})
    raise KeyError(name)


def shaped(name: str, labels: dict[str, str], points: dict[int, Point]) -> dict[str, str]:
    """One promtool input series: `name{labels}` and its value at each minute (`_`: none)."""
    missing = _required(name) - set(labels)
    unknown = set(labels) - labels_of(name)
    assert not missing and not unknown, f"{name}: missing {missing}, unknown {unknown}"
    kept = {k: v for k, v in sorted(labels.items()) if v != ""}
    body = ",".join(f'{k}="{v}"' for k, v in kept.items())
    values = " ".join(_point(points.get(minute)) for minute in range(END + 1))
    return {"series": f"{name}{{{body}}}", "values": values}


def _point(value: Point | None) -> str:
    if value is None:
        return "_"
    return value if isinstance(value, str) else repr(float(value))


def relabel_scale_set(metric: str, name: str) -> str:
    """The controller PodMonitor's metricRelabelings, applied as Prometheus applies a
    `replace`: source labels joined by `;`, the regex anchored, `$1` from its group."""
    for regex, replacement in CONTROLLER_SCALE_SET:
        match = re.fullmatch(regex, f"{metric};{name}")
        if match:
            return replacement.replace("$1", match.group(1))
    return ""


@dataclass(frozen=True)
class Listener:
    """One listener process: a pod (`pod`, `ip`) from `start` up to (not including) `end`."""

    scale_set: str
    pod: str
    ip: str
    start: int
    end: int = END + 1

    def scrape(self) -> dict[str, str]:
        return {
            "job": LISTENER_JOB,
            "instance": f"{self.ip}:8080",
            "namespace": "arc-systems",
            "pod": self.pod,
            "container": "listener",
            "endpoint": "metrics",
            "scale_set": self.scale_set,
        }


@dataclass(frozen=True)
class Job:
    scale_set: str
    job_name: str
    event_name: str
    result: str
    start: int
    """The minute a runner starts it (the listener records the startup duration)."""
    end: int
    """The minute it completes (the listener records the execution duration)."""
    startup_s: float

    @property
    def execution_s(self) -> float:
        return float((self.end - self.start) * 60)

    def labels(self, result: bool) -> dict[str, str]:
        base = {
            "repository": "trainer",
            "organization": "kubeflow",
            "enterprise": "cncf",
            "job_name": self.job_name,
            "event_name": self.event_name,
        }
        return {**base, "job_result": self.result} if result else base


def _key(labels: dict[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(labels.items()))


def _record(
    out: dict[tuple[str, tuple[tuple[str, str], ...]], dict[int, Point]],
    name: str,
    labels: dict[str, str],
    life: Listener,
    events: list[tuple[int, float]],
    value: Any,
) -> None:
    """A series of one listener life: from its first event to the life's end, then stale."""
    first = min(minute for minute, _ in events)
    points = out.setdefault((name, _key(labels)), {})
    for minute in range(first, min(life.end, END + 1)):
        points[minute] = value([obs for m, obs in events if m <= minute])
    if life.end <= END and life.end not in points:
        points[life.end] = "stale"


def listener_series(
    lives: list[Listener], jobs: list[Job], buckets: dict[str, tuple[float, ...]]
) -> list[dict[str, str]]:
    """gha_completed_jobs_total and both job histograms, as each listener life recorded them."""
    out: dict[tuple[str, tuple[tuple[str, str], ...]], dict[int, Point]] = {}
    for life in lives:
        mine = [j for j in jobs if j.scale_set == life.scale_set]
        for histogram, at, value, result in (
            ("gha_job_startup_duration_seconds", "start", "startup_s", False),
            ("gha_job_execution_duration_seconds", "end", "execution_s", True),
        ):
            groups: dict[tuple[tuple[str, str], ...], list[tuple[int, float]]] = {}
            for job in mine:
                minute = getattr(job, at)
                if life.start <= minute < life.end:
                    key = _key({**job.labels(result), **life.scrape()})
                    groups.setdefault(key, []).append((minute, getattr(job, value)))
            for key, events in groups.items():
                labels = dict(key)
                if result:
                    _record(out, "gha_completed_jobs_total", labels, life, events, len)
                _record(out, f"{histogram}_sum", labels, life, events, sum)
                _record(out, f"{histogram}_count", labels, life, events, len)
                for le in (*buckets[histogram], float("inf")):
                    # `le` as Prometheus 3 stores it whatever the exposition said: a float
                    # ("1.0", not "1"; its migration guide, "`le` and `quantile` label values")
                    bound = "+Inf" if le == float("inf") else repr(le)
                    _record(
                        out,
                        f"{histogram}_bucket",
                        {**labels, "le": bound},
                        life,
                        events,
                        lambda seen, le=le: sum(1 for obs in seen if obs <= le),
                    )
    return [shaped(name, dict(key), points) for (name, key), points in sorted(out.items())]


def constant(value: Point, start: int = 0, end: int = END + 1) -> dict[int, Point]:
    return {minute: value for minute in range(start, min(end, END + 1))}


def gauge(
    scale_set: str, metric: str, points: dict[int, Point], ip: str = "10.0.1.5"
) -> dict[str, str]:
    """A listener gauge: its own `name`/`namespace` (the scale set's, kept by honorLabels);
    an enterprise-level set leaves `organization` and `repository` empty."""
    labels = {
        **Listener(scale_set, f"{scale_set}-754b578d-listener", ip, 0).scrape(),
        "name": scale_set,
        "namespace": "arc-runners",
        "enterprise": "cncf",
        "organization": "",
        "repository": "",
    }
    return shaped(metric, labels, points)


def controller(metric: str, name: str, points: dict[int, Point]) -> dict[str, str]:
    """A controller gauge, `scale_set` copied out of `name` by the PodMonitor's relabelings."""
    labels = {
        "job": CONTROLLER_JOB,
        "instance": "10.0.0.9:8080",
        "namespace": "arc-runners",
        "pod": "arc-gha-rs-controller-6c9d8-x2x7k",
        "container": "manager",
        "endpoint": "metrics",
        "name": name,
        "enterprise": "cncf",
        "organization": "",
        "repository": "",
        "scale_set": relabel_scale_set(metric, name),
    }
    return shaped(metric, labels, points)


def up(job: str, ip: str, points: dict[int, Point], scale_set: str = "") -> dict[str, str]:
    labels = {
        "job": job,
        "instance": f"{ip}:8080",
        "namespace": "arc-systems",
        "pod": f"{scale_set or 'arc'}-pod",
        "container": "listener" if scale_set else "manager",
        "endpoint": "metrics",
        "scale_set": scale_set,
    }
    return shaped("up", labels, points)


@dataclass(frozen=True)
class Gpu:
    """One GPU on one host, as dcgm-exporter 4.6.0-4.8.3 labels it (dcgm_metrics.py)."""

    host: str
    uuid: str
    exporter_ip: str

    def labels(self, pod: tuple[str, str, str] | None = None) -> dict[str, str]:
        """With `pod` (namespace, pod, container): while that pod holds the GPU, the
        exporter's pod mapping labels win over the target's (honorLabels)."""
        namespace, name, container = pod or (
            "gpu-operator",
            f"nvidia-dcgm-exporter-{self.host[-1]}",
            "nvidia-dcgm-exporter",
        )
        return {
            "gpu": "0",
            "UUID": self.uuid,
            "pci_bus_id": "00000000:00:04.0",
            "device": "nvidia0",
            "modelName": "NVIDIA A10",
            "hostname": self.host,
            "DCGM_FI_DRIVER_VERSION": "570.172.08",
            "job": "nvidia-dcgm-exporter",
            "instance": f"{self.exporter_ip}:9400",
            "namespace": namespace,
            "pod": name,
            "container": container,
            "endpoint": "gpu-metrics",
            "service": "nvidia-dcgm-exporter",
        }


def dcgm(
    metric: str,
    gpu: Gpu,
    points: dict[int, Point],
    pod: tuple[str, str, str] | None = None,
    extra: dict[str, str] | None = None,
) -> dict[str, str]:
    """A DCGM series of `gpu`; `extra`: the labels of one field (XID's `err_code`...)."""
    return shaped(metric, {**gpu.labels(pod), **(extra or {})}, points)


def node(name: str, end: int = END + 1) -> dict[str, str]:
    """kube-state-metrics' series for a node in the cluster up to `end`."""
    labels = {
        "node": name,
        "job": "kube-state-metrics",
        "instance": "10.0.0.20:8080",
        "namespace": "monitoring",
        "pod": "kube-prometheus-stack-kube-state-metrics-5f7c9",
        "container": "kube-state-metrics",
        "endpoint": "http",
        "service": "kube-prometheus-stack-kube-state-metrics",
        "kubelet_version": "v1.33.1",
    }
    points: dict[int, Point] = {**constant(1.0, 0, end)}
    if end <= END:
        points[end] = "stale"
    return shaped("kube_node_info", labels, points)
