"""The values of the kube-prometheus-stack gpu-ci deploys where the recipe has no Prometheus.

Minimal on purpose: the Prometheus operator (its CRDs are what the GPU operator's DCGM
ServiceMonitor and ARC's PodMonitors need), Prometheus, Grafana with its dashboard sidecar,
node-exporter and kube-state-metrics; no Alertmanager (the GPU CI alerts, alerts.py, show on
Prometheus's Alerts page and in Grafana; routing them needs receivers gpu-ci cannot know), and
Prometheus's default rule selector (`release: <release name>`, which the alerts carry). Prometheus
keeps its samples on a volume claim (the chart's default, an emptyDir, loses them on every
restart, which the retention and the seven-day usage queries would not survive). It selects
every ServiceMonitor and PodMonitor, not only those labelled with its release (the chart's
default), so the GPU operator's exporter is scraped with no label to agree on.
Grafana's admin is a Secret this stack writes; the chart's default password is public.
Key names are the chart's; where AICR's own kube-prometheus-stack values set the same
keys (retention, storageSpec, serviceMonitorSelectorNilUsesHelmValues) they agree.
"""

from __future__ import annotations

from typing import Any

from components.arc.pod_spec import Placement
from components.observability.observability_config import ObservabilityConfig

ADMIN_USER_KEY = "admin-user"
ADMIN_PASSWORD_KEY = "admin-password"
DASHBOARD_LABEL_VALUE = "1"
"""The value of `grafana.dashboardLabel` on a dashboard ConfigMap (the sidecar's default)."""

# Where each part's nodeSelector/tolerations go (AICR registry, kube-prometheus-stack's
# nodeScheduling.system paths, less Alertmanager and node-exporter, which runs everywhere).
_SCHEDULED = (
    ("prometheus", "prometheusSpec"),
    ("grafana",),
    ("prometheusOperator",),
    ("prometheusOperator", "admissionWebhooks", "patch"),
    ("kube-state-metrics",),
)


def _at(values: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    node = values
    for key in path:
        node = node.setdefault(key, {})
    return node


def grafana_service(cfg: ObservabilityConfig) -> str:
    """The Grafana Service of the release (the chart names it `<release>-grafana`, port 80)."""
    return f"{cfg.releaseName}-grafana"


def prometheus_service(cfg: ObservabilityConfig) -> str:
    """The Prometheus Service (`<release>-prometheus`, port 9090)."""
    return f"{cfg.releaseName}-prometheus"


def stack_values(
    cfg: ObservabilityConfig, *, admin_secret: str, placement: Placement
) -> dict[str, Any]:
    """The kube-prometheus-stack values; `admin_secret` holds Grafana's admin credentials."""
    spec: dict[str, Any] = {
        "retention": cfg.retention,
        "scrapeInterval": cfg.scrapeInterval,
        "serviceMonitorSelectorNilUsesHelmValues": False,
        "podMonitorSelectorNilUsesHelmValues": False,
    }
    if cfg.retentionSize is not None:
        spec["retentionSize"] = cfg.retentionSize
    claim: dict[str, Any] = {
        "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": cfg.storageSize}},
    }
    if cfg.storageClassName is not None:
        claim["storageClassName"] = cfg.storageClassName
    spec["storageSpec"] = {"volumeClaimTemplate": {"spec": claim}}
    values: dict[str, Any] = {
        "fullnameOverride": cfg.releaseName,
        "alertmanager": {"enabled": False},
        "prometheus": {"prometheusSpec": spec},
        "grafana": {
            "fullnameOverride": grafana_service(cfg),
            "admin": {
                "existingSecret": admin_secret,
                "userKey": ADMIN_USER_KEY,
                "passwordKey": ADMIN_PASSWORD_KEY,
            },
            "sidecar": {
                "dashboards": {
                    "enabled": True,
                    "label": cfg.grafana.dashboardLabel,
                    "labelValue": DASHBOARD_LABEL_VALUE,
                }
            },
        },
    }
    fields = placement.pod_fields()
    if fields:
        for path in _SCHEDULED:
            _at(values, path).update(fields)
    return values
