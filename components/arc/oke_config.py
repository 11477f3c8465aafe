"""`gpu-ci:arc.cluster.oke`: what `OkeCluster` (components/arc/oke.py) takes.

An enhanced OKE cluster and its two node pools: CPU nodes for the controller, the listeners
and the VM launchers, and optional A10 nodes for `gpu-pod` scale sets.
"""

from __future__ import annotations

import ipaddress
from typing import Any, Self

from pydantic import Field, ValidationInfo, field_validator, model_validator

from components.arc.k8s_types import NodeLabels
from components.arc.pod_config import Taint
from components.config_base import Cidr, ConfigModel, Ocid
from components.oci.shapes import GPU_SHAPES
from components.oci.vm_config import SHAPE_NAME, AvailabilityDomain

A10_SHAPES = tuple(name for name, shape in GPU_SHAPES.items() if shape.gpuModel == "A10")

_POOL_LABELS = "the nodes' labels (placement selects pools by them)"
_POOL_TAINTS = "the nodes' taints (pods need a toleration)"


class OkePool(ConfigModel):
    """One managed node pool."""

    shape: str = Field(description="the nodes' shape")
    size: int = Field(ge=0, le=100, description="how many nodes")
    # Bounds far above any OCI Flex shape's maximum (the largest have about a hundred OCPUs and
    # a few TB), so a mistyped 100,000,000 is refused at preview, not by OCI mid-update.
    ocpus: float | None = Field(
        default=None, gt=0, le=512, description="OCPUs per node: Flex shapes only, which need it"
    )
    memoryGbs: float | None = Field(
        default=None,
        gt=0,
        le=8192,
        description="memory per node in GB: Flex shapes only, which need it",
    )
    bootVolumeSizeGbs: int = Field(100, ge=50, le=32768, description="boot volume in GB")
    labels: NodeLabels = Field(default_factory=dict, description=_POOL_LABELS)
    taints: list[Taint] = Field(default_factory=list, description=_POOL_TAINTS)
    imageId: Ocid | None = Field(
        None, description="default: the newest OKE image for the Kubernetes version; an OCID"
    )
    availabilityDomains: list[AvailabilityDomain] = Field(
        default_factory=lambda: list[int | str]([0]),
        min_length=1,
        description="the ADs nodes go in (indexes or names)",
    )

    @model_validator(mode="after")
    def _flex(self) -> Self:
        flex = self.shape.endswith(".Flex")
        given = self.ocpus is not None or self.memoryGbs is not None
        if flex and (self.ocpus is None or self.memoryGbs is None):
            raise ValueError(f"{self.shape} is a Flex shape: give ocpus and memoryGbs")
        if not flex and given:
            raise ValueError(f"{self.shape} is a fixed shape: remove ocpus and memoryGbs")
        return self


class OkeCpuPool(OkePool):
    """Controller, listeners and VM launchers run here."""

    shape: str = Field(
        "VM.Standard.E5.Flex", pattern=SHAPE_NAME.pattern, description="the nodes' shape"
    )
    size: int = Field(2, ge=1, le=100, description="how many nodes")
    labels: NodeLabels = Field(
        default_factory=lambda: {"gpu-ci/pool": "cpu"}, description=_POOL_LABELS
    )

    @model_validator(mode="before")
    @classmethod
    def _flex_defaults(cls, data: Any) -> Any:
        """A Flex shape (the default one included) gets 2 OCPUs and 16 GB unless given."""
        if isinstance(data, dict) and str(data.get("shape", "VM.Standard.E5.Flex")).endswith(
            ".Flex"
        ):
            return {"ocpus": 2, "memoryGbs": 16, **data}
        return data


class OkeGpuPool(OkePool):
    """A10 nodes for gpu-pod scale sets; the recipe engine's OKE overlay (oke-a10) deploys
    the GPU operator onto them (OKE's GPU images carry the driver)."""

    shape: str = Field("VM.GPU.A10.1", description=f"an A10 shape: {', '.join(A10_SHAPES)}")
    size: int = Field(1, ge=0, le=100, description="how many nodes")
    bootVolumeSizeGbs: int = Field(200, ge=50, le=32768, description="boot volume in GB")
    labels: NodeLabels = Field(
        default_factory=lambda: {"gpu-ci/pool": "gpu", "nvidia.com/gpu.present": "true"},
        description=_POOL_LABELS,
    )
    taints: list[Taint] = Field(
        default_factory=lambda: [Taint(key="nvidia.com/gpu", value="present")],
        description=_POOL_TAINTS,
    )

    @field_validator("shape")
    @classmethod
    def _a10(cls, shape: str) -> str:
        if shape not in A10_SHAPES:
            raise ValueError(f"the GPU pool takes an A10 shape: {', '.join(A10_SHAPES)}")
        return shape


class OkeConfig(ConfigModel):
    """An enhanced OKE cluster in gpu-ci:network's VCN and subnet (endpoint, nodes and load
    balancers share the subnet; the API endpoint is reachable from
    gpu-ci:network.apiSourceCidrs)."""

    name: str | None = Field(
        None,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,254}$",
        description="default: `PROJECT-STACK`; the cluster's name",
    )
    kubernetesVersion: str = Field(
        pattern=r"^v1\.[0-9]+\.[0-9]+$", description="the cluster's Kubernetes, `v1.X.Y`"
    )
    publicEndpoint: bool = Field(
        True, description="a public API endpoint (open to `network.apiSourceCidrs` only)"
    )
    podsCidr: Cidr = Field(
        "10.244.0.0/16", description="the pods' network (apart from the VCN and servicesCidr)"
    )
    servicesCidr: Cidr = Field(
        "10.96.0.0/16", description="the services' network (apart from the VCN and podsCidr)"
    )
    cpuPool: OkeCpuPool = Field(
        default_factory=OkeCpuPool,
        description="CPU nodes: the controller, listeners and VM launchers",
    )
    gpuPool: OkeGpuPool | None = Field(
        None, description="required for `gpu-pod` scale sets; A10 nodes for them"
    )

    @field_validator("servicesCidr")
    @classmethod
    def _apart_from_pods(cls, services: str, info: ValidationInfo) -> str:
        """A Service's cluster IP that is also a pod's address reaches one or the other:
        the two ranges are disjoint (cilium/cilium#31504: overlapping pod and service CIDRs
        "usually breaks the cluster utterly"); the VCN's side is checked with gpu-ci:network
        (stacks/config/capacity.py)."""
        pods = info.data.get("podsCidr")
        if pods is not None and cidrs_overlap(pods, services):
            raise ValueError(
                f"{services} overlaps podsCidr {pods}: a Service's cluster IP would also be a "
                "pod's address; give pods and services separate blocks (the defaults: "
                "10.244.0.0/16 and 10.96.0.0/16)"
            )
        return services


def cidrs_overlap(one: str, other: str) -> bool:
    """Whether two CIDR blocks share an address (blocks of different IP versions share none)."""
    a, b = ipaddress.ip_network(one), ipaddress.ip_network(other)
    return a.version == b.version and a.overlaps(b)
