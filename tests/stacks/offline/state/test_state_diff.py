"""`stacks diff --state EXPORT HEAD`: what `pulumi up` of a plan does to the deployed stack.

The export becomes the base of the same plan diff, so the same rules decide; what only the
state says (taint, pending operations, old copies, encrypted inputs) is applied and said
by the engine's own rules (pulumi/pulumi pkg/resource/deploy/step_generator.go @ v3.259.0)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from stacks.offline.cli import main
from stacks.offline.diff.changes import diff_snapshots
from stacks.offline.snapshot.paths import InputChange
from stacks.offline.snapshot.shape import Snapshot
from stacks.offline.state.diff import StateDiff, diff_state, render_state_text
from stacks.offline.state.snapshot import SECRET_IN_PLAN, UNKNOWN_OFFLINE
from stacks.offline.state.standins import STANDIN
from stacks.offline.state.synthetic import export_of
from stacks.offline.state.values import (
    DECRYPTED,
    ENCRYPTED,
    SECRET_SIG,
    SIG,
)
from tests.stacks.offline.state.state_helpers import (
    export,
    parsed,
    plan,
    plan_resource,
    state_resource,
)

VCN = (
    "urn:pulumi:dev::gpu-ci::gpu-ci:capacity:VmCapacity$gpu-ci:network:OciNetwork"
    "$oci:Core/vcn:Vcn::network-vcn"
)
INSTANCE = "oci:Core/instance:Instance"


def against(document: dict[str, Any], head: Snapshot | None = None) -> StateDiff:
    return diff_state(parsed(document), head if head is not None else plan("dev"))


def ops(result: StateDiff) -> dict[str, str]:
    return {c.name: c.op for c in result.diff.resources}


def all_but_one() -> int:
    """How many of the dev plan's resources a change to one of them leaves unchanged."""
    return len(plan("dev")["resources"]) - 1


def test_a_changed_input_is_an_update_against_the_deployed_value() -> None:
    document = export("dev")
    state_resource(document, "network-vcn")["inputs"]["displayName"] = "renamed-by-hand"
    result = against(document)
    (change,) = result.diff.resources
    assert (change.key, change.op) == (VCN, "update")
    assert change.inputs == (InputChange("displayName", "renamed-by-hand", "network-vcn"),)
    assert render_state_text(result).splitlines()[:3] == [
        "gpu-ci/dev (deployed state) → gpu-ci/dev: 0 to create, 1 to update, 0 to replace, "
        f"0 to delete, {all_but_one()} unchanged",
        " ~ oci:Core/vcn:Vcn  network-vcn",
        '      displayName: "renamed-by-hand" → "network-vcn"',
    ]


def _shape(snap: Snapshot) -> None:
    plan_resource(snap, "gpu-vm-0", INSTANCE)["inputs"]["shape"] = "VM.GPU.A10.2"


def _cidr(snap: Snapshot) -> None:
    plan_resource(snap, "network-vcn")["inputs"]["cidrBlocks"] = ["10.9.0.0/16"]


def _namespace(snap: Snapshot) -> None:
    plan_resource(snap, "monitoring-ns")["inputs"]["metadata"]["name"] = "old-monitoring"


def _password(snap: Snapshot) -> None:
    plan_resource(snap, "monitoring-grafana-password")["inputs"]["length"] = 24


def _dropped(snap: Snapshot) -> None:
    snap["resources"] = [r for r in snap["resources"] if r["name"] != "platform-checks-ns"]


@pytest.mark.parametrize("deployed", [_shape, _cidr, _namespace, _password, _dropped])
def test_the_same_rules_decide_as_plan_against_plan(deployed: Callable[[Snapshot], None]) -> None:
    """Whatever the lifecycle rules say today, a stack deployed from plan P and diffed as an
    export gets exactly the operations that plan P diffed against the head gets."""
    head = plan("dev")
    old = copy.deepcopy(head)
    deployed(old)
    expected = diff_snapshots(old, head)
    result = diff_state(parsed(export_of(old)), head)
    assert result.diff.resources == expected.resources
    assert result.diff.unchanged == expected.unchanged
    assert expected.resources  # each case changes something


