"""RecipePlatform: a recipe (criteria, or catalogs) resolved and deployed onto a cluster
another stack exports: the program's platform layer, from any Pulumi language."""

from typing import Any, NotRequired, TypedDict

import pulumi

from gpu_ci_package.build import (
    OBSERVABILITY,
    args_of,
    checked,
    field,
    observability,
    register_layers,
    stack_inputs,
    under,
)

TYPE = "gpu-ci:index:RecipePlatform"


class RecipePlatformArgs(TypedDict):
    """The recipe's criteria (or catalogs) and the cluster: the `gpu-ci:platform` keys."""

    clusterStack: str
    """The stack (`org/project/stack`) exporting the cluster (`cluster`, `kubeconfig`)
    to deploy onto, as a GpuCluster's stack or the Python program's exports it."""
    service: NotRequired[str]
    """The recipe criterion `service` (default `kind`)."""
    accelerator: NotRequired[str]
    """The GPU model criterion (`a10`, `h100`, ...; default: the cluster stack's)."""
    os: NotRequired[str]
    """The OS criterion."""
    intent: NotRequired[str]
    """`training` (default) or `inference`."""
    platform: NotRequired[str]
    """The platform criterion (default `kubeflow`)."""
    catalogs: NotRequired[list[str]]
    """Recipe catalog folders read before gpu-ci's own (AICR's format)."""
    set: NotRequired[list[str]]
    """Overrides, `component:path=value`, each checked against the pinned chart's values."""
    runtimeClassPatch: NotRequired[bool]
    """Patch the Trainer runtimes with `runtimeClassName: nvidia` (default: when needed)."""
    deploymentChecks: NotRequired[bool]
    """Run the health checks after deploying (default true)."""
    metrics: NotRequired[bool]
    """Deploy the GPU metrics and dashboard with the platform (default true)."""


class RecipePlatform(pulumi.ComponentResource):
    """The recipe's Helm releases in its deployment order, its manifests, the Trainer
    runtime patch, and the checks after deploying (a GPU pod, Chainsaw health checks)."""

    releases: pulumi.Output[list[str]]
    """The recipe's components released, in deployment order."""
    checks: pulumi.Output[list[str]]
    """The health checks run after deploying."""
    appliedOverlays: pulumi.Output[list[str]]
    """The recipe overlays the criteria matched."""
    platform: pulumi.Output[dict[str, Any]]
    """The platform export (contract v1): criteria, overlays, releases with their charts
    and versions, checks, constraints."""

    def __init__(
        self, name: str, args: RecipePlatformArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        given = args_of(TYPE, name, args, RecipePlatformArgs)
        metrics = given.pop("metrics", None)
        inputs = stack_inputs({"platform": given or None, "observability": observability(metrics)})
        paths = under("platform.", rename=OBSERVABILITY)
        config = checked(TYPE, name, inputs, paths)
        super().__init__(TYPE, name, None, opts)
        layers = register_layers(self, TYPE, name, config, inputs, paths).layers
        export = layers["platform"]
        self.releases = field(export, "deploymentOrder")
        self.checks = field(export, "checks").apply(lambda checks: sorted(checks or {}))
        self.appliedOverlays = field(export, "appliedOverlays")
        self.platform = pulumi.Output.from_input(export)
        self.register_outputs(
            {
                "releases": self.releases,
                "checks": self.checks,
                "appliedOverlays": self.appliedOverlays,
                "platform": self.platform,
            }
        )
