"""A `pulumi stack export` as the base snapshot of a plan diff (`stacks.offline.state.snapshot`),
on small documents: each record as the diff reads it, which state resource continues which
planned one, and each input the plan cannot know taken from the plan and listed with why."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from stacks.offline.snapshot.shape import Snapshot
from stacks.offline.state.export import parse_export
from stacks.offline.state.snapshot import (
    SECRET_IN_PLAN,
    UNKNOWN_OFFLINE,
    Uncompared,
    is_default_provider,
    provider_urn,
    state_snapshot,
)
from stacks.offline.state.standins import STANDIN
from stacks.offline.state.synthetic import export_of
from stacks.offline.state.values import DECRYPTED, ENCRYPTED, SECRET_SIG, SIG, UNKNOWN_VALUE
from tests.stacks.offline.state.state_small import (
    COMMAND,
    MINE,
    STACK,
    in_export,
    mini,
    named,
    small_plan,
)
from tests.stacks.offline.synthetic import VCN, res, urn

OCI_DEFAULT = "urn:pulumi:s::p::pulumi:providers:oci::default"


def _base(document: dict[str, Any], head: Snapshot) -> tuple[Snapshot, Any]:
    return state_snapshot(parse_export(copy.deepcopy(document), "e.json"), head)


def _record(base: Snapshot, name: str) -> dict[str, Any]:
    (found,) = [r for r in base["resources"] if r["name"] == name]
    record: dict[str, Any] = found
    return record


@pytest.mark.parametrize(
    ("urn_", "type_", "default"),
    [
        ("urn:pulumi:s::p::pulumi:providers:oci::default", "pulumi:providers:oci", True),
        ("urn:pulumi:s::p::pulumi:providers:oci::default_5_5_0", "pulumi:providers:oci", True),
        ("urn:pulumi:s::p::pulumi:providers:oci::mine", "pulumi:providers:oci", False),
        ("urn:pulumi:s::p::pulumi:providers:oci::my-default", "pulumi:providers:oci", False),
        ("urn:pulumi:s::p::oci:Core/vcn:Vcn::default", "oci:Core/vcn:Vcn", False),
    ],
)
def test_which_providers_are_the_engines_defaults(urn_: str, type_: str, default: bool) -> None:
    """pulumi/pulumi sdk/go/common/providers/reference.go @ v3.259.0 `IsDefaultProvider`."""
    assert is_default_provider(urn_, type_) is default


def test_a_provider_reference_is_its_urn() -> None:
    assert provider_urn(f"{OCI_DEFAULT}::0123") == OCI_DEFAULT
    assert provider_urn(f"{OCI_DEFAULT}::04da6b54-80e4-46f7-96ec-b56ff0331ba9") == OCI_DEFAULT
    assert provider_urn("") == ""


def test_each_record_as_a_plan_records_it() -> None:
    head = small_plan()
    document = export_of(head)
    vcn = in_export(document, "vcn")
    ns_urn = named(head, "ns")["urn"]
    vcn.update(
        dependencies=[ns_urn, OCI_DEFAULT, ns_urn],
        propertyDependencies={"displayName": [ns_urn, OCI_DEFAULT, ns_urn]},
        retainOnDelete=True,
        deletedWith=ns_urn,
        aliases=["urn:pulumi:s::p::oci:Core/vcn:Vcn::older"],
    )
    base, notes = _base(document, head)
    assert (base["project"], base["stack"], base["outputs"]) == (
        "p",
        "s",
        {"kubeconfig": "[secret]", "host": "[unknown]", "names": ["a", "b"]},
    )
    assert [r["urn"] for r in base["resources"]] == sorted(r["urn"] for r in head["resources"])
    assert _record(base, "vcn") == {
        "urn": vcn["urn"],
        "type": VCN,
        "name": "vcn",
        "parent": STACK,
        "custom": True,
        "read": False,
        "dependencies": [ns_urn, OCI_DEFAULT],
        "propertyDependencies": {"displayName": [ns_urn, OCI_DEFAULT]},
        "inputs": {"displayName": "net", "token": "[secret]", "nested": {"ids": ["[unknown]", 1]}},
        "options": {
            "protect": True,
            "deleteBeforeReplace": False,
            "ignoreChanges": [],
            "replaceOnChanges": [],
            "retainOnDelete": True,
            "deletedWith": ns_urn,
            "provider": "",  # the engine's default provider, as a plan records it
        },
        "aliases": ["urn:pulumi:s::p::oci:Core/vcn:Vcn::older"],
        "secretDigests": {},
    }
    ns = _record(base, "ns")
    assert ns["options"]["provider"] == named(head, "k8s")["urn"]
    assert ns["options"]["protect"] is False and ns["options"]["retainOnDelete"] is False
    assert _record(base, "pw")["options"]["provider"] == MINE
    assert _record(base, "looked")["read"] is True
    assert _record(base, "comp")["custom"] is False
    assert notes.default_providers == [
        "urn:pulumi:s::p::pulumi:providers:command::default",
        OCI_DEFAULT,
    ]
    assert notes.condemned == [] and notes.export.path == "e.json"
    assert notes.matched == {r["urn"]: r["urn"] for r in head["resources"]}


def test_an_empty_export_takes_the_plans_stack() -> None:
    head = small_plan()
    base, notes = _base({"version": 3, "deployment": {"manifest": {}}}, head)
    assert base == {"project": "p", "stack": "s", "resources": [], "outputs": {}}
    assert notes.matched == {} and notes.uncompared == []


def test_default_providers_old_copies_and_the_stack_are_not_records() -> None:
    head = small_plan()
    document = export_of(head)
    resources = document["deployment"]["resources"]
    versioned: dict[str, Any] = {
        "urn": "urn:pulumi:s::p::pulumi:providers:random::default_4_16_0",
        "custom": True,
        "type": "pulumi:providers:random",
        "id": "1",
    }
    old_default = {**versioned, "urn": OCI_DEFAULT + "_1_0_0", "delete": True}
    old_vcn = {**in_export(document, "vcn"), "delete": True}
    resources += [versioned, old_default, old_vcn]
    base, notes = _base(document, head)
    assert len(base["resources"]) == len(head["resources"])
    assert "pulumi:pulumi:Stack" not in {r["type"] for r in base["resources"]}
    assert notes.default_providers == [
        "urn:pulumi:s::p::pulumi:providers:command::default",
        OCI_DEFAULT,
        "urn:pulumi:s::p::pulumi:providers:random::default_4_16_0",
    ]
    assert [(r.urn, r.delete) for r in notes.condemned] == [
        (OCI_DEFAULT + "_1_0_0", True),
        (old_vcn["urn"], True),
    ]
    # A resource on the versioned default provider records it as the default ("").
    in_export(document, "pw")["provider"] = versioned["urn"] + "::1"
    base, _ = _base(document, head)
    assert _record(base, "pw")["options"]["provider"] == ""


def test_a_state_resource_continues_the_planned_one_by_urn_alias_or_identity() -> None:
    renamed = res("vcn-new", VCN, displayName="a")
    renamed["aliases"] = [urn(VCN, "vcn-old")]
    head = mini("s", renamed, res("kept", VCN, displayName="b"))
    respelled = res("cmd", COMMAND, create="x")
    respelled["urn"] = urn(COMMAND, "cmd", "pulumi:pulumi:Stack$")  # the mock engine's form
    head["resources"].append(respelled)
    deployed = mini("s", res("vcn-old", VCN, displayName="a"), res("kept", VCN, displayName="b"))
    engine_form = res("cmd", COMMAND, create="x")
    deployed["resources"].append(engine_form)
    deployed["resources"].append(res("gone", VCN, displayName="c"))
    _, notes = _base(export_of(deployed), head)
    assert notes.matched == {
        urn(VCN, "vcn-old"): urn(VCN, "vcn-new"),
        urn(VCN, "kept"): urn(VCN, "kept"),
        engine_form["urn"]: respelled["urn"],
    }


def test_one_planned_resource_continues_one_state_resource() -> None:
    """The state holding both a resource and the alias it was renamed from: the first in the
    state continues it, the other is the program's no longer."""
    renamed = res("vcn", VCN, displayName="a")
    renamed["aliases"] = [urn(VCN, "vcn-old")]
    head = mini("s", renamed)
    deployed = mini("s", res("vcn", VCN, displayName="a"), res("vcn-old", VCN, displayName="a"))
    _, notes = _base(export_of(deployed), head)
    assert notes.matched == {urn(VCN, "vcn"): urn(VCN, "vcn")}
    deployed["resources"].reverse()
    _, notes = _base(export_of(deployed), head)
    assert notes.matched == {urn(VCN, "vcn-old"): urn(VCN, "vcn")}


