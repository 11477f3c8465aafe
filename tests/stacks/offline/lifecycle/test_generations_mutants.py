"""A resource's generation (`stacks.offline.lifecycle.generations`) on small synthetic snapshots: it
changes exactly when the engine would make the resource anew, by what the module says it
covers: a replace-on-change input (less `ignoreChanges`, secrets by digest), the
generation of a resource such an input is built from (`propertyDependencies`), and its
provider's generation. A consumer stack's plan carries the producer's generations
(`export_identities`), so a generation that stays where it should change under-reports the
consumer's replacements, and one that changes where it should stay over-reports them.

Force-new attributes are terraform-provider-oci's (oci_core_vcn: `dns_label`,
`cidr_block`; oci_core_subnet: `vcn_id`) and pulumi-command's `triggers`, as
`stacks/offline/lifecycle/replacements/` records them."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest

from stacks.offline.lifecycle.generations import GENERATION_CHARS, export_identities, generations
from stacks.offline.lifecycle.replacement_rules import RULES, Rules, rules_from
from stacks.offline.snapshot.shape import Snapshot
from tests.stacks.offline.synthetic import VCN, res

SUBNET = "oci:Core/subnet:Subnet"
COMMAND = "command:remote:Command"
OCI = "pulumi:providers:oci"


@pytest.fixture(scope="module")
def rules() -> Rules:
    return rules_from(RULES)


def snap(*resources: dict[str, Any]) -> Snapshot:
    return {"project": "p", "stack": "s", "resources": list(resources), "outputs": {}}


def of(found: Snapshot, rules: Rules) -> dict[str, str]:
    """Each resource's name -> its generation."""
    by_urn = generations(found, rules)
    return {r["name"]: by_urn[r["urn"]] for r in found["resources"]}


def changed(base: Snapshot, edit: Any, rules: Rules) -> set[str]:
    """The resources whose generation `edit` (applied to a copy of `base`) changes."""
    head = copy.deepcopy(base)
    edit({r["name"]: r for r in head["resources"]})
    old, new = of(base, rules), of(head, rules)
    assert old.keys() == new.keys()
    return {name for name in old if old[name] != new[name]}


def fed(r: dict[str, Any], prop: str, *sources: dict[str, Any]) -> dict[str, Any]:
    """`r` with input `prop` built from the outputs of `sources`."""
    r["propertyDependencies"][prop] = [s["urn"] for s in sources]
    r["dependencies"] = sorted({*r["dependencies"], *(s["urn"] for s in sources)})
    return r


def test_a_force_new_input_changes_the_generation_and_another_does_not(rules: Rules) -> None:
    base = snap(res("net", dnsLabel="a", displayName="x", cidrBlock="10.0.0.0/16"))
    assert changed(base, lambda r: r["net"]["inputs"].update(dnsLabel="b"), rules) == {"net"}
    assert changed(base, lambda r: r["net"]["inputs"].update(cidrBlock="10.1.0.0/16"), rules) == {
        "net"
    }
    assert changed(base, lambda r: r["net"]["inputs"].update(displayName="y"), rules) == set()
    assert changed(base, lambda r: None, rules) == set()
    (generation,) = of(base, rules).values()
    assert len(generation) == GENERATION_CHARS
    assert set(generation) <= set("0123456789abcdef")


def test_an_ignored_input_does_not_change_the_generation(rules: Rules) -> None:
    """The engine drops an `ignoreChanges` path's new value before the provider's Diff, so
    an ignored force-new attribute replaces nothing."""
    net = res("net", dnsLabel="a", cidrBlock="10.0.0.0/16", freeformTags={"k": "a"})
    net["options"]["ignoreChanges"] = ["dnsLabel", "freeformTags"]
    base = snap(net)
    assert changed(base, lambda r: r["net"]["inputs"].update(dnsLabel="b"), rules) == set()
    # the option covers only what it names: the other force-new attribute still counts
    assert changed(base, lambda r: r["net"]["inputs"].update(cidrBlock="10.1.0.0/16"), rules) == {
        "net"
    }


