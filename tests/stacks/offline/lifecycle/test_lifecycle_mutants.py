"""What the next `pulumi up` does to each resource (`stacks.offline.lifecycle.fate`), decided
in-process on small synthetic snapshots, each fate compared whole.

The expected operations follow the upstream rules `stacks/offline/lifecycle/replacements/` cites:
terraform-provider-oci's ForceNew and CustomizeDiff facts (a VCN's `dns_label`, an instance's
`metadata.user_data`), pulumi-kubernetes' Diff (every kind's name and namespace, a ConfigMap's
data unless `enableConfigMapMutable`, delete first only for a named object that keeps its
name and namespace), pulumi-command's `triggers`, and the engine's step generator (a resource
whose provider changed is replaced for "provider" without the provider's Diff; a resource's own
`deleteBeforeReplace`, `replaceOnChanges`, `ignoreChanges`, `protect`, `retainOnDelete`).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from stacks.offline.lifecycle.delete_first import SECRET, UNKNOWN
from stacks.offline.lifecycle.fate import (
    KNOWN,
    PROVIDER,
    Fate,
    Lifecycle,
    classify,
    forces,
    replace_patterns,
)
from stacks.offline.lifecycle.replacement_rules import RULES, Rules, rules_from
from stacks.offline.snapshot.paths import MISSING, InputChange
from stacks.offline.snapshot.shape import Snapshot
from tests.stacks.offline.synthetic import VCN, res, urn

SUBNET = "oci:Core/subnet:Subnet"
INSTANCE = "oci:Core/instance:Instance"
COMMAND = "command:remote:Command"
K8S = "pulumi:providers:kubernetes"
CONFIG_MAP = "kubernetes:core/v1:ConfigMap"
RELEASE = "kubernetes:helm.sh/v3:Release"


@pytest.fixture(scope="module")
def rules() -> Rules:
    return rules_from(RULES)


def on(provider: dict[str, Any], r: dict[str, Any]) -> dict[str, Any]:
    r["options"]["provider"] = provider["urn"]
    return r


def fed(r: dict[str, Any], prop: str, *sources: dict[str, Any]) -> dict[str, Any]:
    """`r` with input `prop` built from the outputs of `sources`."""
    r["propertyDependencies"][prop] = [s["urn"] for s in sources]
    r["dependencies"] = sorted({*r["dependencies"], *(s["urn"] for s in sources)})
    return r


def snap(*resources: dict[str, Any]) -> Snapshot:
    return {"project": "p", "stack": "s", "resources": list(resources), "outputs": {}}


def edited(base: Snapshot, name: str, /, **inputs: Any) -> Snapshot:
    """`base` with inputs of resource `name` set (a value of MISSING removes it)."""
    head = copy.deepcopy(base)
    for r in head["resources"]:
        if r["name"] == name:
            for key, value in inputs.items():
                if value is MISSING:
                    del r["inputs"][key]
                else:
                    r["inputs"][key] = value
    return head


# -- created, deleted, left alone -----------------------------------------------------------


def test_a_resource_only_in_the_new_plan_is_created_and_one_it_drops_is_deleted() -> None:
    kept, new = res("kept", dnsLabel="a"), res("new", dnsLabel="b")
    guarded, retained = res("guarded"), res("retained")
    guarded["options"]["protect"] = True
    retained["options"]["retainOnDelete"] = True
    fates = classify(snap(kept, res("gone"), guarded, retained), snap(kept, new))
    assert fates.fates == [
        Fate(kept["urn"], VCN, "kept", None),
        Fate(new["urn"], VCN, "new", "create"),
        Fate(urn(VCN, "gone"), VCN, "gone", "delete"),
        Fate(guarded["urn"], VCN, "guarded", "delete", protected=True),
        Fate(retained["urn"], VCN, "retained", "delete", retained=True),
    ]
    assert fates.changed == fates.fates[1:]


def test_a_read_is_never_created_updated_or_deleted() -> None:
    """A `get`/StackReference reads what exists: the engine runs no step on it."""
    ref = {**res("ref", "pulumi:pulumi:StackReference", name="org/p/dev"), "read": True}
    other = copy.deepcopy(ref)
    other["inputs"]["name"] = "org/p/prod"
    assert classify(snap(), snap(ref)).fates == [Fate(ref["urn"], ref["type"], "ref", None)]
    assert classify(snap(ref), snap(other)).fates == [Fate(ref["urn"], ref["type"], "ref", None)]
    assert classify(snap(ref), snap()).fates == [Fate(ref["urn"], ref["type"], "ref", None)]


def test_a_component_has_no_operation_of_its_own() -> None:
    """Components (`custom: false`, or a gpu-ci type in snapshots older than `custom`)
    register no cloud resource: their inputs changing runs nothing."""
    box = {**res("box", "test:index:Box", size=1), "custom": False}
    host = res("host", "gpu-ci:host:GpuHost", size=1)
    del host["custom"]
    vm = res("vm", VCN, displayName="a")
    del vm["custom"]
    base = snap(box, host, vm)
    head = snap(*(copy.deepcopy(r) for r in base["resources"]))
    for r in head["resources"]:
        r["inputs"] = {"size": 2} if r is not head["resources"][2] else {"displayName": "b"}
    fates = classify(base, head)
    assert {f.name: f.op for f in fates.fates} == {"box": None, "host": None, "vm": "update"}


def test_lifecycle_of_finds_exactly_one_resource_by_name_and_type() -> None:
    a, b = Fate("u1", VCN, "net", None), Fate("u2", SUBNET, "net", "create")
    c = Fate("u3", SUBNET, "sub", None)
    found = Lifecycle([a, b, c])
    assert found.of("sub") is c
    assert found.of("net", SUBNET) is b
    assert found.of("net", VCN) is a
    with pytest.raises(LookupError) as two:
        found.of("net")
    assert str(two.value) == "expected one resource named 'net', found 2"
    with pytest.raises(LookupError) as none:
        found.of("sub", VCN)
    assert str(none.value) == "expected one resource named 'sub', found 0"


# -- replaced or updated: the providers' rules and the resource's options -----------------


def test_a_force_new_attribute_replaces_and_any_other_updates(rules: Rules) -> None:
    """oci_core_vcn: `dns_label` is ForceNew, `display_name` is not."""
    base = snap(res("net", cidrBlocks=["10.0.0.0/16"], dnsLabel="a", displayName="x"))
    relabel = classify(base, edited(base, "net", dnsLabel="b"), rules).of("net")
    assert relabel == Fate(
        urn(VCN, "net"),
        VCN,
        "net",
        "replace",
        ("dnsLabel",),
        inputs=(InputChange("dnsLabel", "a", "b"),),
    )
    rename = classify(base, edited(base, "net", displayName="y"), rules).of("net")
    assert rename == Fate(
        urn(VCN, "net"), VCN, "net", "update", inputs=(InputChange("displayName", "x", "y"),)
    )
    both = classify(base, edited(base, "net", displayName="y", dnsLabel="b")).of("net")
    assert (both.op, both.replace_because) == ("replace", ("dnsLabel",))
    assert [c.path for c in both.inputs] == ["displayName", "dnsLabel"]
    assert classify(base, copy.deepcopy(base)).fates == [Fate(urn(VCN, "net"), VCN, "net", None)]


def test_an_instance_is_replaced_by_its_user_data_and_keys_not_by_other_metadata(
    rules: Rules,
) -> None:
    """core_instance_resource.go CustomizeDiff: ForceNewIfChange("metadata", ...) compares
    only `ssh_authorized_keys` and `user_data`."""
    base = snap(res("vm", INSTANCE, metadata={"user_data": "a", "note": "x"}, shape="A10"))
    for key in ("user_data", "ssh_authorized_keys"):
        head = edited(base, "vm", metadata={"user_data": "a", "note": "x", key: "b"})
        fate = classify(base, head, rules).of("vm")
        assert (fate.op, fate.replace_because) == ("replace", (f"metadata.{key}",))
    note = classify(base, edited(base, "vm", metadata={"user_data": "a", "note": "y"}), rules)
    assert (note.of("vm").op, note.of("vm").replace_because) == ("update", ())
    shape = classify(base, edited(base, "vm", shape="A10.2"), rules).of("vm")
    assert (shape.op, shape.replace_because) == ("update", ())


def test_replace_on_changes_and_ignore_changes_options(rules: Rules) -> None:
    net = res("net", dnsLabel="a", displayName="a", freeformTags={"k": "a"})
    net["options"]["replaceOnChanges"] = ["displayName"]
    net["options"]["ignoreChanges"] = ["freeformTags"]
    base = snap(net)
    tags = classify(base, edited(base, "net", freeformTags={"k": "b"}), rules).of("net")
    assert tags == Fate(net["urn"], VCN, "net", None, ignored=("freeformTags.k",))
    named = edited(base, "net", displayName="b", freeformTags={"k": "b"})
    assert classify(base, named, rules).of("net") == Fate(
        net["urn"],
        VCN,
        "net",
        "replace",
        ("displayName",),
        inputs=(InputChange("displayName", "a", "b"),),
        ignored=("freeformTags.k",),
        # the replacement is made with the old tags: the engine copies every ignoreChanges
        # path's old value in first (step_generator.go continueStepsFromImport:
        # `processIgnoreChanges(sg.deployment.Diag(), urn, inputs, old.Inputs, ...)`)
        kept_on_replace=("freeformTags",),
    )
    # an ignored ForceNew attribute replaces nothing (the engine drops it before the Diff)
    net["options"]["ignoreChanges"] = ["dnsLabel"]
    ignored = classify(snap(net), edited(snap(net), "net", dnsLabel="b"), rules).of("net")
    assert (ignored.op, ignored.ignored) == (None, ("dnsLabel",))


def test_options_missing_from_an_old_snapshot_read_as_the_engines_defaults(
    rules: Rules,
) -> None:
    old = res("net", dnsLabel="a", displayName="a")
    for key in ("options", "aliases", "secretDigests", "propertyDependencies", "custom", "read"):
        del old[key]
    new = res("net", dnsLabel="a", displayName="b")
    assert classify(snap(old), snap(new), rules).of("net") == Fate(
        new["urn"], VCN, "net", "update", inputs=(InputChange("displayName", "a", "b"),)
    )
    relabel = res("net", dnsLabel="b", displayName="a")
    assert classify(snap(relabel), snap(old), rules).of("net").op == "replace"
    gone = classify(snap(old), snap(), rules).fates
    assert gone == [Fate(old["urn"], VCN, "net", "delete")]


def test_a_protected_replacement_is_flagged_whether_old_or_new_protects_it(
    rules: Rules,
) -> None:
    """The state's `protect` (old) refuses the replacement, and so does a program that
    protects it now; an update of a protected resource is allowed."""
    plain = res("net", dnsLabel="a", displayName="a")
    guarded = copy.deepcopy(plain)
    guarded["options"]["protect"] = True
    for base, head in ((guarded, plain), (plain, guarded)):
        fate = classify(snap(base), edited(snap(head), "net", dnsLabel="b"), rules).of("net")
        assert (fate.op, fate.protected) == ("replace", True)
        update = classify(snap(base), edited(snap(head), "net", displayName="b")).of("net")
        assert (update.op, update.protected) == ("update", False)
    fate = classify(snap(plain), edited(snap(plain), "net", dnsLabel="b"), rules).of("net")
    assert fate.protected is False


# -- delete first --------------------------------------------------------------------------


def _config_map(name: str | None, provider: dict[str, Any] | None = None) -> dict[str, Any]:
    metadata = {"namespace": "ns"} | ({"name": name} if name else {})
    r = res("cm", CONFIG_MAP, metadata=metadata, data={"k": "a"})
    return on(provider, r) if provider else r


def test_a_named_config_map_whose_data_changes_is_deleted_first(rules: Rules) -> None:
    """pulumi-kubernetes: `.data` of a ConfigMap is immutable unless the provider enables
    mutable ConfigMaps; a named object keeping its name is deleted before it is created."""
    base = snap(_config_map("cm"))
    fate = classify(base, edited(base, "cm", data={"k": "b"}), rules).of("cm")
    assert fate == Fate(
        urn(CONFIG_MAP, "cm"),
        CONFIG_MAP,
        "cm",
        "replace",
        ("data.k",),
        True,
        inputs=(InputChange("data.k", "a", "b"),),
    )
    auto = snap(_config_map(None))
    fate = classify(auto, edited(auto, "cm", data={"k": "b"}), rules).of("cm")
    assert (fate.op, fate.delete_before_replace) == ("replace", False)  # a new name: made first


def test_a_config_map_on_a_mutable_provider_is_updated(rules: Rules) -> None:
    k8s = res("k8s", K8S, enableConfigMapMutable=True, kubeconfig="[secret]")
    base = snap(k8s, _config_map("cm", k8s))
    fate = classify(base, edited(base, "cm", data={"k": "b"}), rules).of("cm")
    assert (fate.op, fate.replace_because, fate.delete_before_replace) == ("update", (), False)


def test_a_resource_replaced_for_its_provider_is_not_deleted_first_unless_it_says_so(
    rules: Rules,
) -> None:
    """step_generator.go: a changed provider replaces with ReplaceKeys ["provider"] before
    the provider's Diff runs, so only the resource's own deleteBeforeReplace counts."""
    k8s = res("k8s", K8S, kubeconfig="a")
    cm = _config_map("cm", k8s)
    release = on(k8s, res("rel", RELEASE, name="r", namespace="ns", chart="c"))
    first = on(k8s, res("first", RELEASE, name="f", namespace="ns", chart="c"))
    first["options"]["deleteBeforeReplace"] = True
    base = snap(k8s, cm, release, first)
    head = edited(edited(base, "k8s", kubeconfig="b"), "cm", data={"k": "b"})
    unknown = edited(base, "k8s", kubeconfig="[unknown]")
    fates = classify(base, edited(unknown, "cm", data={"k": "b"}), rules)
    assert fates.of("k8s") == Fate(
        k8s["urn"],
        K8S,
        "k8s",
        "replace",
        ("kubeconfig",),
        inputs=(InputChange("kubeconfig", "a", "[unknown]"),),
    )
    assert fates.of("cm") == Fate(
        cm["urn"],
        CONFIG_MAP,
        "cm",
        "replace",
        ("data.k", PROVIDER),
        False,
        inputs=(InputChange("data.k", "a", "b"),),
    )
    assert fates.of("rel") == Fate(release["urn"], RELEASE, "rel", "replace", (PROVIDER,))
    assert fates.of("first") == Fate(first["urn"], RELEASE, "first", "replace", (PROVIDER,), True)
    # A known kubeconfig that changed replaces only if its active cluster did (provider.go
    # DiffConfig `!reflect.DeepEqual(oldActiveCluster, activeCluster)`): a guess, so what is
    # on it may be replaced; the ConfigMap's own data change still replaces it, and with the
    # provider's Diff reached it goes first (named, keeping its name).
    fates = classify(base, head, rules)
    guess = fates.of("k8s")
    assert (guess.op, guess.replace_because) == ("may-replace", ("kubeconfig",))
    assert guess.maybe == (
        (
            "kubeconfig",
            "pulumi-kubernetes replaces a provider only when its kubeconfig's active cluster "
            "changes (provider.go DiffConfig); the plan sees only that it changed",
        ),
    )
    data = fates.of("cm")
    assert (data.op, data.replace_because, data.delete_before_replace) == (
        "replace",
        ("data.k",),
        True,
    )
    for name in ("rel", "first"):
        fate = fates.of(name)
        assert (fate.op, fate.maybe) == ("may-replace", ((PROVIDER, "k8s may be replaced"),))
    # the same change under an engine that let the provider's Diff decide: deleted first
    asks = classify(base, head, Rules(**{**rules.__dict__, "provider_change_skips_diff": False}))
    assert asks.of("cm").delete_before_replace is True


def test_delete_before_replace_only_for_a_replacement(rules: Rules) -> None:
    step = res("step", COMMAND, create="x", triggers=["1"])
    step["options"]["deleteBeforeReplace"] = True
    base = snap(step)
    update = classify(base, edited(base, "step", create="y"), rules).of("step")
    assert (update.op, update.delete_before_replace) == ("update", False)
    again = classify(base, edited(base, "step", triggers=["2"]), rules).of("step")
    assert (again.op, again.replace_because, again.delete_before_replace) == (
        "replace",
        ("triggers[0]",),
        True,
    )
    release = res("rel", RELEASE, name="a", namespace="ns")
    renamed = classify(snap(release), edited(snap(release), "rel", name="b"), rules).of("rel")
    assert (renamed.op, renamed.replace_because, renamed.delete_before_replace) == (
        "replace",
        ("name",),
        False,  # helm_release.go: DeleteBeforeReplace: false
    )


# -- unknown at preview -------------------------------------------------------------------


def test_an_input_from_a_replaced_or_created_resource_is_unknown(rules: Rules) -> None:
    """oci_core_subnet: `vcn_id` is ForceNew, so a subnet on a replaced VCN is replaced
    because its VCN's id is unknown until the new VCN exists."""
    net = res("net", dnsLabel="a")
    subnet = fed(res("sub", SUBNET, vcnId="ocid1.vcn.x", displayName="s"), "vcnId", net)
    base = snap(net, subnet)
    fates = classify(base, edited(base, "net", dnsLabel="b"), rules)
    assert fates.of("sub") == Fate(
        subnet["urn"],
        SUBNET,
        "sub",
        "replace",
        ("vcnId",),
        inputs=(InputChange("vcnId", KNOWN, UNKNOWN),),
        unknown=("vcnId",),
    )
    # a VCN updated in place keeps its id: OCI outputs are known after an update
    fates = classify(base, edited(base, "net", displayName="x"), rules)
    assert fates.of("sub") == Fate(subnet["urn"], SUBNET, "sub", None)
    # a subnet moved onto a new VCN: created, so its id is unknown too
    new_net = res("net2", dnsLabel="c")
    moved = fed(copy.deepcopy(subnet), "vcnId", new_net)
    fates = classify(base, snap(net, new_net, moved), rules)
    assert (fates.of("sub").op, fates.of("sub").unknown) == ("replace", ("vcnId",))


