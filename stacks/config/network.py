"""`gpu-ci:network`: where the GPU VMs live and who may reach them."""

from __future__ import annotations

import ipaddress

from pydantic import Field, ValidationInfo, field_validator

from stacks.config.base import Cidr, ConfigModel, Ocid, is_world


class NetworkConfig(ConfigModel):
    """A new VCN and public subnet, or an existing subnet reused by OCID.

    Ingress is closed by default: SSH (and the Kubernetes API, for a remote cluster) is
    opened only to the listed CIDRs. A self-hosted runner only dials out to GitHub, so a
    VM-capacity stack with no host steps needs no ingress at all.
    """

    allowWorldIngress: bool = False
    vcnCidr: Cidr = "10.0.0.0/16"
    subnetCidr: Cidr = "10.0.1.0/24"
    existingSubnetId: Ocid | None = None
    sshSourceCidrs: list[Cidr] = Field(default_factory=list)
    apiSourceCidrs: list[Cidr] = Field(default_factory=list)
    apiPort: int = Field(default=6443, ge=1, le=65535)
    dnsLabel: str = Field(default="gpuci", pattern=r"^[a-z][a-z0-9]{0,14}$")

    @field_validator("subnetCidr")
    @classmethod
    def _subnet_inside_vcn(cls, subnet: str, info: ValidationInfo) -> str:
        vcn = info.data.get("vcnCidr")
        if vcn is not None:
            vcn_net, sub_net = ipaddress.ip_network(vcn), ipaddress.ip_network(subnet)
            if sub_net.version != vcn_net.version or not sub_net.subnet_of(vcn_net):  # type: ignore[arg-type]
                raise ValueError(f"{subnet} is not inside vcnCidr {vcn}")
        return subnet

    @field_validator("sshSourceCidrs", "apiSourceCidrs")
    @classmethod
    def _no_world_ingress(cls, cidrs: list[str], info: ValidationInfo) -> list[str]:
        if info.data.get("allowWorldIngress"):
            return cidrs
        for cidr in cidrs:
            if is_world(cidr):
                raise ValueError(
                    f"{cidr} opens the port to the whole internet; list the CIDRs of your "
                    "admins or deployers, or set allowWorldIngress: true to accept that risk"
                )
        return cidrs
