"""The values an offline plan makes up (`stacks.offline.lifecycle.stand_ins`): which values are the
fake cloud's stand-ins (exactly the spellings `stacks.offline.engine.fakes.FakeCloud` writes, never
a real OCID or AD name), when a change of one is only a guess, and the regions a plan's
stand-ins name; and, through `classify`, what the diff makes of them."""

from __future__ import annotations

import copy

import pytest

from stacks.offline.engine.fakes import FakeCloud
from stacks.offline.lifecycle.fate import classify
from stacks.offline.lifecycle.replacement_rules import RULES, Rules, rules_from
from stacks.offline.lifecycle.stand_ins import (
    AD,
    StandIn,
    guessed_change,
    region_key,
    regions,
    stand_in,
)
from stacks.offline.snapshot.shape import Snapshot
from tests.stacks.offline.synthetic import res

HEX = "0123456789abcdef0123"
VCN_IAD = f"ocid1.vcn.oc1.us-ashburn-1.{HEX}"
IMAGE_IAD = f"ocid1.image.oc1.us-ashburn-1.{HEX}"
VCN_FRA = f"ocid1.vcn.oc1.eu-frankfurt-1.{HEX}"
REAL = "ocid1.vcn.oc1.iad.amaaaaaaq6gvbfqaby5smhavhtvnjb7zlgn3qcdsdnz6s7phjrfwpcobzsoq"
VCN_GUESS = (
    "the offline plan makes up the VCN `getSubnet` finds for the subnet "
    "(stacks/offline/engine/fakes.py); the cloud may answer the same as before"
)
SUBNET = "oci:Core/subnet:Subnet"
NSG = "oci:Core/networkSecurityGroup:NetworkSecurityGroup"


@pytest.fixture(scope="module")
def rules() -> Rules:
    return rules_from(RULES)


def test_what_the_fake_cloud_makes_up_is_a_stand_in_and_nothing_else_is() -> None:
    assert stand_in(VCN_IAD) == StandIn("vcn", "ASHBURN", "us-ashburn-1")
    assert stand_in(f"ocid1.availabilitydomain.oc1..{HEX}") == StandIn("availabilitydomain", "")
    assert stand_in("Fake:ASHBURN-AD-2") == StandIn(AD, "ASHBURN")
    # the whole value, as the fake spells it: not a real OCID, nor one inside other text
    for value in (
        REAL,
        f"ocid1.vcn.oc1.us-ashburn-1.{HEX}0",
        f"ocid1.vcn.oc1.us-ashburn-1.{HEX[:-1]}",
        f"ocid1.vcn.oc1.us-ashburn-1.{HEX.upper()}",
        f"id {VCN_IAD}",
        f"{VCN_IAD} ",
        "Uocm:US-ASHBURN-AD-1",
        "Fake:ASHBURN-AD-1 ",
        "Fake:ashburn-AD-1",
        "",
    ):
        assert stand_in(value) is None, value
    assert stand_in(["Fake:ASHBURN-AD-1"]) is None
    assert stand_in(7) is None


def test_the_fake_clouds_own_values_are_stand_ins_of_its_region() -> None:
    cloud = FakeCloud({"oci:region": "eu-frankfurt-1"})
    assert [stand_in(name) for name in cloud.ad_names()] == [StandIn(AD, "FRANKFURT")] * 3


def test_a_region_is_keyed_as_the_fake_ad_names_key_it() -> None:
    assert region_key("us-ashburn-1") == "ASHBURN"
    assert region_key("eu-frankfurt-1") == "FRANKFURT"
    assert region_key("iad") == "IAD"
    assert region_key("") == ""


