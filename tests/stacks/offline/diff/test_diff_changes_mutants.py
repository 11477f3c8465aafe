"""The plan diff's model (`stacks.offline.diff.changes`), in-process on small synthetic
snapshots: each resource's change, its dependency changes, the order `pulumi up` runs them
in, what a destructive change takes away, and the JSON a PR workflow reads.

The operations themselves are the engine's and the providers' rules (`lifecycle`, tested in
test_lifecycle_mutants.py): here an OCI VCN's `dnsLabel` replaces it and its `displayName`
updates it in place (terraform-provider-oci ForceNew facts in
`stacks/offline/lifecycle/replacements/`).
"""

from __future__ import annotations

import copy
from typing import Any

from stacks.offline.diff.changes import (
    Op,
    PlanDiff,
    ResourceChange,
    destroys,
    diff_snapshots,
    identity_deps,
)
from stacks.offline.snapshot.paths import MISSING, InputChange
from stacks.offline.snapshot.shape import Snapshot
from tests.stacks.offline.synthetic import VCN, res, urn

BOX = "gpu-ci:test:Box"


def snap(*resources: dict[str, Any], stack: str = "s", **outputs: Any) -> Snapshot:
    return {"project": "p", "stack": stack, "resources": list(resources), "outputs": outputs}


def ref(name: str) -> dict[str, Any]:
    return {**res(name, "pulumi:pulumi:StackReference", name="org/p/dev"), "read": True}


def test_changes_are_listed_in_run_order_with_their_dependency_changes() -> None:
    """Resources depending on `z` run after it, though `a` sorts before `z`; deletions take
    their place in the old plan's order; a resource that only lost a dependency runs no
    step (`same`); unchanged resources and reads are counted, not listed."""
    base = snap(
        res("a", VCN, "z", displayName="a"),
        res("b", VCN, "z"),
        res("c"),
        res("d"),
        ref("ref"),
        res("gone"),
        res("old"),
        res("z", displayName="z"),
    )
    head = snap(
        res("a", VCN, "z", displayName="a2"),
        res("b"),
        res("c"),
        res("d"),
        res("new", VCN, "z"),
        ref("ref2"),
        res("z", displayName="z2"),
    )
    d = diff_snapshots(base, head)
    assert (d.base, d.head, d.unchanged, d.outputs) == ("p/s", "p/s", 3, [])
    assert d.resources == [
        ResourceChange("same", urn(VCN, "b"), "b", VCN, deps_removed=(f"{VCN}::z",)),
        ResourceChange("delete", urn(VCN, "gone"), "gone", VCN),
        ResourceChange("delete", urn(VCN, "old"), "old", VCN),
        ResourceChange("update", urn(VCN, "z"), "z", VCN, (InputChange("displayName", "z", "z2"),)),
        ResourceChange("update", urn(VCN, "a"), "a", VCN, (InputChange("displayName", "a", "a2"),)),
        ResourceChange("create", urn(VCN, "new"), "new", VCN),
    ]
    assert d.changed
    assert (d.count("create"), d.count("update"), d.count("delete", "same")) == (1, 2, 3)
    assert d.count("replace") == 0


def test_a_dependency_added_to_a_resource_that_also_changes() -> None:
    base = snap(res("a", displayName="a"), res("x"), res("y"))
    head = snap(res("a", VCN, "x", "y", displayName="b", dnsLabel="n"), res("x"), res("y"))
    base["resources"][0]["inputs"]["dnsLabel"] = "m"
    (change,) = diff_snapshots(base, head).resources
    assert change == ResourceChange(
        "replace",
        urn(VCN, "a"),
        "a",
        VCN,
        (InputChange("displayName", "a", "b"), InputChange("dnsLabel", "m", "n")),
        deps_added=(f"{VCN}::x", f"{VCN}::y"),
        replace_because=("dnsLabel",),
    )