def test_an_updated_command_makes_what_reads_its_output_unknown(rules: Rules) -> None:
    """pulumi-command re-runs on update, so its stdout is unknown at preview (rules.json
    `outputsUnknownOnUpdate`); a command left alone changes nothing downstream."""
    step = res("step", COMMAND, create="x", triggers=["1"])
    reader = fed(res("reader", COMMAND, create="y", stdin="out", triggers=["1"]), "stdin", step)
    base = snap(step, reader)
    fates = classify(base, edited(base, "step", create="x2"), rules)
    assert fates.of("reader") == Fate(
        reader["urn"],
        COMMAND,
        "reader",
        "update",
        inputs=(InputChange("stdin", KNOWN, UNKNOWN),),
        unknown=("stdin",),
    )
    assert classify(base, copy.deepcopy(base), rules).changed == []
    changed = classify(base, edited(base, "reader", create="y2"), rules)
    assert [(f.name, f.op, f.unknown) for f in changed.changed] == [("reader", "update", ())]


def test_only_the_unknown_leaves_of_an_input_are_unknown(rules: Rules) -> None:
    step = res("step", COMMAND, create="x", triggers=["1"])
    reader = res(
        "reader",
        COMMAND,
        environment={"A": UNKNOWN, "B": "known", "C": SECRET},
        stdin="out",
        create="y",
    )
    fed(fed(reader, "environment", step), "stdin", step)
    reader["propertyDependencies"]["absent"] = [step["urn"]]  # an input not given: nothing
    base = snap(step, reader)
    fate = classify(base, edited(base, "step", triggers=["2"]), rules).of("reader")
    assert fate.unknown == ("environment.A", "environment.C", "stdin")
    assert fate.inputs == tuple(
        InputChange(p, KNOWN, UNKNOWN) for p in ("environment.A", "environment.C", "stdin")
    )
    assert (fate.op, fate.replace_because) == ("update", ())


