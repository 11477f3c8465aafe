"""`no-world-open-ingress`, exactly: which rules are ingress at all, how security lists
spell ports, a rule with no protocol, ports with gaps between them, and adjacent spans of
several rules reported as one (mutation-testing survivors of policy/ingress.py)."""

from __future__ import annotations

from typing import Any

from policy.ingress import NSG_RULE, SECURITY_LISTS
from policy.rule import Resource
from tests.policy.test_ingress import WORLD, messages, rule, tcp

HINT = "; allow the port in the policy config allowedWorldPorts, or narrow the source"


def security_list(name: str, *rules: dict[str, Any], kind: str = SECURITY_LISTS[0]) -> Resource:
    return Resource(kind, name, {"ingressSecurityRules": list(rules)})


def listed_tcp(low: int, high: int, source: str = WORLD) -> dict[str, Any]:
    """A security list's TCP entry: its options hold min and max themselves."""
    return {"protocol": "6", "source": source, "tcpOptions": {"min": low, "max": high}}


def test_a_security_lists_port_range_is_read_where_it_spells_it() -> None:
    for kind in SECURITY_LISTS:
        subnet = security_list("subnet", listed_tcp(22, 22), kind=kind)
        assert messages(subnet) == [f"subnet ({kind}): TCP port 22 open to 0.0.0.0/0{HINT}"]
        assert messages(subnet, allowedWorldPorts=[22]) == []


def test_an_egress_rule_is_not_ingress_whatever_else_it_holds() -> None:
    egress = Resource(NSG_RULE, "out", {"direction": "EGRESS", "protocol": "all", "source": WORLD})
    assert messages(egress) == []
    other = Resource("oci:Core/vcn:Vcn", "vcn", {"direction": "INGRESS", "source": WORLD})
    assert messages(other) == []


def test_a_source_that_is_no_cidr_does_not_end_the_list() -> None:
    service = {"protocol": "6", "source": "all-iad-services-in-oracle-services-network"}
    subnet = security_list("subnet", service, listed_tcp(80, 80))
    assert messages(subnet) == [
        f"subnet ({SECURITY_LISTS[0]}): TCP port 80 open to 0.0.0.0/0{HINT}"
    ]


def test_a_rule_without_a_protocol_opens_every_protocol() -> None:
    bare = Resource(NSG_RULE, "bare", {"direction": "INGRESS", "source": WORLD})
    assert messages(bare) == [f"bare ({NSG_RULE}): all protocols open to 0.0.0.0/0{HINT}"]


def test_ports_with_a_gap_between_them_are_each_reported() -> None:
    found = messages(rule("ssh", **tcp(22)), rule("http", **tcp(80)), rule("tls", **tcp(443)))
    assert found == [
        f"ssh ({NSG_RULE}): TCP port 22 open to 0.0.0.0/0{HINT}",
        f"http ({NSG_RULE}): TCP port 80 open to 0.0.0.0/0{HINT}",
        f"tls ({NSG_RULE}): TCP port 443 open to 0.0.0.0/0{HINT}",
    ]


def test_an_allowed_port_does_not_hide_the_ports_after_it() -> None:
    found = messages(rule("ssh", **tcp(22)), rule("http", **tcp(80)), allowedWorldPorts=[22])
    assert found == [f"http ({NSG_RULE}): TCP port 80 open to 0.0.0.0/0{HINT}"]


def test_adjacent_and_overlapping_spans_are_one_finding_naming_every_rule() -> None:
    found = messages(rule("a", **tcp(20, 30)), rule("b", **tcp(25, 40)), rule("c", **tcp(41, 50)))
    where = ", ".join(f"{n} ({NSG_RULE})" for n in "abc")
    assert found == [f"{where}: TCP port 20-50 open to 0.0.0.0/0{HINT}"]


def test_an_allowed_port_between_spans_splits_the_finding() -> None:
    rules = (rule("a", **tcp(20, 22)), rule("b", **tcp(23)), rule("c", **tcp(24, 30)))
    assert messages(*rules, allowedWorldPorts=[23]) == [
        f"a ({NSG_RULE}): TCP port 20-22 open to 0.0.0.0/0{HINT}",
        f"c ({NSG_RULE}): TCP port 24-30 open to 0.0.0.0/0{HINT}",
    ]


def test_rules_with_one_source_are_named_in_the_order_they_were_registered() -> None:
    """Sources order the rules of a finding; rules with the same source keep their order."""
    half, other = "0.0.0.0/1", "128.0.0.0/1"
    every = rule("every", protocol="all", source=half)
    ssh = rule("ssh-low", source=half, **tcp(22))
    high = rule("ssh-high", source=other, **tcp(22))
    (message,) = messages(every, ssh, high)
    assert message.startswith(
        f"every ({NSG_RULE}), ssh-low ({NSG_RULE}), ssh-high ({NSG_RULE}): TCP port 22 open to "
    )


def test_protocols_without_ports_are_named_and_judged_with_every_protocol_rule() -> None:
    assert messages(rule("ping", protocol="1")) == [
        f"ping ({NSG_RULE}): ICMP open to 0.0.0.0/0{HINT}"
    ]
    assert messages(rule("gre", protocol="47")) == [
        f"gre ({NSG_RULE}): protocol 47 open to 0.0.0.0/0{HINT}"
    ]
    every = rule("every", protocol="all", source="0.0.0.0/1")
    ping = rule("ping", protocol="1", source="128.0.0.0/1")
    assert messages(every, ping) == [
        f"every ({NSG_RULE}), ping ({NSG_RULE}): ICMP open to 0.0.0.0/0 through 0.0.0.0/1, "
        f"128.0.0.0/1{HINT}"
    ]
    assert messages(rule("ping", protocol="1"), rule("all", protocol="all")) == [
        f"all ({NSG_RULE}): all protocols open to 0.0.0.0/0{HINT}"
    ]


def test_each_protocol_is_reported_whatever_comes_before_or_after_it() -> None:
    rules = (rule("ssh", **tcp(22)), rule("ping", protocol="1"), rule("dns", protocol="17"))
    assert messages(*rules) == [
        f"ssh ({NSG_RULE}): TCP port 22 open to 0.0.0.0/0{HINT}",
        f"ping ({NSG_RULE}): ICMP open to 0.0.0.0/0{HINT}",
        f"dns ({NSG_RULE}): every UDP port open to 0.0.0.0/0{HINT}",
    ]