def _vm(name: str = "gpu-vm-0") -> dict[str, Any]:
    return res(name, "oci:Core/instance:Instance", shape="VM.GPU.A10.1")


def _inputs_against(state: dict[str, Any], plan: dict[str, Any]) -> tuple[Any, list[Any]]:
    """The base's inputs of `w` deployed with `state` and planned with `plan`, and what is
    not compared."""
    head = mini("s", _vm(), res("w", VCN, **plan))
    deployed = mini("s", _vm(), res("w", VCN, displayName="x"))
    document = export_of(deployed)
    in_export(document, "w")["inputs"] = state
    base, notes = _base(document, head)
    return _record(base, "w")["inputs"], [(u.path, u.why) for u in notes.uncompared]


W = urn(VCN, "w")
ENC = {SIG: SECRET_SIG, "ciphertext": "v1:x"}
DEC = {SIG: SECRET_SIG, "plaintext": '"x"'}


@pytest.mark.parametrize(
    ("state", "plan", "inputs", "uncompared"),
    [
        # The same value: compared, nothing to say.
        ({"a": "x", "n": [1, 2]}, {"a": "x", "n": [1, 2]}, {"a": "x", "n": [1, 2]}, []),
        # A change is kept as deployed, for the diff to show.
        ({"a": "old"}, {"a": "new"}, {"a": "old"}, []),
        ({"a": 1}, {"a": "1"}, {"a": 1}, []),
        # Unknown in the plan: not compared, unless the state has no value there either.
        ({"a": "ocid1.real"}, {"a": "[unknown]"}, {"a": "[unknown]"}, [("a", UNKNOWN_OFFLINE)]),
        ({"a": UNKNOWN_VALUE}, {"a": "[unknown]"}, {"a": "[unknown]"}, []),
        ({"a": {"b": [1]}}, {"a": "[unknown]"}, {"a": "[unknown]"}, [("a", UNKNOWN_OFFLINE)]),
        # Secrets: encrypted, decrypted, or a placeholder in the plan.
        ({"a": ENC}, {"a": "plain"}, {"a": "plain"}, [("a", ENCRYPTED)]),
        ({"a": DEC}, {"a": "[secret]"}, {"a": "[secret]"}, [("a", DECRYPTED)]),
        ({"a": "plain"}, {"a": "[secret]"}, {"a": "[secret]"}, [("a", SECRET_IN_PLAN)]),
        ({"a": ENC}, {}, {"a": "[secret]"}, []),  # no longer planned: not compared, deleted
        # A stand-in with the real value in its place (the VM's address).
        (
            {"url": "https://198.51.100.7:6443"},
            {"url": "https://203.0.113.50:6443"},
            {"url": "https://203.0.113.50:6443"},
            [("url", STANDIN)],
        ),
        (
            {"url": "http://198.51.100.7:6443"},
            {"url": "https://203.0.113.50:6443"},
            {"url": "http://198.51.100.7:6443"},
            [],
        ),
        # Inside objects and lists of the same length, path by path.
        (
            {"o": {"a": "ocid1.real", "b": 1, "extra": 2}, "l": ["ocid1.real", 5]},
            {"o": {"a": "[unknown]", "b": 1, "new": 3}, "l": ["[unknown]", 5]},
            {"o": {"a": "[unknown]", "b": 1, "extra": 2}, "l": ["[unknown]", 5]},
            [("l[0]", UNKNOWN_OFFLINE), ("o.a", UNKNOWN_OFFLINE)],
        ),
        # Lists of another length, or another kind of value: the state's, whole.
        (
            {"l": ["ocid1.real", 5, 6]},
            {"l": ["[unknown]", 5]},
            {"l": ["ocid1.real", 5, 6]},
            [],
        ),
        ({"o": {"a": "ocid1.real"}}, {"o": ["[unknown]"]}, {"o": {"a": "ocid1.real"}}, []),
        ({"o": ["ocid1.real"]}, {"o": {"0": "[unknown]"}}, {"o": ["ocid1.real"]}, []),
        # Inside a list: a secret, a stand-in, a change.
        (
            {"l": [ENC, "https://198.51.100.7", "old"]},
            {"l": ["x", "https://203.0.113.50", "new"]},
            {"l": ["x", "https://203.0.113.50", "old"]},
            [("l[0]", ENCRYPTED), ("l[1]", STANDIN)],
        ),
        # The same text holding a stand-in: compared, and equal.
        (
            {"url": "https://203.0.113.50:6443"},
            {"url": "https://203.0.113.50:6443"},
            {"url": "https://203.0.113.50:6443"},
            [],
        ),
        # A stand-in in the plan where the state has no text: the state's value, a change.
        ({"url": 6443}, {"url": "https://203.0.113.50"}, {"url": 6443}, []),
        ({"url": None}, {"url": "ocid1.vcn.oc1.iad." + "0" * 20}, {"url": None}, []),
        # Keys that are no identifiers are paths as the diff writes them.
        (
            {"app.kubernetes.io/name": "real", "a b": ENC},
            {"app.kubernetes.io/name": "[unknown]", "a b": "x"},
            {"app.kubernetes.io/name": "[unknown]", "a b": "x"},
            [('["a b"]', ENCRYPTED), ('["app.kubernetes.io/name"]', UNKNOWN_OFFLINE)],
        ),
    ],
)
def test_what_the_plan_cannot_know_is_taken_from_the_plan(
    state: dict[str, Any], plan: dict[str, Any], inputs: Any, uncompared: list[Any]
) -> None:
    assert _inputs_against(state, plan) == (inputs, uncompared)


