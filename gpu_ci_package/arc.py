"""ArcRunnerScaleSets: ARC's controller and GPU runner scale sets on an existing cluster:
the program's `arc` capacity layer, from any Pulumi language."""

from typing import Any, NotRequired, TypedDict

import pulumi

from gpu_ci_package.arc_inputs import (
    ArcClusterInput,
    ArcControllerInput,
    FailedRunnerCleanupInput,
    GpuScaleSetInput,
)
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
from gpu_ci_package.inputs import GithubAppInput

TYPE = "gpu-ci:index:ArcRunnerScaleSets"
GPU_POD = "gpu-pod"
"""The scale set kind this component takes (`components/arc/scale_set_config.py`)."""


class ArcRunnerScaleSetsArgs(TypedDict):
    """The cluster, the GitHub App and the scale sets: the `gpu-ci:arc` keys."""

    cluster: ArcClusterInput
    """The cluster ARC runs on: a kubeconfig, or another stack's cluster."""
    scaleSets: list[GpuScaleSetInput]
    """The GPU runner scale sets."""
    githubApp: NotRequired[GithubAppInput]
    """The GitHub App the listeners and runners authenticate with (or `existingSecret`)."""
    existingSecret: NotRequired[str]
    """A Secret in the runners' namespace holding the App's credentials, instead."""
    controller: NotRequired[ArcControllerInput]
    """ARC's controller."""
    runnersNamespace: NotRequired[str]
    """The namespace of the scale sets and their runners (default `arc-runners`)."""
    failedRunnerCleanup: NotRequired[FailedRunnerCleanupInput]
    """A CronJob deleting Failed EphemeralRunners."""
    metrics: NotRequired[bool]
    """Deploy the job metrics, Prometheus and the GPU CI dashboard (default true)."""


class ArcRunnerScaleSets(pulumi.ComponentResource):
    """GitHub Actions Runner Controller (the pinned gha-runner-scale-set charts) and one
    runner scale set per entry, each runner a pod with its GPUs, scaling to zero."""

    scaleSets: pulumi.Output[list[str]]
    """The scale sets' names, the labels jobs use in `runs-on`."""
    controller: pulumi.Output[dict[str, str]]
    """The controller's release, namespace and service account."""
    runnersNamespace: pulumi.Output[str]
    """The namespace the runners run in."""
    arc: pulumi.Output[dict[str, Any]]
    """The ARC export (contract v1): cluster source, controller, each scale set's labels,
    group and bounds."""
    cost: pulumi.Output[dict[str, Any]]
    """The monthly compute estimate of the scale sets."""

    def __init__(
        self, name: str, args: ArcRunnerScaleSetsArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        given = args_of(TYPE, name, args, ArcRunnerScaleSetsArgs)
        metrics = given.pop("metrics", None)
        sets = given.get("scaleSets")
        if isinstance(sets, list):
            given["scaleSets"] = [
                {"kind": GPU_POD, **s} if isinstance(s, dict) else s for s in sets
            ]
        inputs = stack_inputs(
            {"capacity": "arc", "arc": given, "observability": observability(metrics)}
        )
        paths = under("arc.", rename=OBSERVABILITY)
        config = checked(TYPE, name, inputs, paths)
        super().__init__(TYPE, name, None, opts)
        layers = register_layers(self, TYPE, name, config, inputs, paths).layers
        export = layers["capacity"]
        self.scaleSets = field(export, "scaleSets").apply(
            lambda sets: [s["name"] for s in sets or []]
        )
        self.controller = field(export, "controller")
        self.runnersNamespace = field(export, "runnersNamespace")
        self.arc = pulumi.Output.from_input(export)
        self.cost = pulumi.Output.from_input(layers["cost"])
        self.register_outputs(
            {
                "scaleSets": self.scaleSets,
                "controller": self.controller,
                "runnersNamespace": self.runnersNamespace,
                "arc": self.arc,
                "cost": self.cost,
            }
        )