def test_a_resource_missing_from_the_state_is_created_and_said() -> None:
    document = export("dev")
    resources = document["deployment"]["resources"]
    resources.remove(state_resource(document, "monitoring-ns"))
    result = against(document)
    assert ops(result)["monitoring-ns"] == "create"
    lines = render_state_text(result).splitlines()
    assert (
        "  declared, not in the state (1: created by `pulumi up`; new in the program, or "
        "skipped by a `--target` update): monitoring-ns"
    ) in lines
    assert result.as_json()["state"]["notInState"] == [
        "urn:pulumi:dev::gpu-ci::gpu-ci:observability:Monitoring$kubernetes:core/v1:Namespace"
        "::monitoring-ns"
    ]


def test_a_resource_the_program_no_longer_declares_is_deleted() -> None:
    document = export("dev")
    extra = copy.deepcopy(state_resource(document, "network-vcn"))
    extra["urn"] = "urn:pulumi:dev::gpu-ci::oci:Core/vcn:Vcn::network-vcn-old"
    extra["parent"] = "urn:pulumi:dev::gpu-ci::pulumi:pulumi:Stack::gpu-ci-dev"
    document["deployment"]["resources"].append(extra)
    result = against(document)
    assert ops(result) == {"network-vcn-old": "delete"}
    assert (
        "  in the state, not declared by the program (1: deleted by `pulumi up`; a removal "
        "not yet applied, or left by a `--target` update): network-vcn-old"
    ) in render_state_text(result).splitlines()


def test_a_pending_operation_is_reported_never_resolved() -> None:
    document = export("dev")
    vm = copy.deepcopy(state_resource(document, "gpu-vm-0", INSTANCE))
    document["deployment"]["pending_operations"] = [
        {"type": "creating", "resource": vm},
        {"type": "deleting", "resource": state_resource(document, "network-vcn")},
    ]
    result = against(document)
    assert result.diff.resources == [] and result.changed
    assert [(f.kind, f.name) for f in result.facts] == [
        ("pending:creating", "gpu-vm-0"),
        ("pending:deleting", "network-vcn"),
    ]
    lines = render_state_text(result).splitlines()
    assert (
        "  ! oci:Core/instance:Instance  gpu-vm-0: interrupted while creating: may exist "
        "without being in the state: `pulumi up` creates it again (a duplicate, or a name "
        "conflict); first resolve it with `pulumi refresh` (clear or import)"
    ) in lines
    assert (
        "  ! oci:Core/vcn:Vcn  network-vcn: interrupted while deleting: may be gone already "
        "while the state still holds it"
    ) in lines


def test_an_encrypted_secret_is_not_compared_and_not_guessed() -> None:
    head = plan("dev")
    document = export_of(head)
    # The plan now holds another secret (its digest differs): still not compared.
    verify = plan_resource(head, "host-0-verify")
    verify["secretDigests"] = {"connection": "id1:0000000000000000"}
    # A plain input deployed as a secret cannot be compared either.
    vcn = state_resource(document, "network-vcn")
    vcn["inputs"]["displayName"] = {SIG: SECRET_SIG, "ciphertext": "v1:abc"}
    result = against(document, head)
    assert result.diff.resources == []
    why = {(u.name, u.path): u.why for u in result.notes.uncompared}
    assert why[("host-0-verify", "connection")] == ENCRYPTED
    assert why[("network-vcn", "displayName")] == ENCRYPTED
    assert "    network-vcn displayName: encrypted in the state" in render_state_text(result)


def test_a_decrypted_export_keeps_no_plaintext(tmp_path: Path) -> None:
    document = export("dev")
    for name in ("host-0-verify", "monitoring-grafana-admin"):
        inputs = state_resource(document, name)["inputs"]
        key = "connection" if name == "host-0-verify" else "stringData"
        inputs[key] = {SIG: SECRET_SIG, "plaintext": json.dumps("hunter2-plaintext")}
    result = against(document)
    assert {(u.name, u.why) for u in result.notes.uncompared if u.path != "connection"} >= {
        ("monitoring-grafana-admin", DECRYPTED)
    }
    out = tmp_path / "diff.json"
    (tmp_path / "export.json").write_text(json.dumps(document))
    (tmp_path / "head.json").write_text(json.dumps(plan("dev")))
    code = main(
        ["diff", "--state", str(tmp_path / "export.json"), str(tmp_path / "head.json"),
         "--markdown", "--json", str(out)]
    )  # fmt: skip
    assert code == 0
    assert "hunter2" not in out.read_text() and "hunter2" not in json.dumps(result.as_json())