def test_uncompared_inputs_name_the_planned_resource_by_path() -> None:
    renamed = res("w-new", VCN, b="[unknown]", a="[unknown]")
    renamed["aliases"] = [urn(VCN, "w")]
    head = mini("s", renamed)
    head["outputs"] = {"z": "[unknown]", "kube": "[secret]", "same": 1}
    deployed = mini("s", res("w", VCN, b="real-b", a="real-a"))
    deployed["outputs"] = {"z": "real", "kube": "[secret]", "same": 1}
    base, notes = _base(export_of(deployed), head)
    new_urn = urn(VCN, "w-new")
    assert notes.uncompared == [
        Uncompared(new_urn, "w-new", "a", UNKNOWN_OFFLINE),
        Uncompared(new_urn, "w-new", "b", UNKNOWN_OFFLINE),
        Uncompared("", "", "kube", ENCRYPTED),
        Uncompared("", "", "z", UNKNOWN_OFFLINE),
    ]
    assert base["outputs"] == {"z": "[unknown]", "kube": "[secret]", "same": 1}


def test_an_unmatched_resource_keeps_its_inputs_as_deployed() -> None:
    """Not planned: nothing to align with, and what providers add is not dropped."""
    head = mini("s", res("planned", VCN, displayName="p"))
    gone = res("gone", VCN, displayName="[secret]", nested={"id": "ocid1.real"})
    deployed = mini("s", gone)
    document = export_of(deployed)
    in_export(document, "gone")["inputs"]["__defaults"] = ["x"]
    base, notes = _base(document, head)
    assert _record(base, "gone")["inputs"] == {
        "displayName": "[secret]",
        "nested": {"id": "ocid1.real"},
        "__defaults": ["x"],
    }
    assert notes.uncompared == [] and notes.matched == {}