def test_an_input_with_two_changed_sources_is_unknown_once(rules: Rules) -> None:
    one, two = res("one", COMMAND, create="1"), res("two", COMMAND, create="2")
    reader = fed(res("reader", COMMAND, stdin="x"), "stdin", one, two)
    reader["propertyDependencies"]["create"] = ["urn:pulumi:s::p::t:m:T::elsewhere"]
    reader["inputs"]["create"] = "y"
    base = snap(one, two, reader)
    head = edited(edited(base, "one", create="1b"), "two", create="2b")
    fate = classify(base, head, rules).of("reader")
    assert (fate.unknown, fate.inputs) == (("stdin",), (InputChange("stdin", KNOWN, UNKNOWN),))


def test_an_input_the_new_plan_already_shows_unknown_is_one_change(rules: Rules) -> None:
    """A replaced cluster step reaches the Kubernetes provider built from its output: its
    kubeconfig is unknown, which replaces the provider (DiffConfig), and through it every
    release on it (rules.json `kubeconfigUnknownReplacesProvider`)."""
    step = res("cluster", COMMAND, create="kind create", triggers=["1"])
    k8s = fed(res("k8s", K8S, kubeconfig="apiVersion: v1"), "kubeconfig", step)
    release = on(k8s, res("rel", RELEASE, name="r", namespace="ns"))
    base = snap(step, k8s, release)
    head = edited(edited(base, "cluster", triggers=["2"]), "k8s", kubeconfig=UNKNOWN)
    fates = classify(base, head, rules)
    assert fates.of("k8s") == Fate(
        k8s["urn"],
        K8S,
        "k8s",
        "replace",
        ("kubeconfig",),
        inputs=(InputChange("kubeconfig", "apiVersion: v1", UNKNOWN),),
        unknown=("kubeconfig",),
    )
    assert fates.of("rel").replace_because == (PROVIDER,)


