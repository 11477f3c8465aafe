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

from typing import TYPE_CHECKING

import pulumi

from components.arc.capacity_config import ArcConfig
from components.arc.pod_spec import Placement
from components.observability.monitoring import Monitoring, MonitoringArgs
from components.observability.monitors import ArcScrape
from components.observability.observability_config import ObservabilityConfig
from components.observability.queries import USAGE_QUERIES
from components.observability.queue_deploy import OWN_NAMESPACE, OWN_SECRET, QueueExporterArgs
from components.observability.queue_time_config import runner_repository
from components.observability.stack_values import grafana_service, prometheus_service
from components.platform.releases.overrides import PlatformOverrides
from recipes.model.overlays import ComponentRef
from stacks.config.recipe import PreparedPlatform
from stacks.outputs import Export, ObservabilityOutputs

if TYPE_CHECKING:
    from stacks.layers.host import PreparedHosts

RECIPE_STACK = "kube-prometheus-stack"
GPU_OPERATOR = "gpu-operator"
GRAFANA_PORT, PROMETHEUS_PORT = 80, 9090


def recipe_has_stack(prepared: PreparedPlatform | None) -> bool:
    """Whether the recipe deploys kube-prometheus-stack (and config does not disable it)."""
    return _recipe_stack(prepared) is not None


def _recipe_stack(prepared: PreparedPlatform | None) -> ComponentRef | None:
    """The recipe's kube-prometheus-stack, unless config disables it."""
    if prepared is None or not prepared.overrides.is_enabled(RECIPE_STACK):
        return None
    return prepared.recipe.component(RECIPE_STACK)


def deploys_stack(obs: ObservabilityConfig, prepared: PreparedPlatform | None) -> bool:
    return obs.prometheus == "deploy" and not recipe_has_stack(prepared)


def with_dcgm_monitor(obs: ObservabilityConfig, prepared: PreparedPlatform) -> PlatformOverrides:
    """The platform's overrides with the GPU operator's DCGM ServiceMonitor on, scraped as
    often as the rest and labelled for Prometheus's selectors; what config sets wins. A
    recipe without the operator (or config disabling it) is left as it is.

    `honorLabels` keeps the exporter's `namespace`/`pod`/`container` (the pod holding the
    GPU) as they are; without it Prometheus renames them `exported_*` (AICR sets it too)."""
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


def queue_exporter(
    obs: ObservabilityConfig, arc: ArcConfig | None, hosts: PreparedHosts | None = None
) -> QueueExporterArgs | None:
    """The queue-time exporter (unless `queueTime.enabled: false`). Where the stack runs
    ARC: beside the scale sets' App Secret, `existingSecret` or the first set's
    `<name>-github-app` (components/arc/scale_set.py names it so; every set's holds the same
    App). Else where it registers VM runners of an organization or repository: with a
    Secret of its own holding their App, watching the labels they register with
    (`hosts.runners`, as the host layer computes them) and, when their URL names a
    repository, that repository (they take no other's jobs)."""
    queue = obs.queueTime
    if queue.enabled is False:
        return None
    if arc is not None:
        secret = arc.existingSecret or f"{arc.scaleSets[0].name}-github-app"
        labels = tuple(queue.labels or [s.name for s in arc.scaleSets])
        return QueueExporterArgs(
            namespace=arc.runnersNamespace, secret=secret, labels=labels, config=queue
        )
    runner = hosts.config.runner if hosts is not None else None
    if hosts is None or runner is None or not hosts.runners:
        return None
    registered = hosts.runners[0]  # every host's runner has the same labels and URL
    if registered.github_scope.startswith("enterprises/"):
        return None  # an enterprise's installation reads no repository (stacks/config/stack.py)
    repository = runner_repository(registered.github_url)
    if repository is not None:
        queue = queue.model_copy(update={"repositories": [repository]})
    return QueueExporterArgs(
        namespace=OWN_NAMESPACE,
        secret=OWN_SECRET,
        labels=tuple(queue.labels or registered.runner_labels),
        config=queue,
        github_app=runner.githubApp,
    )


def build_observability_layer(
    obs: ObservabilityConfig,
    prepared: PreparedPlatform | None,
    provider: pulumi.ProviderResource,
    *,
    arc: ArcConfig | None,
    after: list[pulumi.Resource],
    placement: Placement | None = None,
    hosts: PreparedHosts | None = None,
) -> Monitoring:
    """`arc`: the ARC whose controller and listeners are scraped too, when the stack has it.
    `hosts`: the host layer, whose VM runners' queue time is measured where there is no ARC."""
    deploy_stack = deploys_stack(obs, prepared)
    component = _recipe_stack(prepared)  # its monitors and dashboards go where it is
    if component is not None and component.namespace:
        obs = obs.model_copy(update={"namespace": component.namespace})
    scrape = None
    if arc is not None:
        scrape = ArcScrape(controller_namespace=arc.controller.namespace)
    return Monitoring(
        "monitoring",
        MonitoringArgs(
            config=obs,
            deploy_stack=deploy_stack,
            arc=scrape,
            queue=queue_exporter(obs, arc, hosts),
            placement=placement or Placement(),
        ),
        pulumi.ResourceOptions(provider=provider, depends_on=after),
    )


def observability_exports(
    obs: ObservabilityConfig, prepared: PreparedPlatform | None, monitoring: Monitoring
) -> Export:
    deployed = deploys_stack(obs, prepared)
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