def test_what_providers_add_is_dropped_before_comparing() -> None:
    head = mini("s", res("w", VCN, displayName="p"))
    document = export_of(head)
    in_export(document, "w")["inputs"].update({"__defaults": ["dns"], "dns": "w"})
    base, _ = _base(document, head)
    assert _record(base, "w")["inputs"] == {"displayName": "p"}


def test_the_plan_is_not_changed() -> None:
    head = small_plan()
    _base(export_of(head), head)
    assert head == small_plan()


def test_every_resources_and_outputs_uncompared_inputs_are_listed() -> None:
    """Resources in the state's order (one the plan no longer has among them), each's paths
    sorted, then the stack's outputs."""
    head = mini("s", res("u", VCN, a="[unknown]"), res("v", VCN, b="[unknown]", a="[unknown]"))
    head["outputs"] = {
        "x.y": "[unknown]",
        "kube": "[secret]",
        "kube.old": "[secret]",
        "url": "new",
        "same": 1,
    }
    deployed = mini(
        "s",
        res("gone", VCN, a="[unknown]"),
        res("u", VCN, a="real"),
        res("v", VCN, b="real", a="real"),
    )
    document = export_of(deployed)
    document["deployment"]["resources"][0]["outputs"] = {
        "x.y": "real",
        "kube": {SIG: SECRET_SIG, "ciphertext": "v1:x"},
        "kube.old": {SIG: SECRET_SIG, "ciphertext": "v1:y"},
        "url": "old",
        "same": 1,
    }
    base, notes = _base(document, head)
    assert [(u.name, u.path, u.why) for u in notes.uncompared] == [
        ("u", "a", UNKNOWN_OFFLINE),
        ("v", "a", UNKNOWN_OFFLINE),
        ("v", "b", UNKNOWN_OFFLINE),
        ("", '["kube.old"]', ENCRYPTED),
        ("", '["x.y"]', UNKNOWN_OFFLINE),
        ("", "kube", ENCRYPTED),
    ]
    assert base["outputs"] == {
        "x.y": "[unknown]",
        "kube": "[secret]",
        "kube.old": "[secret]",
        "url": "old",
        "same": 1,
    }
    assert _record(base, "gone")["inputs"] == {"a": "[unknown]"}