def test_an_input_the_old_plan_could_not_know_is_no_change(rules: Rules) -> None:
    """A plan made while a VM did not exist shows its address unknown; the engine knew
    it. Known now, or now an object, it tells nothing; no longer given, it is a change."""
    step = res("step", COMMAND, connection={"host": UNKNOWN, "user": "ubuntu"}, env=UNKNOWN)
    base = snap(step)
    known = edited(base, "step", connection={"host": "10.0.0.5", "user": "ubuntu"})
    assert classify(base, known, rules).of("step").op is None
    expanded = edited(base, "step", env={"A": "1"})
    assert classify(base, expanded, rules).of("step").op is None
    other_user = edited(base, "step", connection={"host": "10.0.0.5", "user": "root"})
    assert classify(base, other_user, rules).of("step").inputs == (
        InputChange("connection.user", "ubuntu", "root"),
    )
    dropped = edited(base, "step", env=MISSING)
    assert classify(base, dropped, rules).of("step").inputs == (
        InputChange("env", UNKNOWN, MISSING),
    )


# -- secrets ---------------------------------------------------------------------------------


def test_a_secret_changes_when_its_digests_of_one_scheme_differ(rules: Rules) -> None:
    step = res("step", COMMAND, stdin=SECRET, environment={"KEY": SECRET, "TOKEN": SECRET})
    step["secretDigests"] = {
        "environment.KEY": "id1:aaaa",
        "environment.TOKEN": "id1:bbbb",
        "stdin": "id1:cccc",
    }
    base = snap(step)

    def digests(**new: str) -> Fate:
        head = copy.deepcopy(base)
        head["resources"][0]["secretDigests"] = new
        return classify(base, head, rules).of("step")

    same = digests(**step["secretDigests"])
    assert same.op is None
    both = digests(
        **{"environment.KEY": "id1:aaa2", "environment.TOKEN": "id1:bbb2", "stdin": "id1:cccc"}
    )
    assert both.op == "update"
    assert both.inputs == (
        InputChange("environment.KEY", SECRET, SECRET),
        InputChange("environment.TOKEN", SECRET, SECRET),
    )
    # a secret newly known, or digested by the older URN-salted scheme: nothing to compare
    assert digests(stdin="id1:cccc", extra="id1:dddd").op is None
    assert digests(**{"environment.KEY": "aaaa", "stdin": "id1:cccc"}).op is None
    legacy = copy.deepcopy(base)
    legacy["resources"][0]["secretDigests"] = {"stdin": "0123"}
    head = copy.deepcopy(legacy)
    head["resources"][0]["secretDigests"] = {"stdin": "4567"}
    assert classify(legacy, head, rules).of("step").inputs == (
        InputChange("stdin", SECRET, SECRET),
    )
    no_digests = copy.deepcopy(base)
    del no_digests["resources"][0]["secretDigests"]
    assert classify(no_digests, base, rules).of("step").op is None
    assert classify(base, no_digests, rules).of("step").op is None


