"""`gpu-ci:observability`: what `Monitoring` (components/observability/monitoring.py) takes.

On by default in a stack that deploys onto a cluster (a platform, or ARC): that is where the
GPUs and the runners whose metrics answer "how long do GPU jobs wait, and how busy are the
GPUs we pay for?" are. `prometheus: deploy` installs a pinned kube-prometheus-stack
(Prometheus operator, Prometheus, Grafana) unless the recipe deploys one; `existing` only adds
the monitors and dashboards for a Prometheus operator and Grafana already on the cluster.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, SecretStr, field_validator

from components.arc.k8s_types import K8sName, NodeLabels, Quantity, storage_class
from components.config_base import ConfigModel
from components.observability.alerts_config import AlertsConfig
from components.observability.durations import duration, retention
from components.observability.queue_time_config import QueueTimeConfig
from components.pins import OBSERVABILITY_PINS

_SIZE = re.compile(r"[0-9]+(B|KB|MB|GB|TB|PB|EB)")
"""A Prometheus retention size (units.Base2Bytes as `--storage.tsdb.retention.size` reads it)."""
_CHART_VERSION = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+")


class GrafanaConfig(ConfigModel):
    """The Grafana of a deployed kube-prometheus-stack."""

    adminPassword: SecretStr | None = Field(
        None,
        description="default: generated (random, kept as a Pulumi secret); the `admin` "
        "user's password (`pulumi config set --secret --path "
        "gpu-ci:observability.grafana.adminPassword`)",
    )
    dashboardLabel: str = Field(
        "grafana_dashboard",
        pattern=r"^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$",
        description="the label of the ConfigMaps Grafana's dashboard sidecar loads "
        "(kube-prometheus-stack's default)",
    )


class ObservabilityConfig(ConfigModel):
    """Metrics from ARC's listeners and controller and from the GPU operator's DCGM exporter,
    scraped by Prometheus, pictured by Grafana."""

    enabled: bool | None = Field(
        None,
        description="default: on when the stack deploys onto a cluster (gpu-ci:platform or "
        "gpu-ci:arc), off otherwise",
    )
    prometheus: Literal["deploy", "existing"] = Field(
        "deploy",
        description="`deploy`: a pinned kube-prometheus-stack (Prometheus and Grafana), unless "
        "the recipe has one; `existing`: only monitors and dashboards, for the Prometheus "
        "operator and Grafana already on the cluster",
    )
    namespace: K8sName = Field(
        "monitoring", description="where the monitors, dashboards (and the stack) go"
    )
    releaseName: K8sName = Field(
        "kube-prometheus-stack",
        max_length=26,
        description="the kube-prometheus-stack Helm release (the chart cuts its names at 26 "
        "characters, and the Services are named after it)",
    )
    chartVersion: str = Field(
        OBSERVABILITY_PINS.chart_version, description="the kube-prometheus-stack chart version"
    )
    retention: str = Field(
        "15d", description="how long Prometheus keeps samples (a Prometheus duration, at most 100y)"
    )
    retentionSize: str | None = Field(
        None, description="default: no limit; the most disk Prometheus's samples may use, e.g. 8GB"
    )
    scrapeInterval: str = Field("30s", description="how often every target is scraped")
    storageSize: Quantity = Field(
        "50Gi",
        description="Prometheus's volume (a PersistentVolumeClaim, so a restart keeps the "
        "samples; 50Gi is OCI block volumes' minimum)",
    )
    storageClassName: str | None = Field(
        None,
        description="default: the cluster's default StorageClass (OKE: oci-bv, kind: "
        "standard); the StorageClass of Prometheus's volume",
    )
    monitorLabels: NodeLabels = Field(
        default_factory=lambda: {"release": "kube-prometheus-stack"},
        description="labels on every ServiceMonitor and PodMonitor: what an existing "
        "Prometheus's monitor selectors match",
    )
    grafana: GrafanaConfig = Field(
        default_factory=GrafanaConfig, description="the deployed Grafana's admin and dashboards"
    )
    alerts: AlertsConfig = Field(
        default_factory=AlertsConfig,
        description="the GPU CI alerts (PrometheusRule `gpu-ci-alerts`) and their thresholds",
    )
    queueTime: QueueTimeConfig = Field(
        default_factory=QueueTimeConfig,
        description="the queue-time exporter: GPU jobs' whole wait, from GitHub's job list",
    )

    @field_validator("chartVersion")
    @classmethod
    def _chart_version(cls, value: str) -> str:
        if not _CHART_VERSION.fullmatch(value):
            raise ValueError(f"{value!r} is not a chart version like 84.4.0")
        return value

    @field_validator("retention")
    @classmethod
    def _retention(cls, value: str) -> str:
        return retention(value)

    @field_validator("scrapeInterval")
    @classmethod
    def _scrape_interval(cls, value: str) -> str:
        duration(value, "scrapeInterval")
        return value

    @field_validator("storageClassName")
    @classmethod
    def _storage_class_name(cls, value: str | None) -> str | None:
        return None if value is None else storage_class(value)

    @field_validator("retentionSize")
    @classmethod
    def _retention_size(cls, value: str | None) -> str | None:
        if value is not None and not _SIZE.fullmatch(value):
            raise ValueError(
                f"{value!r} is not a Prometheus size: a whole number and B, KB, MB, GB, TB, "
                "PB or EB, e.g. 8GB"
            )
        return value
