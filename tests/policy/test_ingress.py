"""`no-world-open-ingress` on hand-built rules: what each spelling of a port range means
(none at all is every port) and how the message names the span."""

from __future__ import annotations

from typing import Any

import pytest

from policy.ingress import NSG_RULE, check_world_ingress
from policy.rule import Resource

WORLD = "0.0.0.0/0"


def rule(name: str, protocol: str = "6", source: str = WORLD, **options: Any) -> Resource:
    props: dict[str, Any] = {"direction": "INGRESS", "protocol": protocol, "source": source}
    props.update(options)
    return Resource(NSG_RULE, name, props)


def tcp(low: int, high: int | None = None) -> dict[str, Any]:
    span = {"min": low} if high is None else {"min": low, "max": high}
    return {"tcpOptions": {"destinationPortRange": span}}


def messages(*resources: Resource, **config: Any) -> list[str]:
    return [why for _, why in check_world_ingress(list(resources), config)]


@pytest.mark.parametrize(
    "options", [{}, {"tcpOptions": {}}, {"tcpOptions": {"destinationPortRange": {}}}]
)
def test_a_tcp_rule_without_a_port_range_opens_every_port(options: dict[str, Any]) -> None:
    (message,) = messages(rule("any-port", **options))
    assert message.startswith("any-port (" + NSG_RULE + "): every TCP port open to 0.0.0.0/0;")


def test_one_port_and_a_span_are_named_as_such() -> None:
    assert (
        messages(rule("ssh", **tcp(22)))[0]
        .split(": ", 1)[1]
        .startswith("TCP port 22 open to 0.0.0.0/0;")
    )
    assert (
        messages(rule("range", **tcp(8000, 8100)))[0]
        .split(": ", 1)[1]
        .startswith("TCP port 8000-8100 open to 0.0.0.0/0;")
    )


def test_an_allowed_port_passes_but_a_span_around_it_is_reported_whole() -> None:
    assert messages(rule("https", **tcp(443)), allowedWorldPorts=[443]) == []
    (message,) = messages(rule("span", **tcp(442, 444)), allowedWorldPorts=[443])
    assert ": TCP port 442-444 open to 0.0.0.0/0;" in message


def test_all_protocols_from_the_world_is_one_finding() -> None:
    (message,) = messages(rule("everything", protocol="all"))
    assert ": all protocols open to 0.0.0.0/0;" in message


def test_a_narrow_source_opens_nothing_to_the_world() -> None:
    assert messages(rule("office", source="198.51.100.0/24")) == []