# -- which old resource a new one continues --------------------------------------------------


def test_an_alias_carries_a_resource_to_its_new_urn_once(rules: Rules) -> None:
    old = res("old", dnsLabel="a")
    renamed = res("new", dnsLabel="a")
    renamed["aliases"] = [old["urn"]]
    twin = res("twin", dnsLabel="a")
    twin["aliases"] = [old["urn"]]  # claims the same old URN: it is new
    fates = classify(snap(old), snap(renamed, twin), rules)
    assert fates.fates == [
        Fate(renamed["urn"], VCN, "new", None, previous_urn=old["urn"]),
        Fate(twin["urn"], VCN, "twin", "create"),
    ]
    changed = classify(snap(old), snap(edited(snap(renamed), "new", dnsLabel="b")["resources"][0]))
    assert changed.fates == [
        Fate(
            renamed["urn"],
            VCN,
            "new",
            "replace",
            ("dnsLabel",),
            inputs=(InputChange("dnsLabel", "a", "b"),),
            previous_urn=old["urn"],
        )
    ]
    no_aliases = {k: v for k, v in renamed.items() if k != "aliases"}
    assert classify(snap(old), snap(no_aliases), rules).of("new").op == "create"


def test_a_component_renamed_with_an_alias_keeps_its_old_urn_and_runs_nothing(
    rules: Rules,
) -> None:
    box = {**res("box", "test:index:Box", size=1), "custom": False}
    crate = {**res("crate", "test:index:Crate", size=2), "custom": False}
    crate["aliases"] = [box["urn"]]
    fates = classify(snap(box), snap(crate), rules)
    assert fates.fates == [
        Fate(crate["urn"], crate["type"], "crate", None, previous_urn=box["urn"])
    ]


