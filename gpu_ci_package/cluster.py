"""GpuCluster: an nvkind GPU cluster on a bootstrapped host, and optionally the recipe
platform on it: the program's host, cluster and platform layers, from any Pulumi language."""

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
from gpu_ci_package.host import capacity_of
from gpu_ci_package.inputs import (
    ClusterInput,
    HostInput,
    NetworkInput,
    PlatformInput,
    RunnerInput,
    VmInput,
)

TYPE = "gpu-ci:index:GpuCluster"


class GpuClusterArgs(TypedDict):
    """The host, the cluster on it and, optionally, the platform: each a `gpu-ci:` key."""

    host: HostInput
    """The one host the cluster runs on (target `oci-vm`, `ssh` or `local`)."""
    cluster: ClusterInput
    """The nvkind cluster: its name, node image and how GPUs map to workers."""
    platform: NotRequired[PlatformInput]
    """A recipe deployed onto the cluster (criteria, or catalogs)."""
    runner: NotRequired[RunnerInput]
    """Register the host as a GitHub self-hosted runner too."""
    vm: NotRequired[VmInput]
    """Target `oci-vm`: the GPU VM this component creates (count 1)."""
    network: NotRequired[NetworkInput]
    """Target `oci-vm`: the VM's network (list the deployers in `apiSourceCidrs`)."""
    compartmentId: NotRequired[str]
    """Target `oci-vm`: the compartment OCID of every OCI resource."""
    tenancyId: NotRequired[str]
    """Target `oci-vm`: the tenancy OCID (capacity reports across availability domains)."""
    owner: NotRequired[str]
    """Target `oci-vm`: who pays, the `gpu-ci-owner` tag."""
    metrics: NotRequired[bool]
    """Deploy the GPU metrics and dashboard with the platform (default: with a platform)."""


class GpuCluster(pulumi.ComponentResource):
    """A kind cluster with GPUs (nvkind) on a bootstrapped host, waited for until its nodes
    are Ready and advertise their GPUs; with `platform`, the recipe's Helm releases and
    their health checks on it."""

    kubeconfig: pulumi.Output[str]
    """The cluster's kubeconfig, a secret: pass it to a Kubernetes provider."""
    clusterName: pulumi.Output[str]
    """The kind cluster's name."""
    nodeImage: pulumi.Output[str]
    """The kind node image, by digest."""
    kubernetesVersion: pulumi.Output[str]
    """The nodes' Kubernetes version."""
    gpuCount: pulumi.Output[int | None]
    """The host's GPUs, where known (the VM shape's or `host.gpus`)."""
    cluster: pulumi.Output[dict[str, Any]]
    """The cluster export (contract v1), what another stack reads."""
    host: pulumi.Output[dict[str, Any]]
    """The host export (contract v1)."""
    platform: pulumi.Output[dict[str, Any] | None]
    """With `platform`: the recipe's export (criteria, releases, checks, constraints)."""
    cost: pulumi.Output[dict[str, Any] | None]
    """Target `oci-vm`: the monthly compute estimate."""

    def __init__(
        self, name: str, args: GpuClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        keys = args_of(TYPE, name, args, GpuClusterArgs)
        keys["observability"] = observability(keys.pop("metrics", None))
        inputs = stack_inputs(keys)
        inputs.values["capacity"] = capacity_of(inputs.values.get("host"))
        paths = under("", rename=OBSERVABILITY)
        config = checked(TYPE, name, inputs, paths)
        super().__init__(TYPE, name, None, opts)
        layers = register_layers(self, TYPE, name, config, inputs, paths).layers
        contract = layers["cluster"]
        kubeconfig: Any = layers["kubeconfig"]  # the cluster's, a secret Output of its text
        self.kubeconfig = pulumi.Output.secret(kubeconfig)
        self.clusterName = field(contract, "name")
        self.nodeImage = field(contract, "nodeImage")
        self.kubernetesVersion = field(contract, "kubernetesVersion")
        self.gpuCount = field(contract, "gpuCount")
        self.cluster = pulumi.Output.from_input(contract)
        self.host = pulumi.Output.from_input(layers["host"])
        self.platform = pulumi.Output.from_input(layers.get("platform"))
        self.cost = pulumi.Output.from_input(layers.get("cost"))
        self.register_outputs(
            {
                "kubeconfig": self.kubeconfig,
                "clusterName": self.clusterName,
                "nodeImage": self.nodeImage,
                "kubernetesVersion": self.kubernetesVersion,
                "gpuCount": self.gpuCount,
                "cluster": self.cluster,
                "host": self.host,
                "platform": self.platform,
                "cost": self.cost,
            }
        )
