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

from components.arc.arc_config import ControllerConfig
from components.arc.values import (
    CONTROLLER_CHART,
    Placement,
    controller_service_account,
    controller_values,
)
from components.base import ComponentArgs, child

MANAGED_LABELS = {"app.kubernetes.io/managed-by": "gpu-ci"}


class ArcControllerArgs(ComponentArgs):
    provider: k8s.Provider
    config: ControllerConfig
    runners_namespace: str
    placement: Placement = Field(default_factory=Placement)
    """Where the controller pod runs (the listeners use the same placement)."""
    depends_on: list[pulumi.Resource] = Field(default_factory=list)
    """What must exist first (an OKE cluster's CPU node pool)."""
    timeout_s: int = Field(default=600, ge=60, le=3600)


class ArcController(pulumi.ComponentResource):
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
        provider = args.provider
        self.namespace = self._namespace(f"{name}-ns", cfg.namespace, provider, args.depends_on)
        self.runners_namespace = self._namespace(
            f"{name}-runners-ns", args.runners_namespace, provider, args.depends_on
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
            opts=child(self, provider=provider, depends_on=[*args.depends_on, self.namespace]),
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
        self, name: str, namespace: str, provider: k8s.Provider, after: list[pulumi.Resource]
    ) -> k8s.core.v1.Namespace:
        return k8s.core.v1.Namespace(
            name,
            metadata={"name": namespace, "labels": dict(MANAGED_LABELS)},
            opts=child(self, provider=provider, depends_on=after),
        )
