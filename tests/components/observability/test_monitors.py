"""ARC's PodMonitors: `honorLabels`, the job names the alerts select by, and `scale_set` on
the controller's gauges, as Prometheus's relabeling would compute it."""

from __future__ import annotations

import pytest

from components.observability.metrics import CONTROLLER_METRICS, LISTENER_METRICS
from components.observability.monitors import (
    CONTROLLER_JOB,
    LISTENER_JOB,
    ArcScrape,
    controller_monitor_spec,
    listener_monitor_spec,
)
from tests.components.observability.series import relabel_scale_set

ARC = ArcScrape(controller_namespace="arc-systems")


def test_both_monitors_honor_the_exporters_labels() -> None:
    """Without it a listener gauge's `namespace` (its scale set's) would be renamed
    `exported_namespace` and replaced by the pod's."""
    for spec in (listener_monitor_spec(ARC, "30s"), controller_monitor_spec(ARC, "30s")):
        (endpoint,) = spec["podMetricsEndpoints"]
        assert endpoint["honorLabels"] is True
        assert endpoint["interval"] == "30s"
    assert all("namespace" in m.labels for m in LISTENER_METRICS if m.type == "gauge")


def test_jobs_are_named_after_the_pods_component() -> None:
    listener = listener_monitor_spec(ARC, "30s")
    controller = controller_monitor_spec(ARC, "30s")
    assert listener["jobLabel"] == "app.kubernetes.io/component"
    assert listener["selector"]["matchLabels"][listener["jobLabel"]] == LISTENER_JOB
    assert controller["jobLabel"] == "app.kubernetes.io/part-of"
    assert controller["selector"]["matchLabels"][controller["jobLabel"]] == CONTROLLER_JOB


def test_the_controller_relabelings_are_prometheus_replaces() -> None:
    (endpoint,) = controller_monitor_spec(ARC, "1m")["podMetricsEndpoints"]
    rules = endpoint["metricRelabelings"]
    assert len(rules) == 2
    for rule in rules:
        assert rule["sourceLabels"] == ["__name__", "name"]
        assert (rule["targetLabel"], rule["action"], rule["replacement"]) == (
            "scale_set",
            "replace",
            "$1",
        )


@pytest.mark.parametrize(
    ("metric", "name", "scale_set"),
    [
        ("gha_controller_failed_ephemeral_runners", "gpu-a10", "gpu-a10"),
        ("gha_controller_pending_ephemeral_runners", "oracle-vm-gpu-a10-1", "oracle-vm-gpu-a10-1"),
        ("gha_controller_running_ephemeral_runners", "x", "x"),
        # the AutoscalingListener's name: <set>-<hash>-listener
        ("gha_controller_running_listeners", "gpu-a10-pod-5d4f7c8b-listener", "gpu-a10-pod"),
        (
            "gha_controller_running_listeners",
            "oracle-vm-gpu-a10-1-754b578d-listener",
            "oracle-vm-gpu-a10-1",
        ),
        # controller-runtime's own series keep no scale set
        ("controller_runtime_reconcile_total", "autoscalingrunnerset", ""),
        ("workqueue_depth", "ephemeralrunner", ""),
    ],
)
def test_the_scale_set_comes_out_of_name(metric: str, name: str, scale_set: str) -> None:
    assert relabel_scale_set(metric, name) == scale_set


def test_every_controller_gauge_gets_its_scale_set() -> None:
    for metric in CONTROLLER_METRICS:
        assert "scale_set" in metric.scraped
        assert relabel_scale_set(metric.name, "s-abcd1234-listener") in ("s", "s-abcd1234-listener")
