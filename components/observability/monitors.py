"""The PodMonitors that make Prometheus scrape ARC: its listeners and its controller.

Neither ARC chart creates a Service or monitor for its metrics, so they are selected by the
labels ARC puts on its pods (actions-runner-controller, controllers/actions.github.com):
a listener pod carries `app.kubernetes.io/component: runner-scale-set-listener` and
`actions.github.com/scale-set-name`, runs in the controller's namespace, and names its metrics
port `metrics` when the controller's values set `metrics.listenerAddr`; the controller pod
carries the chart's `app.kubernetes.io/part-of: gha-rs-controller` and the same port name.

Every listener series gets `scale_set` (the pod's scale-set-name label), because the job
histograms carry no scale set label of their own; the dashboards group by it.
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
        "podMetricsEndpoints": [
            {
                "port": METRICS_PORT,
                "path": arc.endpoint,
                "interval": interval,
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
    return {
        "namespaceSelector": {"matchNames": [arc.controller_namespace]},
        "selector": {"matchLabels": {"app.kubernetes.io/part-of": CONTROLLER_PART_OF}},
        "podMetricsEndpoints": [{"port": METRICS_PORT, "path": "/metrics", "interval": interval}],
    }