def test_a_plan_without_outputs_keeps_the_states() -> None:
    """Outputs no longer planned are removed, not uncompared: the diff shows them gone."""
    head = mini("s", res("u", VCN, a="x"))
    del head["outputs"]
    deployed = mini("s", res("u", VCN, a="x"))
    deployed["outputs"] = {"kube": "[secret]", "n": 1}
    base, notes = _base(export_of(deployed), head)
    assert base["outputs"] == {"kube": "[secret]", "n": 1}
    assert notes.uncompared == []
    head["outputs"] = {"kube": "[secret]"}
    _, notes = _base(export_of(deployed), head)
    assert [(u.path, u.why) for u in notes.uncompared] == [("kube", ENCRYPTED)]


def test_the_same_urn_is_the_same_resource_whatever_its_parents() -> None:
    """The state's resource under a component the plan no longer records: its identity
    chain differs, its URN does not."""
    child = res("v", VCN, a="x")
    child["urn"] = urn(VCN, "v", "gpu-ci:x:Comp$")
    comp = res("comp", "gpu-ci:x:Comp")
    comp["custom"] = False
    deployed = mini("s", comp, {**child, "parent": comp["urn"]})
    head = mini("s", child)
    _, notes = _base(export_of(deployed), head)
    assert notes.matched == {child["urn"]: child["urn"]}


def test_a_default_the_program_now_sets_is_compared() -> None:
    head = mini("s", res("w", VCN, displayName="p", dnsLabel="mine"))
    document = export_of(mini("s", res("w", VCN, displayName="p")))
    in_export(document, "w")["inputs"].update({"__defaults": ["dnsLabel"], "dnsLabel": "auto"})
    base, _ = _base(document, head)
    assert _record(base, "w")["inputs"] == {"displayName": "p", "dnsLabel": "auto"}
