"""What counts as a network, and which IPv4 addresses an IPv6 network carries, exactly
(mutation-testing survivors of policy/world_openings.py: the config and the policy share
these, so a test that compares the two cannot see a change to them)."""

from __future__ import annotations

import ipaddress

import pytest

from policy.world_openings import IPV4_IN_IPV6, WorldOpening, embedded_ipv4, network, world_openings


def test_only_text_is_a_network_and_its_host_bits_are_ignored() -> None:
    assert network(5) is None  # ipaddress would read an int as 0.0.0.5/32
    assert network(None) is None
    assert network("0.0.0.1/0") == ipaddress.IPv4Network("0.0.0.0/0")
    assert world_openings(["0.0.0.1/0"]) == [WorldOpening("0.0.0.0/0", ("0.0.0.1/0",))]


@pytest.mark.parametrize(
    ("ipv6", "ipv4"),
    [
        ("2002:8000::/17", "128.0.0.0/1"),  # 6to4: the address starts at bit 16
        ("2002:c000:201::/64", "192.0.2.1/32"),  # past bit 48: the whole address
        ("2002::/15", "0.0.0.0/0"),  # holds all of 2002::/16
        ("::ffff:8000:0/97", "128.0.0.0/1"),  # IPv4-mapped: from bit 96
        ("::ffff:c000:201/128", "192.0.2.1/32"),
        ("::c000:200/120", "192.0.2.0/24"),  # IPv4-compatible
    ],
)
def test_the_ipv4_addresses_an_ipv6_network_carries(ipv6: str, ipv4: str) -> None:
    assert embedded_ipv4(ipaddress.IPv6Network(ipv6)) == [ipaddress.IPv4Network(ipv4)]


def test_every_prefix_inside_a_carrying_block_carries_the_ipv4_address_it_holds() -> None:
    """Each IPv6 prefix inside a block is masked, so the IPv4 network built from it has no
    host bits at any length (built strictly) and holds the IPv4 address of its own."""
    ipv4 = ipaddress.IPv4Address("203.0.113.77")
    for block, start in IPV4_IN_IPV6:
        address = int(block.network_address) | (int(ipv4) << (96 - start))
        for length in range(block.prefixlen, 129):
            net = ipaddress.IPv6Network((address, length), strict=False)
            (carried,) = embedded_ipv4(net)
            assert ipv4 in carried, (block, length)
            assert carried.prefixlen == min(32, length - start), (block, length)
