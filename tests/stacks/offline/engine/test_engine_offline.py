"""The engine's rules, offline: URNs as the engine makes them, what it refuses, and what
`pulumi up` does to each resource between two plans (`stacks.offline.lifecycle.fate`)."""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pulumi
import pytest

from stacks.offline.engine.fakes import FakeCloud
from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.monitor import EngineError, RecordingMocks, RecordingMonitor
from stacks.offline.engine.records import Registration
from stacks.offline.engine.urns import engine_urn
from stacks.offline.lifecycle.fate import KNOWN, PROVIDER, classify
from stacks.offline.snapshot.recorded import snapshot_of
from stacks.offline.snapshot.shape import Snapshot

COMPARTMENT = "ocid1.compartment.oc1..x"


class Box(pulumi.ComponentResource):
    def __init__(self, name: str, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("test:index:Box", name, None, opts)
        self.register_outputs({})


class Crate(pulumi.ComponentResource):
    """What Box became: a new type, so its children's URNs change too."""

    def __init__(self, name: str, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("test:index:Crate", name, None, opts)
        self.register_outputs({})


def plan(program: Callable[[], None]) -> Snapshot:
    return snapshot_of(run_program(program, project="p", stack="s", config={}))


def vcn(name: str, *, parent: pulumi.Resource | None = None, **args: Any) -> Any:
    import pulumi_oci as oci

    opts = pulumi.ResourceOptions(parent=parent, **args.pop("opts", {}))
    return oci.core.Vcn(name, compartment_id=COMPARTMENT, opts=opts, **args)


# -- the recording monitor ----------------------------------------------------------------


def test_urns_carry_the_whole_parent_chain_and_no_stack_prefix() -> None:
    def program() -> None:
        outer = Box("outer")
        inner = Box("inner", pulumi.ResourceOptions(parent=outer))
        vcn("net", parent=inner)

    urns = {r["name"]: r["urn"] for r in plan(program)["resources"]}
    assert urns["outer"] == "urn:pulumi:s::p::test:index:Box::outer"
    assert urns["net"] == ("urn:pulumi:s::p::test:index:Box$test:index:Box$oci:Core/vcn:Vcn::net")
    assert engine_urn("s", "p", urns["outer"], "t:m:T", "x") == (
        "urn:pulumi:s::p::test:index:Box$t:m:T::x"
    )


def test_a_duplicate_urn_fails_naming_both_registrations() -> None:
    def program() -> None:
        Box("twin")
        Box("twin")

    seen: list[Registration] = []
    with pytest.raises(EngineError) as caught:
        run_program(program, project="p", stack="s", config={}, registrations=seen)
    message = str(caught.value)
    assert message.startswith(
        "duplicate resource URN urn:pulumi:s::p::test:index:Box::twin: registered by "
        "test:index:Box 'twin' at tests/stacks/offline/engine/test_engine_offline.py:"
    )
    assert message.count("tests/stacks/offline/engine/test_engine_offline.py:") == 2
    assert message.endswith("; give one of them another name")
    assert [r.name for r in seen] == ["twin"]  # the second never registered


def test_a_refused_duplicate_waits_for_the_first_registration_to_be_recorded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Registrations arrive on several threads. Here the first Box's answer is held until
    the second has reached the monitor (the interleaving a loaded machine once produced, in
    which the refusal ended the run before the first was recorded): the first is recorded
    all the same, as the engine registers it whatever happens to the second."""
    second_arrived = threading.Event()
    arrivals: list[str] = []
    check = RecordingMonitor._check

    def counting(self: RecordingMonitor, request: Any, urn: str) -> None:
        arrivals.append(request.name)
        if len(arrivals) == 2:
            second_arrived.set()
        check(self, request, urn)

    class SlowFirst(FakeCloud):
        held = False

        def planned(self, type_: str, name: str, inputs: dict[str, Any]) -> dict[str, Any]:
            if type_ == "test:index:Box" and not SlowFirst.held:
                SlowFirst.held = True
                assert second_arrived.wait(timeout=30), "the second registration never came"
                time.sleep(0.2)  # the refusal, unless it waits, ends the run meanwhile
            return super().planned(type_, name, inputs)

    monkeypatch.setattr(RecordingMonitor, "_check", counting)

    def program() -> None:
        Box("twin")
        Box("twin")

    seen: list[Registration] = []
    with pytest.raises(EngineError, match="duplicate resource URN"):
        run_program(
            program, project="p", stack="s", config={}, cloud=SlowFirst({}), registrations=seen
        )
    assert arrivals == ["twin", "twin"]
    assert [r.name for r in seen] == ["twin"]


def test_a_parent_or_provider_that_never_registered_fails() -> None:
    """What the SDK cannot send, the monitor still refuses (checked on a bare request)."""
    monitor = RecordingMonitor(RecordingMocks(FakeCloud({}), preview=True))
    ghost = "urn:pulumi:s::p::test:index:Box::nobody"
    orphan = SimpleNamespace(type="oci:Core/vcn:Vcn", name="orphan", parent=ghost, provider="")
    with pytest.raises(EngineError, match=f"'orphan': its parent {ghost} is not registered"):
        monitor._check(orphan, "urn:pulumi:s::p::oci:Core/vcn:Vcn::orphan")
    provider = "urn:pulumi:s::p::pulumi:providers:kubernetes::k8s"
    stray = SimpleNamespace(type="t:m:T", name="stray", parent="", provider=f"{provider}::id")
    with pytest.raises(EngineError, match=f"'stray': its provider {provider} is not registered"):
        monitor._check(stray, "urn:pulumi:s::p::t:m:T::stray")


def test_aliases_resolve_to_urns_and_children_inherit_their_parents() -> None:
    def program() -> None:
        was = pulumi.Alias(name="old", type_="test:index:Box")
        crate = Crate("new", pulumi.ResourceOptions(aliases=[was]))
        vcn("net", parent=crate)

    by_name = {r["name"]: r for r in plan(program)["resources"]}
    assert by_name["new"]["aliases"] == ["urn:pulumi:s::p::test:index:Box::old"]
    assert by_name["net"]["urn"] == "urn:pulumi:s::p::test:index:Crate$oci:Core/vcn:Vcn::net"
    assert by_name["net"]["aliases"] == [
        "urn:pulumi:s::p::test:index:Box$oci:Core/vcn:Vcn::net"  # as it was under the Box
    ]


# -- what `pulumi up` does ------------------------------------------------------------------


def test_a_rename_with_an_alias_replaces_nothing_and_without_one_deletes() -> None:
    def before() -> None:
        vcn("net", parent=Box("old"))

    def renamed() -> None:
        was = pulumi.Alias(name="old", type_="test:index:Box")
        vcn("net", parent=Crate("new", pulumi.ResourceOptions(aliases=[was])))

    def renamed_bare() -> None:
        vcn("net", parent=Crate("new"))

    kept = classify(plan(before), plan(renamed))
    assert kept.changed == []
    assert kept.of("net").previous_urn == "urn:pulumi:s::p::test:index:Box$oci:Core/vcn:Vcn::net"
    lost = classify(plan(before), plan(renamed_bare))
    assert sorted((f.op, f.name) for f in lost.changed) == [
        ("create", "net"),
        ("create", "new"),
        ("delete", "net"),
        ("delete", "old"),
    ]


def test_a_provider_rule_replaces_and_an_other_change_updates() -> None:
    base = plan(lambda: vcn("net", cidr_blocks=["10.0.0.0/16"], dns_label="a", display_name="x"))
    relabel = plan(lambda: vcn("net", cidr_blocks=["10.0.0.0/16"], dns_label="b", display_name="x"))
    rename = plan(lambda: vcn("net", cidr_blocks=["10.0.0.0/16"], dns_label="a", display_name="y"))
    fate = classify(base, relabel).of("net")
    assert (fate.op, fate.replace_because, fate.delete_before_replace) == (
        "replace",
        ("dnsLabel",),
        False,
    )
    assert classify(base, rename).of("net").op == "update"
    assert classify(base, base).changed == []


def test_ignore_changes_and_replace_on_changes_options() -> None:
    def with_label(label: str, **opts: Any) -> Snapshot:
        return plan(lambda: vcn("net", dns_label=label, display_name=label, opts=opts))

    ignored = classify(
        with_label("a", ignore_changes=["dnsLabel", "displayName"]),
        with_label("b", ignore_changes=["dnsLabel", "displayName"]),
    ).of("net")
    assert ignored.op is None and ignored.ignored == ("displayName", "dnsLabel")
    forced = classify(
        with_label("a", replace_on_changes=["displayName"]),
        with_label("b", replace_on_changes=["displayName"]),
    ).of("net")
    assert forced.op == "replace" and forced.replace_because == ("displayName", "dnsLabel")


def _resource(key: str, type_: str = "oci:Core/vcn:Vcn", **inputs: Any) -> dict[str, Any]:
    return {
        "urn": f"urn:pulumi:s::p::{type_}::{key}",
        "type": type_,
        "name": key,
        "parent": "",
        "custom": True,
        "dependencies": [],
        "propertyDependencies": {},
        "inputs": inputs,
        "options": {"provider": "", "ignoreChanges": [], "replaceOnChanges": []},
        "aliases": [],
        "secretDigests": {},
    }


def _snap(*resources: dict[str, Any]) -> Snapshot:
    return {"project": "p", "stack": "s", "resources": list(resources), "outputs": {}}


def test_a_replaced_source_makes_its_dependents_inputs_unknown_down_to_the_provider() -> None:
    step = _resource("step", "command:remote:Command", triggers=["a"], stdin="x")
    reader = _resource("reader", "command:remote:Command", triggers=["a"], stdin="y")
    reader["dependencies"] = [step["urn"]]
    k8s = _resource("k8s", "pulumi:providers:kubernetes", kubeconfig="[secret]")
    k8s["propertyDependencies"] = {"kubeconfig": [reader["urn"]]}
    release = _resource("rel", "kubernetes:helm.sh/v3:Release", name="r", chart="c")
    release["options"]["provider"] = k8s["urn"]
    base = _snap(step, reader, k8s, release)

    # the step updated in place: its stdout is unknown at preview, but nothing reads it
    updated = copy.deepcopy(base)
    updated["resources"][0]["inputs"]["stdin"] = "x2"
    fates = classify(base, updated)
    assert [(f.name, f.op) for f in fates.changed] == [("step", "update")]

    # the reader re-runs: the provider's kubeconfig is unknown, so it and the release go
    rerun = copy.deepcopy(base)
    rerun["resources"][1]["inputs"]["triggers"] = ["b"]
    fates = classify(base, rerun)
    assert fates.of("reader").op == "replace"
    provider = fates.of("k8s")
    assert (provider.op, provider.replace_because, provider.unknown) == (
        "replace",
        ("kubeconfig",),
        ("kubeconfig",),
    )
    assert provider.inputs[0].old == KNOWN
    rel = fates.of("rel")
    assert (rel.op, rel.replace_because, rel.delete_before_replace) == (
        "replace",
        (PROVIDER,),
        False,
    )


def test_protect_retain_and_secret_digests() -> None:
    guarded = _resource("guarded", dnsLabel="a")
    guarded["options"]["protect"] = True
    kept = _resource("kept")
    kept["options"]["retainOnDelete"] = True
    keyed = _resource("keyed", "command:remote:Command", stdin="[secret]")
    keyed["secretDigests"] = {"stdin": "1111"}
    base = _snap(guarded, kept, keyed)
    head = copy.deepcopy(base)
    head["resources"] = [copy.deepcopy(guarded), copy.deepcopy(keyed)]
    head["resources"][0]["inputs"]["dnsLabel"] = "b"
    head["resources"][1]["secretDigests"] = {"stdin": "2222"}
    fates = classify(base, head)
    assert fates.of("guarded").protected and fates.of("guarded").op == "replace"
    gone = fates.of("kept")
    assert (gone.op, gone.retained) == ("delete", True)
    rotated = fates.of("keyed")
    assert rotated.op == "update" and [c.path for c in rotated.inputs] == ["stdin"]


def test_old_snapshots_without_options_match_by_identity() -> None:
    """A base planned before the snapshot kept options and the engine's URN spelling."""
    new = _resource("net", dnsLabel="a")
    old = {k: new[k] for k in ("type", "name", "dependencies", "inputs")}
    old |= {"urn": "urn:pulumi:s::p::pulumi:pulumi:Stack$oci:Core/vcn:Vcn::net", "parent": ""}
    fates = classify(_snap(old), _snap(new))
    assert fates.changed == []
    assert fates.of("net").previous_urn == old["urn"]