@pytest.mark.parametrize(
    ("field", "value", "op", "kind"),
    [
        ("taint", True, "replace", "taint"),
        ("pendingReplacement", True, "replace", "pendingReplacement"),
        ("initErrors", ["timed out waiting for the condition"], "update", "initErrors"),
    ],
)
def test_what_the_state_marks_forces_an_operation(
    field: str, value: object, op: str, kind: str
) -> None:
    document = export("dev")
    state_resource(document, "network-vcn")[field] = value
    result = against(document)
    assert ops(result) == {"network-vcn": op}
    assert [(f.kind, f.urn) for f in result.facts] == [(kind, VCN)]
    assert result.diff.unchanged == all_but_one()


def test_an_old_copy_pending_deletion_is_reported() -> None:
    document = export("dev")
    old = copy.deepcopy(state_resource(document, "network-vcn"))
    old["delete"] = True
    document["deployment"]["resources"].append(old)
    result = against(document)
    assert result.diff.resources == [] and result.changed
    assert [(f.kind, f.name) for f in result.facts] == [("condemned", "network-vcn")]


def test_what_providers_add_to_the_state_is_no_change() -> None:
    """Terraform-bridge `__defaults` (pulumi-terraform-bridge pkg/tfbridge/schema.go @
    v3.136.0), a provider's `version`/`__internal` (pulumi/pulumi
    pkg/resource/deploy/providers/registry.go @ v3.259.0), a Kubernetes autoname
    (pulumi-kubernetes provider/pkg/metadata/naming.go @ v4.32.0)."""
    head = plan("dev")
    del plan_resource(head, "monitoring-ns")["inputs"]["metadata"]["name"]
    document = export_of(plan("dev"))
    vcn = state_resource(document, "network-vcn")["inputs"]
    vcn.update({"__defaults": ["isIpv6enabled"], "isIpv6enabled": False})
    provider = state_resource(document, "cluster-k8s")["inputs"]
    provider.update({"version": "4.34.2", "__internal": {"pluginDownloadURL": ""}})
    namespace = state_resource(document, "monitoring-ns")["inputs"]["metadata"]
    namespace.update(name="monitoring-x7k2p", annotations={"pulumi.com/autonamed": "true"})
    assert against(document, head).diff.resources == []
    # A key the provider did not default is the program's: dropping it is a change.
    vcn["isIpv6enabled"] = True
    vcn["__defaults"] = []
    (change,) = against(document, head).diff.resources
    assert change.inputs == (InputChange("isIpv6enabled", True, change.inputs[0].new),)


def test_stand_ins_and_unknowns_are_not_compared() -> None:
    """The VM's real address where the plan has its TEST-NET-3 stand-in, an OCID where the
    plan has an unknown: not changes, said to be not compared."""
    document = export("dev")
    kubeconfig = state_resource(document, "cluster-cluster-kubeconfig")["inputs"]
    assert "203.0.113.50" in kubeconfig["create"]
    kubeconfig["create"] = kubeconfig["create"].replace("203.0.113.50", "198.51.100.7")
    subnet = state_resource(document, "network-subnet")["inputs"]
    subnet["vcnId"] = "ocid1.vcn.oc1.iad.amaaaaaarealvcnidentifier"
    result = against(document)
    assert result.diff.resources == []
    why = {(u.name, u.path): u.why for u in result.notes.uncompared}
    assert why[("cluster-cluster-kubeconfig", "create")] == STANDIN
    assert why[("network-subnet", "vcnId")] == UNKNOWN_OFFLINE
    # Anything else differing in the same text is a change.
    kubeconfig["create"] = kubeconfig["create"].replace("mktemp", "mktemp -d")
    assert ops(against(document))["cluster-cluster-kubeconfig"] == "update"


def test_a_plain_state_value_under_a_plan_secret_is_not_compared() -> None:
    head = plan("dev")
    plan_resource(head, "network-vcn")["inputs"]["displayName"] = "[secret]"
    result = against(export("dev"), head)
    assert result.diff.resources == []
    assert ("network-vcn", "displayName", SECRET_IN_PLAN) in {
        (u.name, u.path, u.why) for u in result.notes.uncompared
    }
