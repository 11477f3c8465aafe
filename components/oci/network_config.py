"""`gpu-ci:network`: where the GPU VMs live and who may reach them."""

from __future__ import annotations

import ipaddress

from pydantic import Field, StrictInt, ValidationInfo, field_validator

from components.config_base import Cidr, ConfigModel, Ocid
from components.names import cidr_slug
from policy.world_openings import WorldOpening, world_openings

OCI_PREFIXES = (16, 30)
"""The prefix lengths OCI takes for a VCN's and a subnet's IPv4 CIDR block."""
NSG_RULE_LIMIT = 120
"""OCI's limit of security rules per network security group."""
NSG_FIXED_RULES = 1
"""The rules components/oci/network.py adds besides one per ingress CIDR: all egress."""


class NetworkConfig(ConfigModel):
    """A new VCN and public subnet, or an existing subnet reused by OCID.

    Ingress is closed by default: SSH (and the Kubernetes API, for a remote cluster) is
    opened only to the listed CIDRs. A self-hosted runner only dials out to GitHub, so a
    VM-capacity stack with no host steps needs no ingress at all.
    """

    allowWorldIngress: bool = Field(
        False,
        description="allow sources that together cover the internet (`0.0.0.0/0`, `::/0`, "
        "split or IPv4-mapped spellings) in the lists below",
    )
    vcnCidr: Cidr = Field("10.0.0.0/16", description="the new VCN's IPv4 block (/16 to /30)")
    subnetCidr: Cidr = Field("10.0.1.0/24", description="the new public subnet, in `vcnCidr`")
    existingSubnetId: Ocid | None = Field(
        None, description="reuse this subnet instead (the NSG goes in its VCN)"
    )
    sshSourceCidrs: list[Cidr] = Field(
        default_factory=list, description="the only sources SSH is open to (an NSG rule each)"
    )
    apiSourceCidrs: list[Cidr] = Field(
        default_factory=list,
        description="the only sources the Kubernetes API (`apiPort`) is open to; needed by a "
        "`cluster` on `oci-vm`",
    )
    apiPort: StrictInt = Field(
        default=6443, ge=1, le=65535, description="the Kubernetes API port the NSG opens"
    )
    dnsLabel: str = Field(
        default="gpuci", pattern=r"^[a-z][a-z0-9]{0,14}$", description="the new VCN's DNS label"
    )

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
        # The items are normalised CIDRs already (Cidr), so two spellings of one block repeat.
        twice = list(dict.fromkeys(c for c in cidrs if cidrs.count(c) > 1))
        if twice:
            raise ValueError(
                f"lists {', '.join(twice)} more than once (compared normalised); each CIDR "
                "becomes one NSG rule named after it, so list each once"
            )
        named: dict[str, str] = {}
        for cidr in cidrs:
            other = named.setdefault(cidr_slug(cidr), cidr)
            if other != cidr:
                raise ValueError(
                    f"{other} and {cidr} would give two NSG rules one name "
                    f"(…-{cidr_slug(cidr)}: a rule is named after its CIDR's digits, and "
                    "these differ only in where their colons are); cover both with one "
                    "larger block, or drop one"
                )
        if info.data.get("allowWorldIngress"):
            return cidrs
        openings = world_openings(cidrs)  # the policy pack's no-world-open-ingress judges so too
        if openings:
            raise ValueError(_world_message(openings))
        return cidrs

    @field_validator("vcnCidr", "subnetCidr")
    @classmethod
    def _oci_prefix(cls, cidr: str, info: ValidationInfo) -> str:
        net = ipaddress.ip_network(cidr)
        what = "VCN" if info.field_name == "vcnCidr" else "subnet"
        if net.version != 4:
            raise ValueError(f"an OCI {what} CIDR block is IPv4, like 10.0.0.0/16")
        low, high = OCI_PREFIXES
        if not low <= net.prefixlen <= high:
            raise ValueError(
                f"OCI takes {what} CIDR blocks from /{low} to /{high}, not /{net.prefixlen}; "
                "use e.g. " + ("10.0.0.0/16" if what == "VCN" else "10.0.1.0/24 (inside vcnCidr)")
            )
        return cidr

    @field_validator("sshSourceCidrs", "apiSourceCidrs")
    @classmethod
    def _nsg_rule_limit(cls, cidrs: list[str], info: ValidationInfo) -> list[str]:
        ssh = cidrs if info.field_name == "sshSourceCidrs" else info.data.get("sshSourceCidrs")
        if ssh is None:  # invalid itself: counted once it is fixed
            return cidrs
        api = cidrs if info.field_name == "apiSourceCidrs" else []
        rules = NSG_FIXED_RULES + len(ssh) + len(api)
        if rules > NSG_RULE_LIMIT:
            counted = f"{len(ssh)} SSH" + (f" and {len(api)} API" if api else "")
            raise ValueError(
                f"{counted} CIDRs make {rules} rules in the VMs' "
                f"network security group (one per CIDR, plus {NSG_FIXED_RULES} for egress); "
                f"OCI allows {NSG_RULE_LIMIT} per group: list at most "
                f"{NSG_RULE_LIMIT - NSG_FIXED_RULES} CIDRs in sshSourceCidrs and "
                "apiSourceCidrs together, merging neighbours into larger blocks"
            )
        return cidrs


def _world_message(openings: list[WorldOpening]) -> str:
    through = list(dict.fromkeys(c for o in openings for c in o.through))
    worlds = [o.world for o in openings]
    subject = f"{through[0]} opens" if len(through) == 1 else f"{', '.join(through)} together open"
    spelled = "" if through == worlds else f" ({' and '.join(worlds)})"
    return (
        f"{subject} the port to the whole internet{spelled}; list the CIDRs of your admins or "
        "deployers, or set allowWorldIngress: true to accept that risk"
    )
