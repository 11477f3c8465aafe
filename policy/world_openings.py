"""The one judgement of "open to the whole internet", whatever the sources' spelling.

Shared by `gpu-ci:network` (sshSourceCidrs, apiSourceCidrs) and the `no-world-open-ingress`
rule so that the config and the policy cannot disagree.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from policy.rule import known

IPV4_WORLD = ipaddress.IPv4Network("0.0.0.0/0")
IPV6_WORLD = ipaddress.IPv6Network("::/0")
IPV4_IN_IPV6 = (
    (ipaddress.IPv6Network("::ffff:0:0/96"), 96),  # IPv4-mapped (RFC 4291 2.5.5.2)
    (ipaddress.IPv6Network("::/96"), 96),  # IPv4-compatible, deprecated (RFC 4291 2.5.5.1)
    (ipaddress.IPv6Network("2002::/16"), 16),  # 6to4 (RFC 3056): 2002:AABB:CCDD::/48
)
"""IPv6 blocks that carry an IPv4 address, and the bit it starts at: opening (part of) one
opens the IPv4 addresses it carries."""


@dataclass(frozen=True)
class WorldOpening:
    """A whole internet, `0.0.0.0/0` or `::/0`, that some sources open together."""

    world: str
    through: tuple[str, ...]
    """Sources, as given and in their order, whose union covers it, none of them redundant
    (so just one where one alone covers it)."""

    def __str__(self) -> str:
        if self.through == (self.world,):
            return self.world
        return f"{self.world} through {', '.join(self.through)}"


def network(cidr: Any) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """`cidr` as a network; None for what is no CIDR (an unknown, a service label such as
    all-iad-services-in-oracle-services-network, an NSG's OCID)."""
    if not isinstance(cidr, str) or not known(cidr):
        return None
    try:
        return ipaddress.ip_network(cidr, strict=False)
    except ValueError:
        return None


def embedded_ipv4(net: ipaddress.IPv6Network) -> list[ipaddress.IPv4Network]:
    """The IPv4 networks that an IPv6 network opens through `IPV4_IN_IPV6`."""
    found = []
    for block, start in IPV4_IN_IPV6:
        if block.subnet_of(net):
            found.append(IPV4_WORLD)
        elif net.subnet_of(block):
            address = (int(net.network_address) >> (96 - start)) & 0xFFFFFFFF
            bits = min(32, net.prefixlen - start)  # `net` is masked, so no host bits are left
            found.append(ipaddress.IPv4Network((address, bits)))
    return found


def _covers(world: Any, nets: Iterable[Any]) -> bool:
    return list(ipaddress.collapse_addresses(nets)) == [world]


def world_openings(cidrs: Iterable[Any]) -> list[WorldOpening]:
    """Which whole internets the union of `cidrs` opens, however it is spelled.

    The one judgement of "open to the world", shared by `gpu-ci:network` (sshSourceCidrs,
    apiSourceCidrs) and the `no-world-open-ingress` rule so that they cannot disagree: the
    networks are collapsed, so `0.0.0.0/1` with `128.0.0.0/1` is `0.0.0.0/0`, and an IPv6
    network carrying IPv4 addresses (`::ffff:0:0/96`, `2002::/16`: `IPV4_IN_IPV6`) counts
    as those IPv4 addresses. Host bits are ignored; what is no CIDR is skipped.
    """
    v4: list[tuple[str, list[Any]]] = []  # (source, the IPv4 networks it opens)
    v6: list[tuple[str, list[Any]]] = []
    for cidr in cidrs:
        net = network(cidr)
        if isinstance(net, ipaddress.IPv4Network):
            v4.append((cidr, [net]))
        elif isinstance(net, ipaddress.IPv6Network):
            v6.append((cidr, [net]))
    v6_world = _covers(IPV6_WORLD, (n for _, nets in v6 for n in nets))
    if not v6_world:  # else the IPv6 opening names these sources already
        v4 += [(cidr, carried) for cidr, nets in v6 if (carried := embedded_ipv4(nets[0]))]
    openings = []
    for world, sources in ((IPV4_WORLD, v4), (IPV6_WORLD, v6)):
        if _covers(world, (n for _, nets in sources for n in nets)):
            needed = list(sources)
            for source in sources:  # drop each source the others make redundant
                rest = [s for s in needed if s is not source]
                if _covers(world, (n for _, nets in rest for n in nets)):
                    needed = rest
            openings.append(WorldOpening(str(world), tuple(c for c, _ in needed)))
    return openings