def test_a_secret_counts_by_its_digest_where_it_forces_a_replacement(rules: Rules) -> None:
    """A secret's value is not in the plan, its digest is: a new digest under `triggers`
    (pulumi-command replaces on `triggers`) is a new generation; a new digest of the
    connection (an update in place) or of an ignored trigger is not."""
    step = res("step", COMMAND, create="run", triggers=["[secret]"], connection="[secret]")
    step["secretDigests"] = {"triggers[0]": "id1:aaaa", "connection": "id1:cccc"}
    base = snap(step)

    def digest(path: str, value: str) -> Any:
        return lambda r: r["step"]["secretDigests"].update({path: value})

    assert changed(base, digest("triggers[0]", "id1:bbbb"), rules) == {"step"}
    assert changed(base, digest("connection", "id1:dddd"), rules) == set()
    step["options"]["ignoreChanges"] = ["triggers"]
    assert changed(snap(step), digest("triggers[0]", "id1:bbbb"), rules) == set()


def test_a_resource_built_from_a_replaced_one_is_made_anew_with_it(rules: Rules) -> None:
    """A subnet's `vcnId` is force-new and built from the VCN's id: a VCN made anew has a
    new id, so the subnet is made anew too, though its own inputs in the plan are the same.
    An input built from the VCN that only updates (`displayName`) carries nothing, nor does
    a plain dependency without a property."""
    net = res("net", dnsLabel="a")
    subnet = fed(res("sub", SUBNET, vcnId="ocid1.vcn.x", displayName="s"), "vcnId", net)
    named = fed(res("named", SUBNET, vcnId="fixed", displayName="n"), "displayName", net)
    after = res("after", SUBNET, vcnId="fixed")
    after["dependencies"] = [net["urn"]]
    base = snap(net, subnet, named, after)
    relabel = changed(base, lambda r: r["net"]["inputs"].update(dnsLabel="b"), rules)
    assert relabel == {"net", "sub"}
    # and it goes on down the chain: an instance of the subnet's
    vm = fed(res("vm", SUBNET, vcnId="y"), "vcnId", subnet)
    chained = changed(
        snap(net, subnet, vm), lambda r: r["net"]["inputs"].update(dnsLabel="b"), rules
    )
    assert chained == {"net", "sub", "vm"}
    # a VCN that only updates leaves the subnet's generation
    rename = changed(base, lambda r: r["net"]["inputs"].update(displayName="y"), rules)
    assert rename == set()


def test_a_resource_follows_its_providers_generation(rules: Rules) -> None:
    """A resource whose provider is made anew is replaced with it (the engine's step
    generator: a changed provider reference replaces)."""
    provider = res("oci", OCI, region="us-ashburn-1")
    net = res("net", dnsLabel="a")
    net["options"]["provider"] = provider["urn"]
    other = res("other", dnsLabel="b")
    base = snap(provider, net, other)
    region = changed(base, lambda r: r["oci"]["inputs"].update(region="eu-frankfurt-1"), rules)
    assert "net" in region and "other" not in region


def test_a_type_without_rules_is_made_anew_by_any_input_and_a_read_by_none(
    rules: Rules,
) -> None:
    unknown = res("thing", "example:index:Thing", size=1)
    ref = {**res("ref", "pulumi:pulumi:StackReference", name="org/p/dev"), "read": True}
    base = snap(unknown, ref)
    assert changed(base, lambda r: r["thing"]["inputs"].update(size=2), rules) == {"thing"}
    assert changed(base, lambda r: r["ref"]["inputs"].update(name="org/p/prod"), rules) == set()


def test_an_exports_identity_follows_the_generations_of_its_sources(rules: Rules) -> None:
    net, other = res("net", dnsLabel="a"), res("other", dnsLabel="b")
    base = snap(net, other)
    sources = {"vcn": [net["urn"]], "both": [net["urn"], other["urn"]], "none": []}
    before = export_identities(base, sources, rules)
    assert set(before) == {"vcn", "both"}  # an export built from no resource has none
    head = copy.deepcopy(base)
    head["resources"][1]["inputs"]["dnsLabel"] = "c"
    after = export_identities(head, sources, rules)
    assert after["vcn"] == before["vcn"] and after["both"] != before["both"]
    # the identity of the same generations, whatever order the sources are listed in
    swapped = {"both": [other["urn"], net["urn"]]}
    assert export_identities(base, swapped, rules)["both"] == before["both"]


