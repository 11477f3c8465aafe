"""What the offline plan stands in for (`stacks.offline.state.standins`): which text holds a
stand-in, and when a deployed value is the plan's text with real values in their places.

In-process, on hand-made text: the stand-ins are the fakes' own (`vm_addresses`, the OCIDs
and AD names `FakeCloud` makes up, a StackReference's placeholder)."""

from __future__ import annotations

import pytest

from stacks.offline.engine.fakes import INSTANCE, vm_addresses
from stacks.offline.state.standins import StandIns

STAND_IN_VCN = "ocid1.vcn.oc1.iad." + "0123456789abcdef0123"
REAL_VCN = "ocid1.vcn.oc1.iad.amaaaaaarealvcnidentifierxyz"


def test_the_fake_addresses_used_below() -> None:
    assert vm_addresses("gpu-vm-0") == {"publicIp": "203.0.113.50", "privateIp": "10.0.1.51"}
    assert vm_addresses("vm-26") == {"publicIp": "203.0.113.4", "privateIp": "10.0.1.5"}
    assert vm_addresses("gpu-vm-1")["publicIp"] == "203.0.113.215"


@pytest.mark.parametrize(
    ("text", "held"),
    [
        (STAND_IN_VCN, True),
        (f"subnet in {STAND_IN_VCN}, done", True),
        (STAND_IN_VCN + "a", False),  # 21 characters of a real OCID, not the fake's 20
        (STAND_IN_VCN + "7", False),
        (REAL_VCN, False),
        ("Fake:IAD-AD-1", True),
        ("Uocm:US-ASHBURN-AD-1", False),
        ("offline-placeholder:gpu-dev/kubeconfig", True),
        ("placeholder", False),
        ("no stand-in here", False),
        ("", False),
    ],
)
def test_which_text_holds_a_cloud_stand_in(text: str, held: bool) -> None:
    assert StandIns([]).held_in(text) is held


def test_only_the_plans_instances_addresses_are_stand_ins() -> None:
    """`of` reads the names of the plan's Instances only: a VCN of the same name has no
    address."""
    standins = StandIns.of(
        [
            {"type": INSTANCE, "name": "gpu-vm-0"},
            {"type": "oci:Core/vcn:Vcn", "name": "gpu-vm-1"},
            {"name": "vm-26"},
        ]
    )
    assert standins.held_in("ssh ubuntu@203.0.113.50")
    assert standins.held_in("10.0.1.51:22")
    assert not standins.held_in("203.0.113.215")  # gpu-vm-1 is a VCN here
    assert not standins.held_in("203.0.113.4")  # no type: not an Instance
    assert not StandIns([]).held_in("203.0.113.50")


@pytest.mark.parametrize(
    ("text", "held"),
    [
        ("203.0.113.4", True),
        ("203.0.113.4:22", True),
        ("http://203.0.113.4/", True),
        ("203.0.113.40", False),  # another address, not vm-26's
        ("203.0.113.45", False),
        ("10.0.1.5", True),
        ("10.0.1.55", False),
        ("10.0.1.50", False),
    ],
)
def test_an_address_is_a_stand_in_only_where_it_ends(text: str, held: bool) -> None:
    assert StandIns(["vm-26", "vm-26"]).held_in(text) is held


def test_two_instances_addresses_are_both_stand_ins() -> None:
    standins = StandIns(["gpu-vm-1", "gpu-vm-0"])
    assert standins.held_in("203.0.113.215") and standins.held_in("203.0.113.50")
    assert standins.same_but_standins("a=203.0.113.215 b=10.0.1.51", "a=198.51.100.1 b=192.168.0.4")


@pytest.mark.parametrize(
    ("plan", "state", "same"),
    [
        ("ssh ubuntu@203.0.113.50 -p 22", "ssh ubuntu@198.51.100.7 -p 22", True),
        ("ssh ubuntu@203.0.113.50 -p 22", "ssh ubuntu@198.51.100.7 -p 2222", False),
        ("ssh ubuntu@203.0.113.50 -p 22", "ssh root@198.51.100.7 -p 22", False),
        ("203.0.113.50", "198.51.100.7", True),
        ("203.0.113.50 tail", "198.51.100.7 tall", False),
        ("head 203.0.113.50", "heap 198.51.100.7", False),
        # The real value is one token: not empty, no space or quote in it.
        ("host=203.0.113.50;", "host=;", False),
        ("host=203.0.113.50;", "host=1.2.3.4 extra;", False),
        ("host='203.0.113.50'", "host='1.2.3.4' or '5.6.7.8'", False),
        # Literal text around the stand-ins is compared as text, not as a pattern.
        ("a.b 203.0.113.50", "aXb 198.51.100.7", False),
        ("a.b 203.0.113.50", "a.b 198.51.100.7", True),
        ("(x)+ 203.0.113.50", "(x)+ 198.51.100.7", True),
        # Across lines, and several stand-ins each with its own real value.
        ("one\n203.0.113.50\nthree", "one\n198.51.100.7\nthree", True),
        (
            f"vcn={STAND_IN_VCN} ad=Fake:IAD-AD-1 ref=offline-placeholder:x/y",
            f"vcn={REAL_VCN} ad=Uocm:US-ASHBURN-AD-1 ref=s3cr3t",
            True,
        ),
        (f"vcn={STAND_IN_VCN} ad=Fake:IAD-AD-1", f"vcn={REAL_VCN} ad=", False),
        # No stand-in in the plan's text: never "the same but stand-ins".
        ("no stand-in", "another text", False),
        ("no stand-in", "no stand-in", False),
        ("", "", False),
    ],
)
def test_a_deployed_value_is_the_plan_with_real_values_in_the_stand_ins_places(
    plan: str, state: str, same: bool
) -> None:
    assert StandIns(["gpu-vm-0"]).same_but_standins(plan, state) is same