def test_a_change_carries_what_the_engine_decided_for_it() -> None:
    """A replaced VCN (its `dnsLabel` is ForceNew) gets a new id, so its subnet's `vcnId` is
    unknown at preview, and `vcn_id` is ForceNew for a subnet too: both are replaced, in the
    order they run; the subnet is protected and ignores its tags."""
    net = res("net", dnsLabel="a")
    subnet = res(
        "sub", "oci:Core/subnet:Subnet", "net", vcnId="ocid1.vcn.x", freeformTags={"team": "gpu"}
    )
    subnet["propertyDependencies"] = {"vcnId": [net["urn"]]}
    subnet["options"] |= {"protect": True, "ignoreChanges": ["freeformTags"]}
    base = snap(subnet, net)
    head = copy.deepcopy(base)
    head["resources"][1]["inputs"]["dnsLabel"] = "b"
    head["resources"][0]["inputs"]["freeformTags"] = {"team": "ci"}
    assert diff_snapshots(base, head).resources == [
        ResourceChange(
            "replace",
            net["urn"],
            "net",
            VCN,
            (InputChange("dnsLabel", "a", "b"),),
            replace_because=("dnsLabel",),
        ),
        ResourceChange(
            "replace",
            subnet["urn"],
            "sub",
            "oci:Core/subnet:Subnet",
            (InputChange("vcnId", "[known]", "[unknown]"),),
            replace_because=("vcnId",),
            ignored=("freeformTags.team",),
            protected=True,
            unknown=("vcnId",),
            kept_on_replace=("freeformTags",),  # the replacement gets the old tags
        ),
    ]


def test_a_renamed_resource_compares_its_dependencies_with_its_old_self() -> None:
    base = snap(res("old", VCN, "x"), res("x"), res("y"))
    renamed = res("new", VCN, "y")
    renamed["aliases"] = [urn(VCN, "old")]
    head = snap(renamed, res("x"), res("y"))
    d = diff_snapshots(base, head)
    assert d.resources == [
        ResourceChange(
            "same",
            urn(VCN, "new"),
            "new",
            VCN,
            deps_added=(f"{VCN}::y",),
            deps_removed=(f"{VCN}::x",),
            previous_urn=urn(VCN, "old"),
        )
    ]
    assert d.unchanged == 2


def test_a_dependency_is_named_by_the_resource_itself_not_its_component() -> None:
    """Identity chains name a resource under its components; a diff line names the
    resource (its last element), and a dependency outside the plan is left out."""
    box = {**res("box", BOX), "custom": False}
    inner = {**res("inner"), "urn": urn(VCN, "inner", f"{BOX}$"), "parent": box["urn"]}
    other = {**res("other"), "urn": urn(VCN, "other", f"{BOX}$"), "parent": box["urn"]}
    user = res("user")
    base = snap(box, inner, other, user)
    head = copy.deepcopy(base)
    head["resources"][3]["dependencies"] = [inner["urn"], "urn:pulumi:s::p::t:m:T::elsewhere"]
    (change,) = diff_snapshots(base, head).resources
    assert (change.op, change.name, change.deps_added) == ("same", "user", (f"{VCN}::inner",))
    deps = identity_deps(head)
    assert deps[((VCN, "user"),)] == {((BOX, "box"), (VCN, "inner"))}
    # depending on every resource in a component reads as depending on the component
    head["resources"][3]["dependencies"] = [inner["urn"], other["urn"]]
    assert identity_deps(head)[((VCN, "user"),)] == {((BOX, "box"),)}
    (change,) = diff_snapshots(base, head).resources
    assert change.deps_added == (f"{BOX}::box",)


def test_a_resource_new_to_the_plan_has_no_dependency_changes() -> None:
    """A created resource, even under the URN of a resource that another one took over
    through an alias, is listed with no dependencies added or removed."""
    base = snap(res("a", VCN, "x"), res("x"), res("y"))
    taker = res("b", VCN, "x")
    taker["aliases"] = [urn(VCN, "a")]
    head = snap(taker, res("a", VCN, "y"), res("x"), res("y"))
    d = diff_snapshots(base, head)
    assert [(c.op, c.name, c.deps_added, c.deps_removed) for c in d.resources] == [
        ("create", "a", (), ()),
    ]
    assert d.unchanged == 3


def test_outputs_and_labels() -> None:
    base = snap(res("a"), url="https://a", old=1)
    head = snap(res("a"), stack="prod", url="https://b", new=[1])
    d = diff_snapshots(base, head)
    assert (d.base, d.head) == ("p/s", "p/prod")
    assert d.outputs == [
        InputChange("new[0]", MISSING, 1),
        InputChange("old", 1, MISSING),
        InputChange("url", "https://a", "https://b"),
    ]
    assert d.changed and d.resources == [] and d.unchanged == 1
    assert d.as_json() == {
        "base": "p/s",
        "head": "p/prod",
        "changes": [],
        "outputs": ["new[0]", "old", "url"],
    }
    # a snapshot written without outputs has none
    bare = {k: v for k, v in base.items() if k != "outputs"}
    assert diff_snapshots(bare, bare).outputs == []
    same = diff_snapshots(base, base)
    assert not same.changed and same.as_json()["changes"] == []


