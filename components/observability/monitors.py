"""The PodMonitors that make Prometheus scrape ARC: its listeners and its controller.

Neither ARC chart creates a Service or monitor for its metrics, so they are selected by the
labels ARC puts on its pods (actions-runner-controller, controllers/actions.github.com):
a listener pod carries `app.kubernetes.io/component: runner-scale-set-listener` and
`actions.github.com/scale-set-name`, runs in the controller's namespace, and names its metrics
port `metrics` when the controller's values set `metrics.listenerAddr`; the controller pod
carries the chart's `app.kubernetes.io/part-of: gha-rs-controller` and the same port name.

Every listener series gets `scale_set` (the pod's scale-set-name label), because the job
histograms carry no scale set label of their own; the controller's gauges get it from their
`name` (metricRelabelings), so the dashboard's `$scale_set` filter and the alerts read one
label. Both monitors set `honorLabels: true`: a listener gauge's own `namespace` (its scale
set's) stays `namespace`, as the catalog (metrics.py) says, instead of becoming
`exported_namespace`; and `jobLabel` names the job after the pods' component label
(`runner-scale-set-listener`, `gha-rs-controller`), which the alerts select `up` by.
Keys: prometheus-operator's PodMonitor (`spec.jobLabel`; `podMetricsEndpoints[].honorLabels`,
`relabelings`, `metricRelabelings`), monitoring.coreos.com/v1.
The GPU operator's DCGM exporter brings its own ServiceMonitor (`dcgmExporter.serviceMonitor`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

MONITORING_API = "monitoring.coreos.com/v1"
METRICS_PORT = "metrics"
LISTENER_COMPONENT = "runner-scale-set-listener"
SCALE_SET_NAME_LABEL = "actions.github.com/scale-set-name"
CONTROLLER_PART_OF = "gha-rs-controller"
LISTENER_JOB = LISTENER_COMPONENT
"""The `job` of every listener series (`jobLabel: app.kubernetes.io/component`)."""
CONTROLLER_JOB = CONTROLLER_PART_OF
"""The `job` of every controller series (`jobLabel: app.kubernetes.io/part-of`)."""
CONTROLLER_SCALE_SET = (
    # The ephemeral runner gauges: `name` is the scale set's (ephemeralrunnerset_controller.go,
    # `Name: ephemeralRunnerSet.Labels[LabelKeyGitHubScaleSetName]`).
    ("gha_controller_(?:pending|running|failed)_ephemeral_runners;(.+)", "$1"),
    # The listener gauge: `name` is the AutoscalingListener's, `<set>-<hash>-listener`
    # (autoscalinglistener_controller.go `Name: autoscalingListener.Name`; resourcebuilder.go
    # scaleSetListenerName); the hash has no `-`.
    ("gha_controller_running_listeners;(.+)-[^-]+-listener", "$1"),
)
"""(regex over `__name__;name`, replacement) pairs that copy the scale set into `scale_set`."""


class ArcScrape(BaseModel):
    """Where ARC's pods are: the controller's namespace (its listeners run there too)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    controller_namespace: str
    endpoint: str = "/metrics"


def _meta_label(label: str) -> str:
    """A pod label as Prometheus's Kubernetes discovery names it."""
    return "__meta_kubernetes_pod_label_" + "".join(c if c.isalnum() else "_" for c in label)


def listener_monitor_spec(arc: ArcScrape, interval: str) -> dict[str, Any]:
    return {
        "namespaceSelector": {"matchNames": [arc.controller_namespace]},
        "selector": {"matchLabels": {"app.kubernetes.io/component": LISTENER_COMPONENT}},
        "jobLabel": "app.kubernetes.io/component",
        "podMetricsEndpoints": [
            {
                "port": METRICS_PORT,
                "path": arc.endpoint,
                "interval": interval,
                "honorLabels": True,
                "relabelings": [
                    {
                        "sourceLabels": [_meta_label(SCALE_SET_NAME_LABEL)],
                        "targetLabel": "scale_set",
                        "action": "replace",
                    }
                ],
            }
        ],
    }


def controller_monitor_spec(arc: ArcScrape, interval: str) -> dict[str, Any]:
    relabel = [
        {
            "sourceLabels": ["__name__", "name"],
            "regex": regex,
            "targetLabel": "scale_set",
            "replacement": replacement,
            "action": "replace",
        }
        for regex, replacement in CONTROLLER_SCALE_SET
    ]
    return {
        "namespaceSelector": {"matchNames": [arc.controller_namespace]},
        "selector": {"matchLabels": {"app.kubernetes.io/part-of": CONTROLLER_PART_OF}},
        "jobLabel": "app.kubernetes.io/part-of",
        "podMetricsEndpoints": [
            {
                "port": METRICS_PORT,
                "path": "/metrics",
                "interval": interval,
                "honorLabels": True,
                "metricRelabelings": relabel,
            }
        ],
    }
