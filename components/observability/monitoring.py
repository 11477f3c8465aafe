"""Monitoring: Prometheus and Grafana (or an existing pair), ARC's monitors, the dashboards.

Children, on the cluster of `opts.provider`, after what `opts.depends_on` names:
- with `deploy_stack`: the namespace, Grafana's admin Secret (the configured password, or a
  generated one: both Pulumi secrets) and the kube-prometheus-stack release, whose CRDs the
  monitors (and the GPU operator's DCGM ServiceMonitor) need, so they come after it;
- a PodMonitor for ARC's listeners and one for its controller, when the stack runs ARC;
- the queue-time exporter, where the stack runs ARC or VM runners (queue_deploy.py): its
  program's ConfigMap and Deployment beside the GitHub App Secret it reads (for VM runners,
  its own namespace and a Secret holding their App, a Pulumi secret), and its PodMonitor;
- the "GPU CI" dashboard as a ConfigMap Grafana's sidecar loads (dashboard.py);
- the PrometheusRule `gpu-ci-alerts` (alerts.py), labelled for the Prometheus's `ruleSelector`:
  the monitors' labels, and `release: <release name>` where gpu-ci deploys the stack (the
  chart's default selector).

Day 2 (tests/stacks/offline/lifecycle/test_day2.py): a changed retention, storage or scrape interval
upgrades the release in place; a changed dashboard replaces its ConfigMap, and a new given
password the Secret (pulumi-kubernetes treats both as immutable; Grafana's sidecar reloads
the dashboard, Grafana reads the password when it starts). The generated password's inputs
are constants, so it is never regenerated, not even for a rebuilt cluster.
"""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
import pulumi_random as random
from pydantic import Field

from components.arc.pod_spec import Placement
from components.base import MANAGED_LABELS, ComponentArgs, child, upstream
from components.observability.alerts import RULE_NAME, rule_groups
from components.observability.dashboard import UID, dashboard_text
from components.observability.monitors import (
    MONITORING_API,
    ArcScrape,
    controller_monitor_spec,
    listener_monitor_spec,
)
from components.observability.observability_config import ObservabilityConfig
from components.observability.queue_deploy import (
    NAME as QUEUE_EXPORTER,
)
from components.observability.queue_deploy import (
    QueueExporterArgs,
    app_secret_data,
    deployment_spec,
    monitor_spec,
    own_namespace_labels,
    program_data,
)
from components.observability.stack_values import (
    ADMIN_PASSWORD_KEY,
    ADMIN_USER_KEY,
    DASHBOARD_LABEL_VALUE,
    grafana_service,
    prometheus_service,
    stack_values,
)
from components.pins import OBSERVABILITY_PINS

GRAFANA_ADMIN_SECRET = "gpu-ci-grafana-admin"
GRAFANA_ADMIN_USER = "admin"
PASSWORD_LENGTH = 32


class MonitoringArgs(ComponentArgs):
    config: ObservabilityConfig
    deploy_stack: bool
    """Deploy kube-prometheus-stack (False: `prometheus: existing`, or the recipe has one)."""
    arc: ArcScrape | None = None
    queue: QueueExporterArgs | None = None
    """The queue-time exporter, where the stack runs ARC or VM runners."""
    placement: Placement = Field(default_factory=Placement)
    """Where Prometheus, Grafana and the operator run (an OKE CPU pool)."""
    timeout_s: int = Field(default=900, ge=60, le=3600)