def test_a_resource_in_the_old_urn_spelling_is_found_by_its_identity(rules: Rules) -> None:
    """Plans made before the engine's URNs prefixed top-level resources with the stack's
    type; the same (type, name) chain is the same resource, claimed once."""
    spelled = {**res("net", dnsLabel="a"), "urn": urn(VCN, "net", "pulumi:pulumi:Stack$")}
    now = res("net", dnsLabel="a")
    fates = classify(snap(spelled), snap(now), rules)
    assert fates.fates == [Fate(now["urn"], VCN, "net", None, previous_urn=spelled["urn"])]
    # an alias claims the old resource first; the resource of the same identity is new
    claimer = res("claimer", dnsLabel="a")
    claimer["aliases"] = [spelled["urn"]]
    fates = classify(snap(spelled), snap(claimer, now), rules)
    assert [(f.name, f.op, f.previous_urn) for f in fates.fates] == [
        ("claimer", None, spelled["urn"]),
        ("net", "create", ""),
    ]


# -- a resource's provider --------------------------------------------------------------------


def _two_providers() -> tuple[dict[str, Any], dict[str, Any], Snapshot]:
    a, b = res("a", K8S, kubeconfig="x"), res("b", K8S, kubeconfig="y")
    return a, b, snap(a, b, on(a, res("rel", RELEASE, name="r", namespace="ns")))


