"""ArcController: the gha-runner-scale-set-controller release and the namespaces it serves.

The controller's namespace (`arc-systems`) and the runners' namespace (`arc-runners`, where
the scale sets, their secrets and the cleanup CronJob live) are created here, so that a
destroy removes the scale sets (which depend on this component) before the controller that
clears their finalizers. The chart installs the ARC CRDs; its ServiceAccount is named
explicitly so the scale sets can name it in `controllerServiceAccount`.
"""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from pydantic import Field

from components.arc.controller_config import ControllerConfig
from components.arc.pod_spec import Placement, resources_spec
from components.base import MANAGED_LABELS, ComponentArgs, child, upstream
from components.pins import ARC_PINS

CONTROLLER_CHART = ARC_PINS.controller_chart
METRICS = {
    "controllerManagerAddr": ":8080",
    "listenerAddr": ":8080",
    "listenerEndpoint": "/metrics",
}


def controller_service_account(cfg: ControllerConfig) -> dict[str, str]:
    """The controller's ServiceAccount, named explicitly in both charts' values."""
    return {"namespace": cfg.namespace, "name": f"{cfg.releaseName}-gha-rs-controller"}


def controller_values(cfg: ControllerConfig, placement: Placement) -> dict[str, Any]:
    """The gha-runner-scale-set-controller values."""
    values: dict[str, Any] = {
        "serviceAccount": {"create": True, "name": controller_service_account(cfg)["name"]},
        "resources": resources_spec(cfg.resources),
        "flags": {"runnerMaxConcurrentReconciles": cfg.runnerMaxConcurrentReconciles},
        **placement.pod_fields(),
    }
    if cfg.metrics:
        values["metrics"] = dict(METRICS)
    return values


class ArcControllerArgs(ComponentArgs):
    config: ControllerConfig
    runners_namespace: str
    placement: Placement = Field(default_factory=Placement)
    """Where the controller pod runs (the listeners use the same placement)."""
    timeout_s: int = Field(default=600, ge=60, le=3600)


class ArcController(pulumi.ComponentResource):
    """The controller on the cluster of `opts.provider` (its children inherit it), after
    what `opts.depends_on` names (an OKE cluster's CPU node pool)."""

    namespace: k8s.core.v1.Namespace
    runners_namespace: k8s.core.v1.Namespace
    release: k8s.helm.v3.Release
    service_account: dict[str, str]
    values: dict[str, Any]

    def __init__(
        self, name: str, args: ArcControllerArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-ci:arc:ArcController", name, None, opts)
        cfg = args.config
        after = upstream(opts)
        self.namespace = self._namespace(f"{name}-ns", cfg.namespace, after)
        self.runners_namespace = self._namespace(
            f"{name}-runners-ns", args.runners_namespace, after
        )
        self.service_account = controller_service_account(cfg)
        self.values = controller_values(cfg, args.placement)
        self.release = k8s.helm.v3.Release(
            name,
            name=cfg.releaseName,
            chart=CONTROLLER_CHART,
            version=cfg.chartVersion,
            namespace=cfg.namespace,
            values=self.values,
            timeout=args.timeout_s,
            max_history=10,
            opts=child(self, depends_on=[*after, self.namespace]),
        )
        self.register_outputs(
            {
                "namespace": cfg.namespace,
                "runnersNamespace": args.runners_namespace,
                "chartVersion": cfg.chartVersion,
                "serviceAccount": self.service_account,
                "status": self.release.status,
            }
        )

    def _namespace(
        self, name: str, namespace: str, after: list[pulumi.Resource]
    ) -> k8s.core.v1.Namespace:
        return k8s.core.v1.Namespace(
            name,
            metadata={"name": namespace, "labels": dict(MANAGED_LABELS)},
            opts=child(self, depends_on=after),
        )
