"""`gpu-ci:arc.controller`: what `ArcController` (components/arc/controller.py) takes.

The chart version set here is that of both ARC charts: the scale sets must match the
controller that reconciles them.
"""

from __future__ import annotations

from pydantic import Field

from components.arc.k8s_types import K8sName, NodeLabels
from components.arc.pod_config import ResourceList, Resources, Toleration
from components.config_base import ConfigModel
from components.pins import ARC_PINS


class ControllerConfig(ConfigModel):
    """The gha-runner-scale-set-controller release."""

    chartVersion: str = Field(
        ARC_PINS.chart_version,
        pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$",
        description="the version of both ARC charts (controller and scale sets)",
    )
    namespace: K8sName = Field("arc-systems", description="the controller's namespace")
    releaseName: K8sName = Field("arc", description="the controller's Helm release")
    resources: Resources = Field(
        default_factory=lambda: Resources(
            requests=ResourceList(cpu="100m", memory="128Mi"),
            limits=ResourceList(memory="512Mi"),
        ),
        description="the controller's requests and limits",
    )
    metrics: bool | None = Field(
        None,
        description="default: on with gpu-ci:observability; serve controller and listener "
        "metrics on :8080",
    )
    runnerMaxConcurrentReconciles: int = Field(
        10, ge=1, le=100, description="EphemeralRunner reconciles in parallel (chart: 2)"
    )
    nodeSelector: NodeLabels | None = Field(
        None,
        description="default: the OKE CPU pool's labels (none elsewhere); where the "
        "controller, the listeners and the cleanup job run",
    )
    tolerations: list[Toleration] | None = Field(
        None, description="default: for the OKE CPU pool's taints (none elsewhere); theirs"
    )