def test_a_change_to_or_from_a_made_up_lookup_is_a_guess() -> None:
    assert guessed_change(VCN_IAD, REAL) == VCN_GUESS
    assert guessed_change(REAL, IMAGE_IAD) == (
        "the offline plan makes up the image the filter finds (stacks/offline/engine/fakes.py); "
        "the cloud may answer the same as before"
    )
    # two stand-ins of one region: the old value's kind names what was looked up
    assert guessed_change(VCN_IAD, IMAGE_IAD) == VCN_GUESS
    subnet = f"ocid1.subnet.oc1.us-ashburn-1.{HEX}"
    assert guessed_change(subnet, REAL) == (
        "the offline plan makes up a subnet a lookup finds (stacks/offline/engine/fakes.py); "
        "the cloud may answer the same as before"
    )


def test_a_change_of_region_ad_or_real_value_is_no_guess() -> None:
    assert guessed_change(VCN_IAD, VCN_FRA) == ""  # real OCIDs are regional
    assert guessed_change("Fake:ASHBURN-AD-1", "Fake:ASHBURN-AD-2") == ""
    assert guessed_change("Fake:ASHBURN-AD-1", VCN_IAD) == ""
    assert guessed_change(REAL, "ocid1.vcn.oc1.iad.other") == ""
    assert guessed_change(None, 3) == ""


def test_the_regions_a_plan_names_are_its_stand_ins_spelt_as_config_spells_them() -> None:
    """An AD name holds only the key; an OCID of the same region gives its spelling,
    whichever comes first. Values nested in inputs count; a real OCID names no region."""
    ad_first = res("a", SUBNET, availabilityDomain="Fake:ASHBURN-AD-1")
    nested = res("b", SUBNET, details={"ids": [VCN_IAD]}, real=REAL)
    only_ad = res("c", SUBNET, ad="Fake:LONDON-AD-3")
    bare = {k: v for k, v in res("d", SUBNET).items() if k != "inputs"}
    snap = {"resources": [ad_first, nested, only_ad, bare]}
    assert regions(snap) == {"ASHBURN": "us-ashburn-1", "LONDON": ""}
    snap["resources"] = [nested, ad_first]
    assert regions(snap) == {"ASHBURN": "us-ashburn-1"}
    assert regions({}) == {}
    assert regions({"resources": [res("x", SUBNET, id=REAL)]}) == {}


def _plan(*resources: dict[str, object]) -> Snapshot:
    return {"project": "p", "stack": "s", "resources": list(resources), "outputs": {}}


def test_a_subnet_whose_made_up_vcn_changes_may_be_replaced(rules: Rules) -> None:
    """terraform-provider-oci's subnet has ForceNew `vcn_id`: a real VCN id that changes
    replaces it; a stand-in that changes is a guess, with the lookup named."""
    base = _plan(res("sub", SUBNET, vcnId=VCN_IAD, displayName="s"))
    head = copy.deepcopy(base)
    head["resources"][0]["inputs"]["vcnId"] = f"ocid1.vcn.oc1.us-ashburn-1.{'f' * 20}"
    fate = classify(base, head, rules).of("sub")
    assert (fate.op, fate.maybe) == ("may-replace", (("vcnId", VCN_GUESS),))
    moved = copy.deepcopy(base)
    moved["resources"][0]["inputs"]["vcnId"] = VCN_FRA
    fate = classify(base, moved, rules).of("sub")
    assert (fate.op, fate.replace_because) == ("replace", ("vcnId",))


def test_a_region_named_by_stand_ins_moves_the_default_oci_provider(rules: Rules) -> None:
    """The plans do not record the default provider; its region is what the stand-ins say
    (an AD name only: its key)."""
    base = _plan(res("nsg", NSG, vcnId=VCN_IAD), res("sub", SUBNET, ad="Fake:LONDON-AD-1"))
    head = copy.deepcopy(base)
    head["resources"][0]["inputs"]["vcnId"] = VCN_FRA
    fate = classify(base, head, rules).of("default")
    assert (fate.op, [(c.path, c.old, c.new) for c in fate.inputs]) == (
        "update",
        [("region", "us-ashburn-1, LONDON", "eu-frankfurt-1, LONDON")],
    )
    assert [f.name for f in classify(base, base, rules).changed] == []
