"""Graph assembly of observability: the metrics, their collection and the dashboards.

Where Prometheus comes from decides the order:
- gpu-ci deploys it (`prometheus: deploy`, no kube-prometheus-stack in the recipe): the
  monitoring component comes first, because its CRDs are what the GPU operator's DCGM
  ServiceMonitor needs; the platform waits for it;
- the recipe deploys kube-prometheus-stack: the platform comes first (the recipe orders its
  own components), the monitors and dashboards after it;
- `prometheus: existing`: the CRDs are already there; monitoring comes first, as above.
The GPU operator's exporter gets its ServiceMonitor through the recipe's values
(`dcgmExporter.serviceMonitor`), under what `gpu-ci:platform.set` says.
"""

from __future__ import annotations

import pulumi

from components.arc.pod_spec import Placement
from components.observability.monitoring import Monitoring, MonitoringArgs
from components.observability.monitors import ArcScrape
from components.observability.queries import USAGE_QUERIES
from components.observability.stack_values import grafana_service, prometheus_service
from components.platform.overrides import PlatformOverrides
from stacks.config import StackConfig
from stacks.config.recipe import PreparedPlatform
from stacks.outputs import Export, ObservabilityOutputs

RECIPE_STACK = "kube-prometheus-stack"
GPU_OPERATOR = "gpu-operator"
GRAFANA_PORT, PROMETHEUS_PORT = 80, 9090


def recipe_has_stack(prepared: PreparedPlatform | None) -> bool:
    """Whether the recipe deploys kube-prometheus-stack (and config does not disable it)."""
    if prepared is None or prepared.recipe.component(RECIPE_STACK) is None:
        return False
    return prepared.overrides.is_enabled(RECIPE_STACK)


def deploys_stack(cfg: StackConfig, prepared: PreparedPlatform | None) -> bool:
    return cfg.observability.prometheus == "deploy" and not recipe_has_stack(prepared)


def with_dcgm_monitor(cfg: StackConfig, prepared: PreparedPlatform) -> PlatformOverrides:
    """The platform's overrides with the GPU operator's DCGM ServiceMonitor on, scraped as
    often as the rest and labelled for Prometheus's selectors; what config sets wins. A
    recipe without the operator (or config disabling it) is left as it is.

    `honorLabels` keeps the exporter's `namespace`/`pod`/`container` (the pod holding the
    GPU) as they are; without it Prometheus renames them `exported_*` (AICR sets it too)."""
    obs = cfg.observability
    monitor = {
        "enabled": True,
        "interval": obs.scrapeInterval,
        "honorLabels": True,
        "additionalLabels": dict(obs.monitorLabels),
    }
    overrides = prepared.overrides
    if prepared.recipe.component(GPU_OPERATOR) is None or not overrides.is_enabled(GPU_OPERATOR):
        return overrides
    return overrides.over(GPU_OPERATOR, {"dcgmExporter": {"serviceMonitor": monitor}})


def build_observability_layer(
    cfg: StackConfig,
    prepared: PreparedPlatform | None,
    provider: pulumi.ProviderResource,
    *,
    after: list[pulumi.Resource],
    placement: Placement | None = None,
) -> Monitoring:
    obs = cfg.observability
    if recipe_has_stack(prepared):  # its monitors and dashboards go where the recipe puts it
        assert prepared is not None
        component = prepared.recipe.component(RECIPE_STACK)
        if component is not None and component.namespace:
            obs = obs.model_copy(update={"namespace": component.namespace})
    arc = None
    if cfg.arc is not None:
        arc = ArcScrape(controller_namespace=cfg.arc.controller.namespace)
    return Monitoring(
        "monitoring",
        MonitoringArgs(
            config=obs,
            deploy_stack=deploys_stack(cfg, prepared),
            arc=arc,
            placement=placement or Placement(),
        ),
        pulumi.ResourceOptions(provider=provider, depends_on=after),
    )


def observability_exports(
    cfg: StackConfig, prepared: PreparedPlatform | None, monitoring: Monitoring
) -> Export:
    obs = cfg.observability
    deployed = deploys_stack(cfg, prepared)
    forward = []
    if deployed:
        forward = [
            f"kubectl -n {obs.namespace} port-forward svc/{grafana_service(obs)} "
            f"3000:{GRAFANA_PORT}",
            f"kubectl -n {obs.namespace} port-forward svc/{prometheus_service(obs)} "
            f"{PROMETHEUS_PORT}:{PROMETHEUS_PORT}",
        ]
    source = "deployed" if deployed else ("recipe" if recipe_has_stack(prepared) else "existing")
    outputs = ObservabilityOutputs(
        namespace=monitoring.namespace_name,
        prometheus=source,
        grafanaService=grafana_service(obs) if deployed else None,
        prometheusService=prometheus_service(obs) if deployed else None,
        portForward=forward,
        dashboards=[monitoring.dashboard_uid],
        monitors=list(monitoring.monitor_names),
        usageQueries={key: q.expr for key, q in USAGE_QUERIES.items()},
    )
    return pulumi.Output.from_input(outputs.model_dump())