def test_a_resource_moved_to_another_provider_is_replaced_for_it(rules: Rules) -> None:
    _, b, base = _two_providers()
    head = copy.deepcopy(base)
    head["resources"][2]["options"]["provider"] = b["urn"]
    assert classify(base, head, rules).of("rel") == Fate(
        urn(RELEASE, "rel"), RELEASE, "rel", "replace", (PROVIDER,)
    )
    default = copy.deepcopy(base)
    default["resources"][2]["options"]["provider"] = ""
    assert classify(base, default, rules).of("rel").replace_because == (PROVIDER,)
    assert classify(default, base, rules).of("rel").replace_because == (PROVIDER,)


def test_a_provider_renamed_with_an_alias_or_only_updated_moves_nothing(rules: Rules) -> None:
    a, b, base = _two_providers()
    renamed = res("a2", K8S, kubeconfig="x")
    renamed["aliases"] = [a["urn"]]
    head = snap(renamed, b, on(renamed, res("rel", RELEASE, name="r", namespace="ns")))
    fates = classify(base, head, rules)
    assert [(f.name, f.op) for f in fates.fates] == [("a2", None), ("b", None), ("rel", None)]
    tuned = edited(base, "a", enableServerSideApply=True)
    fates = classify(base, tuned, rules)
    assert [(f.name, f.op) for f in fates.changed] == [("a", "update")]