class Monitoring(pulumi.ComponentResource):
    """What makes the GPU CI metrics collected and pictured on one cluster."""

    namespace: k8s.core.v1.Namespace | None
    namespace_name: str
    release: k8s.helm.v3.Release | None
    monitors: list[k8s.apiextensions.CustomResource]
    monitor_names: list[str]
    dashboard: k8s.core.v1.ConfigMap
    dashboard_uid: str = UID
    alerts: k8s.apiextensions.CustomResource | None
    queue_exporter: k8s.apps.v1.Deployment | None

    def __init__(
        self, name: str, args: MonitoringArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-ci:observability:Monitoring", name, None, opts)
        cfg = args.config
        self.namespace_name = cfg.namespace
        after: list[pulumi.Resource] = upstream(opts)
        self.namespace = self.release = None
        if args.deploy_stack:
            self.namespace = k8s.core.v1.Namespace(
                f"{name}-ns",
                metadata={"name": cfg.namespace, "labels": dict(MANAGED_LABELS)},
                opts=child(self, depends_on=after),
            )
            admin = self._admin_secret(name, cfg, [*after, self.namespace])
            self.release = k8s.helm.v3.Release(
                name,
                name=cfg.releaseName,
                chart=OBSERVABILITY_PINS.chart,
                version=cfg.chartVersion,
                repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo=OBSERVABILITY_PINS.repository),
                namespace=cfg.namespace,
                values=stack_values(
                    cfg, admin_secret=GRAFANA_ADMIN_SECRET, placement=args.placement
                ),
                timeout=args.timeout_s,
                max_history=10,
                opts=child(self, depends_on=[*after, self.namespace, admin]),
            )
            after = [*after, self.release]
        self.monitors, self.monitor_names = [], []
        if args.arc is not None:
            for part, spec in (
                ("arc-listeners", listener_monitor_spec(args.arc, cfg.scrapeInterval)),
                ("arc-controller", controller_monitor_spec(args.arc, cfg.scrapeInterval)),
            ):
                self.monitor_names.append(f"gpu-ci-{part}")
                self.monitors.append(
                    k8s.apiextensions.CustomResource(
                        f"{name}-{part}",
                        api_version=MONITORING_API,
                        kind="PodMonitor",
                        metadata={
                            "name": self.monitor_names[-1],
                            "namespace": cfg.namespace,
                            "labels": {**MANAGED_LABELS, **cfg.monitorLabels},
                        },
                        spec=spec,
                        opts=child(self, depends_on=after),
                    )
                )
        self.queue_exporter = None
        if args.queue is not None:
            self.queue_exporter = self._queue_exporter(name, cfg, args.queue, args, after)
        self.dashboard = k8s.core.v1.ConfigMap(
            f"{name}-dashboard-{UID}",
            metadata={
                "name": f"{UID}-dashboard",
                "namespace": cfg.namespace,
                "labels": {**MANAGED_LABELS, cfg.grafana.dashboardLabel: DASHBOARD_LABEL_VALUE},
            },
            data={f"{UID}.json": dashboard_text()},
            opts=child(self, depends_on=after),
        )
        self.alerts = None
        if cfg.alerts.enabled:
            self.alerts = self._alerts(name, cfg, args, after)
        self.register_outputs(
            {
                "namespace": cfg.namespace,
                "prometheus": "deployed" if args.deploy_stack else "existing",
                "grafanaService": grafana_service(cfg) if args.deploy_stack else None,
                "prometheusService": prometheus_service(cfg) if args.deploy_stack else None,
                "dashboards": [UID],
                "monitors": list(self.monitor_names),
                "alerts": RULE_NAME if self.alerts is not None else None,
            }
        )

    def _queue_exporter(
        self,
        name: str,
        cfg: ObservabilityConfig,
        queue: QueueExporterArgs,
        args: MonitoringArgs,
        after: list[pulumi.Resource],
    ) -> k8s.apps.v1.Deployment:
        """Its program and Deployment beside the App Secret, and its PodMonitor."""
        labels = {**MANAGED_LABELS, "app.kubernetes.io/name": QUEUE_EXPORTER}
        data = program_data(queue)
        own = self._queue_app_secret(name, queue, after) if queue.github_app else []
        program = k8s.core.v1.ConfigMap(
            f"{name}-queue-exporter-program",
            metadata={"name": QUEUE_EXPORTER, "namespace": queue.namespace, "labels": labels},
            data=data,
            opts=child(self, depends_on=[*after, *own[:1]]),
        )
        deployment = k8s.apps.v1.Deployment(
            f"{name}-queue-exporter",
            metadata={"name": QUEUE_EXPORTER, "namespace": queue.namespace, "labels": labels},
            spec=deployment_spec(queue, QUEUE_EXPORTER, data, args.placement),
            opts=child(self, depends_on=[*after, *own, program]),
        )
        self.monitor_names.append(QUEUE_EXPORTER)
        self.monitors.append(
            k8s.apiextensions.CustomResource(
                f"{name}-queue-exporter-monitor",
                api_version=MONITORING_API,
                kind="PodMonitor",
                metadata={
                    "name": QUEUE_EXPORTER,
                    "namespace": cfg.namespace,
                    "labels": {**MANAGED_LABELS, **cfg.monitorLabels},
                },
                spec=monitor_spec(queue, cfg.scrapeInterval),
                opts=child(self, depends_on=after),
            )
        )
        return deployment

    def _queue_app_secret(
        self, name: str, queue: QueueExporterArgs, after: list[pulumi.Resource]
    ) -> list[pulumi.Resource]:
        """VM runners: the exporter's namespace and the Secret with their App, a Pulumi
        secret in state (as Grafana's admin Secret); [namespace, secret]."""
        assert queue.github_app is not None
        namespace = k8s.core.v1.Namespace(
            f"{name}-queue-exporter-ns",
            metadata={"name": queue.namespace, "labels": own_namespace_labels()},
            opts=child(self, depends_on=after),
        )
        data = app_secret_data(queue.github_app)
        secret = k8s.core.v1.Secret(
            f"{name}-queue-exporter-github-app",
            metadata={
                "name": queue.secret,
                "namespace": queue.namespace,
                "labels": dict(MANAGED_LABELS),
            },
            type="Opaque",
            string_data={key: pulumi.Output.secret(value) for key, value in data.items()},
            opts=child(
                self,
                depends_on=[*after, namespace],
                additional_secret_outputs=["stringData", "data"],
            ),
        )
        return [namespace, secret]

    def _alerts(
        self,
        name: str,
        cfg: ObservabilityConfig,
        args: MonitoringArgs,
        after: list[pulumi.Resource],
    ) -> k8s.apiextensions.CustomResource:
        """The alert rules, after the stack whose operator defines the PrometheusRule kind."""
        labels = {**MANAGED_LABELS, **cfg.monitorLabels}
        if args.deploy_stack:
            labels["release"] = cfg.releaseName
        return k8s.apiextensions.CustomResource(
            f"{name}-alerts",
            api_version=MONITORING_API,
            kind="PrometheusRule",
            metadata={"name": RULE_NAME, "namespace": cfg.namespace, "labels": labels},
            spec={
                "groups": rule_groups(
                    cfg.alerts, arc=args.arc is not None, queue_time=args.queue is not None
                )
            },
            opts=child(self, depends_on=after),
        )

    def _admin_secret(
        self, name: str, cfg: ObservabilityConfig, after: list[pulumi.Resource]
    ) -> k8s.core.v1.Secret:
        """Grafana's admin credentials, a Pulumi secret in state either way."""
        given = cfg.grafana.adminPassword
        if given is not None:
            password: pulumi.Output[str] = pulumi.Output.secret(given.get_secret_value())
        else:
            password = random.RandomPassword(
                f"{name}-grafana-password",
                length=PASSWORD_LENGTH,
                special=False,
                opts=child(self),
            ).result
        return k8s.core.v1.Secret(
            f"{name}-grafana-admin",
            metadata={
                "name": GRAFANA_ADMIN_SECRET,
                "namespace": cfg.namespace,
                "labels": dict(MANAGED_LABELS),
            },
            string_data={
                ADMIN_USER_KEY: GRAFANA_ADMIN_USER,
                ADMIN_PASSWORD_KEY: password,
            },
            opts=child(self, depends_on=after, additional_secret_outputs=["stringData", "data"]),
        )
