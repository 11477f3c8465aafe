"""OciNetwork: the VCN, subnet and security group the GPU VMs attach to.

Nothing is open to the internet by default. OCI's default security list allows SSH from
0.0.0.0/0, so the subnet gets an egress-only security list of its own instead, and all
ingress is expressed as NSG rules from the configured CIDRs.
"""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_oci as oci

from components.base import ComponentArgs, PulumiInput, child
from components.names import cidr_slug
from components.oci.network_config import NetworkConfig

TCP = "6"


class OciNetworkArgs(ComponentArgs):
    compartment_id: str
    config: NetworkConfig
    freeform_tags: dict[str, str]


class OciNetwork(pulumi.ComponentResource):
    """A new VCN + internet gateway + public subnet, or an existing subnet, plus one NSG."""

    vcn_id: pulumi.Output[str]
    subnet_id: pulumi.Output[str]
    nsg_id: pulumi.Output[str]

    def __init__(
        self, name: str, args: OciNetworkArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-ci:network:OciNetwork", name, None, opts)
        cfg = args.config
        common: dict[str, Any] = {
            "compartment_id": args.compartment_id,
            "freeform_tags": args.freeform_tags,
        }
        if cfg.existingSubnetId is not None:
            found = oci.core.get_subnet_output(
                subnet_id=cfg.existingSubnetId, opts=pulumi.InvokeOutputOptions(parent=self)
            )
            self.vcn_id = found.vcn_id
            self.subnet_id = pulumi.Output.from_input(cfg.existingSubnetId)
        else:
            self.vcn_id, self.subnet_id = self._new_subnet(name, cfg, common)

        nsg = oci.core.NetworkSecurityGroup(
            f"{name}-nsg",
            vcn_id=self.vcn_id,
            display_name=f"{name}-nsg",
            **common,
            opts=child(self),
        )
        self.nsg_id = nsg.id
        self._rule(
            f"{name}-egress",
            nsg.id,
            direction="EGRESS",
            protocol="all",
            destination="0.0.0.0/0",
            destination_type="CIDR_BLOCK",
            description="all egress (apt, GitHub, registries)",
        )
        for port, key, cidrs in (
            (22, "ssh", cfg.sshSourceCidrs),
            (cfg.apiPort, "api", cfg.apiSourceCidrs),
        ):
            for cidr in cidrs:
                self._rule(
                    f"{name}-{key}-{cidr_slug(cidr)}",
                    nsg.id,
                    direction="INGRESS",
                    protocol=TCP,
                    source=cidr,
                    source_type="CIDR_BLOCK",
                    description=f"{key} from {cidr} (gpu-ci:network.{key}SourceCidrs)",
                    tcp_options=oci.core.NetworkSecurityGroupSecurityRuleTcpOptionsArgs(
                        destination_port_range=oci.core.NetworkSecurityGroupSecurityRuleTcpOptionsDestinationPortRangeArgs(
                            min=port, max=port
                        )
                    ),
                )
        self.register_outputs(
            {"vcnId": self.vcn_id, "subnetId": self.subnet_id, "nsgId": self.nsg_id}
        )

    def _rule(self, name: str, nsg_id: PulumiInput, **kwargs: Any) -> None:
        oci.core.NetworkSecurityGroupSecurityRule(
            name, network_security_group_id=nsg_id, opts=child(self), **kwargs
        )

    def _new_subnet(
        self, name: str, cfg: NetworkConfig, common: dict[str, Any]
    ) -> tuple[pulumi.Output[str], pulumi.Output[str]]:
        vcn = oci.core.Vcn(
            f"{name}-vcn",
            cidr_blocks=[cfg.vcnCidr],
            display_name=f"{name}-vcn",
            dns_label=cfg.dnsLabel,
            **common,
            opts=child(self),
        )
        gateway = oci.core.InternetGateway(
            f"{name}-igw",
            vcn_id=vcn.id,
            enabled=True,
            display_name=f"{name}-igw",
            **common,
            opts=child(self),
        )
        routes = oci.core.RouteTable(
            f"{name}-routes",
            vcn_id=vcn.id,
            display_name=f"{name}-routes",
            route_rules=[
                oci.core.RouteTableRouteRuleArgs(
                    network_entity_id=gateway.id,
                    destination="0.0.0.0/0",
                    destination_type="CIDR_BLOCK",
                )
            ],
            **common,
            opts=child(self),
        )
        egress_only = oci.core.SecurityList(
            f"{name}-egress-only",
            vcn_id=vcn.id,
            display_name=f"{name}-egress-only",
            egress_security_rules=[
                oci.core.SecurityListEgressSecurityRuleArgs(destination="0.0.0.0/0", protocol="all")
            ],
            ingress_security_rules=[],
            **common,
            opts=child(self),
        )
        subnet = oci.core.Subnet(
            f"{name}-subnet",
            vcn_id=vcn.id,
            cidr_block=cfg.subnetCidr,
            display_name=f"{name}-subnet",
            dns_label="runners",
            route_table_id=routes.id,
            security_list_ids=[egress_only.id],
            prohibit_public_ip_on_vnic=False,
            **common,
            opts=child(self),
        )
        return vcn.id, subnet.id
