"""Two CIDRs whose NSG rules would share a name are refused at config time (two resources
with one URN, which the engine refuses after the earlier ones registered)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from components.names import cidr_slug
from components.oci.network_config import NetworkConfig


def test_cidrs_that_differ_only_in_their_colons_name_one_rule() -> None:
    assert cidr_slug("2001:db8:1::3:0/112") == cidr_slug("2001:db8::1:3:0/112")
    with pytest.raises(ValidationError) as failure:
        NetworkConfig(sshSourceCidrs=["2001:db8:1::3:0/112", "2001:db8::1:3:0/112"])
    (error,) = failure.value.errors()
    assert error["loc"] == ("sshSourceCidrs",)
    assert error["msg"] == (
        "Value error, 2001:db8:1::3:0/112 and 2001:db8::1:3:0/112 would give two NSG rules "
        "one name (…-2001-db8-1-3-0-112: a rule is named after its CIDR's digits, and these "
        "differ only in where their colons are); cover both with one larger block, or drop one"
    )


def test_distinct_rule_names_pass() -> None:
    cidrs = ["198.51.100.0/24", "203.0.113.0/24", "2001:db8::/48"]
    assert NetworkConfig(sshSourceCidrs=cidrs).sshSourceCidrs == cidrs