def test_the_json_a_pr_workflow_reads() -> None:
    vm = ResourceChange(
        "replace",
        "urn:new",
        "gpu-vm-0",
        "oci:Core/instance:Instance",
        (InputChange("image", "a", "b"),),
        replace_because=("image", "provider"),
        delete_before_replace=True,
        ignored=("freeformTags",),
        protected=True,
        previous_urn="urn:old",
        unknown=("subnetId",),
    )
    assert vm.as_json() == {
        "urn": "urn:new",
        "type": "oci:Core/instance:Instance",
        "name": "gpu-vm-0",
        "op": "replace",
        "replaceBecause": ["image", "provider"],
        "deleteBeforeReplace": True,
        "previousUrn": "urn:old",
        "ignoredChanges": ["freeformTags"],
        "unknownAtPreview": ["subnetId"],
        "protected": True,
        "destroys": "a GPU VM and its boot volume (when replaced, its host steps, runner "
        "registration and cluster are made again on the new VM)",
    }
    kept = ResourceChange("delete", "urn:k", "k", "oci:Core/instance:Instance", retained=True)
    assert kept.as_json() == {
        "urn": "urn:k",
        "type": "oci:Core/instance:Instance",
        "name": "k",
        "op": "delete",
        "replaceBecause": [],
        "deleteBeforeReplace": False,
        "retained": True,
    }
    same = ResourceChange("same", "urn:s", "s", VCN, deps_added=(f"{VCN}::x",))
    d = PlanDiff("p/s", "p/s", [vm, kept, same])
    assert d.as_json() == {
        "base": "p/s",
        "head": "p/s",
        "changes": [vm.as_json(), kept.as_json()],
        "outputs": [],
    }
    assert PlanDiff("p/s", "p/s", [same]).changed
    assert not PlanDiff("p/s", "p/s").changed


def change(op: Op, type_: str, name: str = "x", **fields: Any) -> ResourceChange:
    return ResourceChange(op, f"urn:{name}", name, type_, **fields)


def test_what_a_destructive_change_takes_away() -> None:
    expected = {
        ("oci:Core/instance:Instance", "gpu-vm-0"): "a GPU VM and its boot volume (when "
        "replaced, its host steps, runner registration and cluster are made again on the new "
        "VM)",
        ("oci:ContainerEngine/cluster:Cluster", "oke"): "the OKE cluster",
        ("oci:ContainerEngine/nodePool:NodePool", "pool"): "an OKE node pool and its nodes",
        ("command:remote:Command", "cluster-nvkind-cluster"): "the nvkind cluster (kind delete "
        "cluster; a new CA)",
        ("command:local:Command", "host-0-runner-github-runner"): "a runner registration "
        "(stopped and deregistered)",
        ("kubernetes:helm.sh/v3:Release", "platform-gpu-operator"): "a Helm release and what "
        "it installed",
        ("pulumi:providers:kubernetes", "cluster-k8s"): "a Kubernetes provider: everything on "
        "it is replaced",
    }
    for (type_, name), what in expected.items():
        for op in ("replace", "delete"):
            assert destroys(change(op, type_, name)) == what, (type_, name, op)
        assert destroys(change("update", type_, name)) == ""
        assert destroys(change("create", type_, name)) == ""
        assert destroys(change("same", type_, name)) == ""
        assert destroys(change("delete", type_, name, retained=True)) == ""  # stays in the cloud
    for type_, name in (
        ("command:remote:Command", "host-0-docker"),  # a host step: run again, nothing lost
        ("command:remote:Command", "nvkind-cluster-check"),
        ("oci:Core/vcn:Vcn", "network-vcn"),
        ("kubernetes:core/v1:ConfigMap", "gpu-time-slicing-config"),
        ("pulumi:providers:kubernetes-cert-manager", "certs"),  # another provider package
        ("oci:Core/instance:InstanceConfiguration", "gpu-vm-0"),
        ("commander:remote:Command", "cluster-nvkind-cluster"),
    ):
        assert destroys(change("replace", type_, name)) == "", (type_, name)