def test_the_same_inputs_recorded_in_another_order_are_the_same_generation(
    rules: Rules,
) -> None:
    """A plan records inputs in the order the program set them: a reordered program, or
    a base plan written by an older gpu-ci, makes nothing anew."""
    one = res("net", dnsLabel="a", cidrBlock="10.0.0.0/16")
    other = copy.deepcopy(one)
    other["inputs"] = {"cidrBlock": "10.0.0.0/16", "dnsLabel": "a"}
    assert list(one["inputs"]) != list(other["inputs"])
    assert of(snap(one), rules) == of(snap(other), rules)


def test_a_configmap_follows_its_providers_mutable_setting(rules: Rules) -> None:
    """pulumi-kubernetes replaces a ConfigMap on a data change unless its provider sets
    `enableConfigMapMutable` (kubernetes-forcenew.json), read from the provider's inputs."""
    for mutable, expected in ((False, {"cm"}), (True, set())):
        k8s = res("k8s", "pulumi:providers:kubernetes", enableConfigMapMutable=mutable)
        cm = res("cm", "kubernetes:core/v1:ConfigMap", data={"a": "1"})
        cm["options"]["provider"] = k8s["urn"]
        base = snap(k8s, cm)
        data = changed(base, lambda r: r["cm"]["inputs"].update(data={"a": "2"}), rules)
        assert data == expected, mutable


def test_the_rules_given_are_the_rules_used(rules: Rules) -> None:
    """With rules under which a VCN's `displayName` is force-new, renaming it is a new
    generation, and a new identity of an export built from it."""
    vcn = rules.exact[VCN]
    strict = replace(rules, exact={**rules.exact, VCN: replace(vcn, force_new=("displayName",))})
    base = snap(res("net", displayName="x"))
    rename = copy.deepcopy(base)
    rename["resources"][0]["inputs"]["displayName"] = "y"
    assert of(base, strict) != of(rename, strict)
    assert of(base, rules) == of(rename, rules)
    sources = {"vcn": [base["resources"][0]["urn"]]}
    assert export_identities(base, sources, strict) != export_identities(rename, sources, strict)
    assert export_identities(base, sources) == export_identities(rename, sources)


def test_a_resource_recorded_without_custom_is_a_custom_resource(rules: Rules) -> None:
    """Snapshots older than the `custom` field: a resource of a type no rule covers is made
    anew by any input change, as one recorded `custom: true` is."""
    thing = res("thing", "example:index:Thing", size=1)
    del thing["custom"]
    box = {**res("box", "example:index:Box", size=1), "custom": False}
    base = snap(thing, box)

    def grow(r: dict[str, Any]) -> None:
        r["thing"]["inputs"]["size"] = r["box"]["inputs"]["size"] = 2

    assert changed(base, grow, rules) == {"thing"}


def test_a_generation_is_the_one_plans_written_before_hold(rules: Rules) -> None:
    """A consumer stack's plan holds the producer's generations (its kubeconfig's secret
    digest, `stacks.offline.references.reference_exports`), and `diff BASE_DIR HEAD_DIR` compares
    a base plan written by the gpu-ci of the base commit: a generation spelt otherwise today
    (another encoding of the text digested, of a key, of the default provider) would show
    the consumer's Kubernetes provider, and all on it, replaced. So these values, which
    gpu-ci has written since commit 1f6e404, stay: changing the scheme is a breaking
    change of every consumer's plan, made on purpose. A force-new input holds a
    non-ASCII letter (the digest's text keeps it as it is), the subnet is built from the VCN,
    the VCN is on an explicit provider, the others on their default one."""
    oci = res("oci", OCI, region="eu-frankfurt-1")
    net = res("net", dnsLabel="réseau", cidrBlock="10.0.0.0/16", displayName="x")
    net["options"]["provider"] = oci["urn"]
    sub = fed(res("sub", SUBNET, vcnId="ocid1.vcn.x"), "vcnId", net)
    step = res("step", COMMAND, create="run", triggers=["[secret]"])
    step["secretDigests"] = {"triggers[0]": "id1:aaaa"}
    base = snap(oci, net, sub, step)
    assert of(base, rules) == {
        "oci": "68759be55ba3545e",
        "net": "22b305dea31a9a26",
        "sub": "67fcbfca0d02f45b",
        "step": "27312e1b0a12e468",
    }
    sources = {"kubeconfig": [sub["urn"], step["urn"]]}
    assert export_identities(base, sources, rules) == {"kubeconfig": "76b68f7cfe641f21"}
