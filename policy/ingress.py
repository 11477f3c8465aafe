"""`no-world-open-ingress`: a stack's ingress rules, together, open no port to the world.

NSG rules and security lists are judged together, since a VNIC admits what any of them
admits, and on the union of their sources (`policy.world_openings`), port span by port
span, except ports listed in the policy config `allowedWorldPorts`.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from policy.rule import Resource
from policy.world_openings import WorldOpening, network, world_openings

T = TypeVar("T")


NSG_RULE = "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule"
SECURITY_LISTS = (
    "oci:Core/securityList:SecurityList",
    "oci:Core/defaultSecurityList:DefaultSecurityList",
)
_PORTED = {"6": "tcpOptions", "17": "udpOptions"}
_PROTOCOLS = {"6": "TCP", "17": "UDP", "1": "ICMP", "58": "ICMPv6", "all": "all protocols"}


ALL_PORTS = (1, 65535)


def _port_range(options: Any) -> tuple[int, int] | None:
    """(min, max) of a rule's destination ports; None means every port."""
    if not isinstance(options, Mapping):
        return None
    ports = options.get("destinationPortRange", options)  # NSG rules nest it, lists do not
    if not isinstance(ports, Mapping) or ports.get("min") is None:
        return None
    low, high = int(ports["min"]), int(ports.get("max", ports["min"]))
    return low, high


@dataclass(frozen=True)
class _Ingress:
    """One ingress rule (an NSG rule, or one entry of a security list) with a CIDR source."""

    index: int
    """Its place among the stack's ingress rules (orders rules with the same source)."""
    resource: Resource
    protocol: str
    ports: tuple[int, int]
    source: str


def _ingress(resources: Sequence[Resource]) -> list[_Ingress]:
    found: list[_Ingress] = []
    for resource in resources:
        if resource.type == NSG_RULE and resource.props.get("direction") == "INGRESS":
            rules: list[Mapping[str, Any]] = [resource.props]
        elif resource.type in SECURITY_LISTS:
            listed = resource.props.get("ingressSecurityRules") or []
            rules = [r for r in listed if isinstance(r, Mapping)]
        else:
            continue
        for rule in rules:
            source = rule.get("source")
            if network(source) is None:
                continue
            protocol = str(rule.get("protocol", "all"))
            ported = protocol in _PORTED
            ports = (_port_range(rule.get(_PORTED[protocol])) if ported else None) or ALL_PORTS
            found.append(_Ingress(len(found), resource, protocol, ports, str(source)))
    return found


def _unique(items: list[T]) -> list[T]:
    """`items` without repeats (by identity: resources hold unhashable inputs), in order."""
    return list({id(item): item for item in items}.values())


def _source_order(rule: _Ingress) -> tuple[int, int, int, int]:
    """Messages list sources by network, whatever order the engine registered them in."""
    net = network(rule.source)
    assert net is not None  # _ingress keeps only CIDR sources
    return (net.version, int(net.network_address), net.prefixlen, rule.index)


def _open(rules: list[_Ingress], done: set[str]) -> list[tuple[WorldOpening, list[_Ingress]]]:
    """The world openings of `rules` not in `done`, each with the rules that make it."""
    rules = sorted(_unique(rules), key=_source_order)
    openings = world_openings(r.source for r in rules)
    return [
        (o, [r for r in rules if r.source in o.through]) for o in openings if o.world not in done
    ]


def _port_spans(
    mine: list[_Ingress], every: list[_Ingress], done: set[str], allowed: set[int]
) -> list[tuple[tuple[int, int], WorldOpening, list[_Ingress]]]:
    """Port spans of one ported protocol that the union of its rules (and the all-protocol
    ones) opens to a world: the ports are cut where any rule's range starts or ends."""
    cuts = sorted({p for r in mine for p in (r.ports[0], r.ports[1] + 1)})
    spans: dict[WorldOpening, list[tuple[int, int, list[_Ingress]]]] = {}
    for low, end in itertools.pairwise(cuts):
        high = end - 1
        covering = [r for r in mine if r.ports[0] <= low and high <= r.ports[1]]
        if not covering:
            continue
        if all(p in allowed for p in range(low, high + 1)):  # stops at the first other port
            continue
        for opening, rules in _open(covering + every, done):
            runs = spans.setdefault(opening, [])
            if runs and runs[-1][1] + 1 == low:
                runs[-1] = (runs[-1][0], high, _unique(runs[-1][2] + rules))
            else:
                runs.append((low, high, rules))
    return [((low, high), o, rules) for o, runs in spans.items() for low, high, rules in runs]


def check_world_ingress(
    resources: Sequence[Resource], config: Mapping[str, Any]
) -> list[tuple[Resource, str]]:
    """Every port (and protocol) the stack's ingress rules together open to a whole
    internet, judged on the union of their sources (`world_openings`), not on each spelling:
    NSG rules and security lists alike, since a VNIC admits what any of them admits."""
    allowed = {int(p) for p in config.get("allowedWorldPorts", [])}
    rules = _ingress(resources)
    every = [r for r in rules if r.protocol == "all"]
    found = [(rules_, f"all protocols open to {o}") for o, rules_ in _open(every, set())]
    done = {o.world for o, _ in _open(every, set())}  # the all-protocol openings cover these
    for protocol in dict.fromkeys(r.protocol for r in rules if r.protocol != "all"):
        mine = [r for r in rules if r.protocol == protocol]
        name = _PROTOCOLS.get(protocol, f"protocol {protocol}")
        if protocol not in _PORTED:
            found += [(rules_, f"{name} open to {o}") for o, rules_ in _open(mine + every, done)]
            continue
        for (low, high), opening, rules_ in _port_spans(mine, every, done, allowed):
            if (low, high) == ALL_PORTS:
                ports = f"every {name} port"
            else:
                ports = f"{name} port {low}" if low == high else f"{name} port {low}-{high}"
            found.append((rules_, f"{ports} open to {opening}"))
    hint = "allow the port in the policy config allowedWorldPorts, or narrow the source"
    out = []
    for opened_by, why in found:
        culprits = _unique([r.resource for r in opened_by])
        where = ", ".join(r.where() for r in culprits)
        out.append((culprits[0], f"{where}: {why}; {hint}"))
    return out