def test_a_resource_on_a_provider_new_to_the_plan_is_replaced(rules: Rules) -> None:
    """Also from a base made before options were recorded (no provider there to compare)."""
    a, b, base = _two_providers()
    c = res("c", K8S, kubeconfig="z")
    head = snap(a, b, c, on(c, res("rel", RELEASE, name="r", namespace="ns")))
    assert classify(base, head, rules).of("rel").replace_because == (PROVIDER,)
    bare = copy.deepcopy(base)
    del bare["resources"][2]["options"]
    fate = classify(bare, head, rules).of("rel")
    assert (fate.op, fate.replace_because) == ("replace", (PROVIDER,))
    assert classify(bare, base, rules).of("rel").op is None  # an existing provider: no move


def test_classify_reads_the_project_rules_by_default() -> None:
    base = snap(res("net", dnsLabel="a"))
    fate = classify(base, edited(base, "net", dnsLabel="b")).of("net")
    assert (fate.op, fate.replace_because) == ("replace", ("dnsLabel",))


# -- the patterns a change is checked against -----------------------------------------------


def test_replace_patterns_are_the_options_then_the_providers_then_the_kubeconfig(
    rules: Rules,
) -> None:
    net = res("net")
    net["options"]["replaceOnChanges"] = ["displayName"]
    vcn_rules = rules.for_type(VCN)
    assert replace_patterns(net, vcn_rules, rules) == ["displayName", *vcn_rules.force_new]
    step = res("step", COMMAND)
    assert replace_patterns(step, rules.for_type(COMMAND), rules) == ["triggers"]
    k8s = res("k8s", K8S)
    every = ["renderYamlToDirectory", "kubeconfig", "context", "cluster"]  # provider.go
    assert replace_patterns(k8s, rules.for_type(K8S), rules) == every
    lenient = Rules(**{**rules.__dict__, "kubeconfig_unknown_replaces": False})
    assert replace_patterns(k8s, lenient.for_type(K8S), lenient) == ["renderYamlToDirectory"]
    bare = {k: v for k, v in k8s.items() if k != "options"}
    assert replace_patterns(bare, rules.for_type(K8S), rules) == every


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("createVnicDetails.subnetId", "createVnicDetails.subnetId", True),
        ("createVnicDetails.subnetId", "createVnicDetails", True),  # the whole object changed
        ("createVnicDetails.subnetId", "createVnicDetails.displayName", False),
        ("createVnicDetails.subnetId", "subnetId", False),
        ("triggers", "triggers[0]", True),
        ("triggers[*]", "triggers[3]", True),
        (".spec.containers[*].image", "spec.containers[0].image", True),
        (".spec.containers[*].image", "spec.containers[0]", True),
        (".spec.containers[*].image", "spec.containers[0].name", False),
        (".metadata.name", "metadata", True),
        (".metadata.name", "metadata.labels.app", False),
        ("dnsLabel", "dnsLabelX", False),
    ],
)
def test_which_change_falls_under_a_replace_pattern(
    pattern: str, path: str, expected: bool
) -> None:
    assert forces(pattern, path) is expected


def test_inputs_emptied_or_filled_decide_as_each_field_removed_or_added() -> None:
    """`{}` inputs flatten to a change at the root path besides each field's: the field's
    rule decides, as when another input stays (a VCN's `dnsLabel` is ForceNew)."""
    alone, emptied = res("vcn", dnsLabel="a"), res("vcn")
    kept, trimmed = res("vcn", dnsLabel="a", displayName="x"), res("vcn", displayName="x")
    for before, after in ((alone, emptied), (emptied, alone)):
        fates = classify(snap(before), snap(after)).fates
        other = classify(snap(kept), snap(trimmed)).fates
        assert [(f.op, f.name) for f in fates] == [(f.op, f.name) for f in other]
        assert fates[0].op == "replace"
