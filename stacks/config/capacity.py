"""The capacity keys of a stack: how GPUs are provided, and where OCI resources go.

`capacity` picks the layer (`vm`, `arc` or `none`); `vm` and `arc` configure it, and
`compartmentId`, `tenancyId`, `owner` and `network` say where what it creates goes and who
pays for it. `StackConfig` (stack.py) adds the layers on top. Conditional requirements are
field validators (fields are declared after what they depend on), so that every problem is
reported in one pass, under its own key.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, ValidationInfo, field_validator

from components.arc.capacity_config import ArcConfig
from components.arc.oke_config import cidrs_overlap
from components.config_base import ConfigModel, Ocid
from components.oci.network_config import NetworkConfig
from components.oci.vm_config import VmCapacityConfig
from stacks.config.problems import KeyedError

CapacityKind = Literal["vm", "arc", "none"]
OCID = re.compile(r"ocid1\.[a-z0-9]+\.[a-z0-9]+\.[a-z0-9-]*(\.[a-z0-9-]+)?\.[a-z0-9]+")
"""An OCID as OCI documents it: ocid1.<type>.<realm>.[region][.future].<unique id>."""
_NULLS = ("", "none", "null", "~")
"""How a YAML null reaches the program as text (the offline plan: 'None'; the CLI: '')."""

# Why a key is needed once the stack creates OCI resources, and how to set it.
_WHY = {
    "compartmentId": "the OCI compartment the VMs and network go in "
    "(pulumi config set gpu-ci:compartmentId ocid1.compartment...)",
    "owner": "every GPU instance is tagged with the team or person who pays for it "
    "(pulumi config set gpu-ci:owner my-team)",
}


class CapacityKeys(ConfigModel):
    """The keys that choose the capacity layer and place its OCI resources."""

    capacity: CapacityKind = Field(
        "none",
        description="`vm`: OCI GPU VMs as self-hosted runners; `arc`: ARC runner scale sets; "
        "`none`: no capacity layer",
    )
    vm: VmCapacityConfig | None = Field(
        None,
        description="default: `{}` with `capacity: vm`; the GPU VMs, each a self-hosted runner",
    )
    arc: ArcConfig | None = Field(
        None,
        description="required when `capacity: arc`; ARC's controller, cluster and scale sets",
    )
    compartmentId: Ocid | None = Field(
        None,
        description="required when `capacity: vm`, or `arc` creates OKE or a network or "
        "launches VMs without their own; the OCI compartment of what this stack creates",
    )
    tenancyId: Ocid | None = Field(
        None,
        description="required when `vm.availabilityDomains` lists several; the tenancy (root "
        "compartment), where the capacity reports that pick an AD are made",
    )
    owner: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,62}$",
        description="required when `capacity: vm`, or `arc` creates OKE or a network; who "
        "pays: every OCI resource is tagged `gpu-ci-owner` with it",
    )
    network: NetworkConfig = Field(
        default_factory=NetworkConfig,
        description="the VCN and subnet of the VMs (and OKE), and who may reach them",
    )

    @field_validator("compartmentId", "tenancyId", mode="before")
    @classmethod
    def _strict_ocid(cls, value: object) -> object:
        if isinstance(value, str) and not OCID.fullmatch(value):
            raise ValueError(
                f"{value!r} is not an OCI OCID: ocid1.<type>.<realm>.[region][.future]."
                "<unique id>, each part lowercase letters and digits (a region may hold "
                "'-'); copy it from the OCI console (Identity > Compartments, or Tenancy)"
            )
        return value

    @field_validator("owner", mode="before")
    @classmethod
    def _owner_not_null(cls, value: object) -> object:
        if isinstance(value, str) and value.strip().casefold() in _NULLS:
            raise ValueError(
                "is empty: `owner: ~` or `owner:` with no value is YAML null, which Pulumi "
                f"hands the program as text, not a name; {_WHY['owner']}"
            )
        return value

    @field_validator("vm")
    @classmethod
    def _vm_matches_capacity(
        cls, vm: VmCapacityConfig | None, info: ValidationInfo
    ) -> VmCapacityConfig | None:
        capacity = info.data.get("capacity")
        if capacity == "vm":
            return vm or VmCapacityConfig()
        if vm is not None and capacity is not None:
            raise ValueError(
                f"set, but gpu-ci:capacity is {capacity!r}; set gpu-ci:capacity to 'vm' "
                "or remove gpu-ci:vm"
            )
        return vm

    @field_validator("arc")
    @classmethod
    def _arc_matches_capacity(cls, arc: ArcConfig | None, info: ValidationInfo) -> ArcConfig | None:
        capacity = info.data.get("capacity")
        if capacity == "arc" and arc is None:
            raise ValueError(
                "required when gpu-ci:capacity is 'arc': the cluster and the runner scale sets "
                "(see Pulumi.arc.yaml)"
            )
        if arc is not None and capacity is not None and capacity != "arc":
            raise ValueError(
                f"set, but gpu-ci:capacity is {capacity!r}; set gpu-ci:capacity to 'arc' "
                "or remove gpu-ci:arc"
            )
        return arc

    @field_validator("compartmentId", "owner")
    @classmethod
    def _required_for_oci(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None and info.data.get("capacity") == "vm":
            assert info.field_name is not None
            raise ValueError(f"required when gpu-ci:capacity is 'vm': {_WHY[info.field_name]}")
        arc = info.data.get("arc")
        if value is None and arc is not None:
            assert info.field_name is not None
            if info.field_name == "owner" and arc.needs_network:
                raise ValueError(
                    "required when gpu-ci:arc creates OCI resources (an OKE cluster, or the "
                    f"network of launched VMs without a subnetId): {_WHY['owner']}"
                )
            if info.field_name == "compartmentId" and arc.needs_compartment:
                raise ValueError(
                    "required when gpu-ci:arc creates OCI resources or launches VMs without "
                    f"their own compartmentId: {_WHY['compartmentId']}"
                )
        return value

    @field_validator("network")
    @classmethod
    def _oke_apart_from_the_vcn(cls, network: NetworkConfig, info: ValidationInfo) -> NetworkConfig:
        """OKE: "The CIDR block you specify for the VCN and subnets must not overlap with the
        CIDR block you specify for the Kubernetes services and pods" (OCI documentation, CIDR
        Blocks and Kubernetes Engine (OKE), docs.oracle.com/en-us/iaas/Content/ContEng/
        Concepts/contengcidrblocks.htm). An OKE cluster created here is in this VCN (its
        subnet is inside it); an existing subnet's VCN is not known here."""
        arc = info.data.get("arc")
        oke = arc.cluster.oke if arc is not None else None
        if oke is None or network.existingSubnetId is not None:
            return network
        for name in ("podsCidr", "servicesCidr"):
            cidr = getattr(oke, name)
            if cidrs_overlap(cidr, network.vcnCidr):
                raise KeyedError(
                    f"arc.cluster.oke.{name}",
                    f"overlaps gpu-ci:network.vcnCidr {network.vcnCidr}, the VCN of the OKE "
                    "cluster's nodes and load balancers; OKE takes pod and service blocks "
                    "apart from the VCN and its subnets (the defaults, 10.244.0.0/16 and "
                    "10.96.0.0/16, are apart from the default VCN 10.0.0.0/16)",
                    cidr,
                )
        return network

    @field_validator("tenancyId")
    @classmethod
    def _tenancy_for_fallbacks(cls, value: str | None, info: ValidationInfo) -> str | None:
        vm = info.data.get("vm")
        if value is None and vm is not None and len(vm.availabilityDomains) > 1:
            raise ValueError(
                "required when gpu-ci:vm.availabilityDomains lists fallbacks: capacity "
                "reports that pick the first AD with free capacity are made in the root "
                "compartment (pulumi config set gpu-ci:tenancyId ocid1.tenancy...)"
            )
        return value
