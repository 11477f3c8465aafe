"""A small plan of stack `s` of project `p` for the `stacks diff --state` tests that run
in-process (milliseconds, not a planned stack): every kind of resource the export and the
diff treat apart, built as `snapshot_of` records them (`tests/stacks/offline/synthetic.py`)."""

from __future__ import annotations

import copy
import json
from typing import Any

from stacks.offline.snapshot.shape import Snapshot
from stacks.offline.state.values import SECRET_SIG, SIG
from tests.stacks.offline.synthetic import VCN, res, urn

STACK = "urn:pulumi:s::p::pulumi:pulumi:Stack::p-s"
K8S_PROVIDER = "pulumi:providers:kubernetes"
NAMESPACE = "kubernetes:core/v1:Namespace"
PASSWORD = "random:index/randomPassword:RandomPassword"
COMMAND = "command:local:Command"
COMPONENT = "gpu-ci:x:Comp"
MINE = "urn:pulumi:s::p::pulumi:providers:random::mine"


def small_plan() -> Snapshot:
    """vcn (oci, default provider, protected, a secret and an unknown), k8s (an explicit
    provider), ns (on k8s, depending on it), comp (a component), cmd (command, inside comp,
    with an alias), looked (read, not managed), pw (random, on the explicit provider mine);
    a secret and an unknown among the outputs."""
    vcn = res("vcn", VCN, displayName="net", token="[secret]", nested={"ids": ["[unknown]", 1]})
    vcn["options"]["protect"] = True
    k8s = res("k8s", K8S_PROVIDER, kubeconfig="[secret]")
    ns = res("ns", NAMESPACE, metadata={"name": "ci"})
    ns["options"]["provider"] = k8s["urn"]
    ns["dependencies"] = [k8s["urn"]]
    ns["propertyDependencies"] = {"metadata": [k8s["urn"]]}
    comp = res("comp", COMPONENT)
    comp["custom"] = False
    cmd = res("cmd", COMMAND, create="echo hi")
    cmd["urn"] = urn(COMMAND, "cmd", f"{COMPONENT}$")
    cmd["parent"] = comp["urn"]
    cmd["aliases"] = [urn(COMMAND, "old-cmd")]
    looked = res("looked", VCN, displayName="theirs")
    looked["read"] = True
    looked["options"] = {}
    pw = res("pw", PASSWORD, length=16)
    pw["options"]["provider"] = MINE
    mine = res("mine", "pulumi:providers:random")
    resources = [vcn, k8s, ns, comp, cmd, looked, pw, mine]
    return {
        "project": "p",
        "stack": "s",
        "resources": sorted(resources, key=lambda r: r["urn"]),
        "outputs": {"kubeconfig": "[secret]", "host": "[unknown]", "names": ["a", "b"]},
    }


def named(snap: Snapshot, name: str) -> dict[str, Any]:
    (found,) = [r for r in snap["resources"] if r["name"] == name]
    resource: dict[str, Any] = found
    return resource


def in_export(document: dict[str, Any], name: str) -> dict[str, Any]:
    (found,) = [
        r for r in document["deployment"]["resources"] if r["urn"].rsplit("::", 1)[-1] == name
    ]
    resource: dict[str, Any] = found
    return resource


def secret(ciphertext: str = "v1:abc") -> dict[str, str]:
    return {SIG: SECRET_SIG, "ciphertext": ciphertext}


def fresh(snap: Snapshot) -> Snapshot:
    return copy.deepcopy(snap)


def mini(stack: str, *resources: dict[str, Any], project: str = "p") -> Snapshot:
    """A plan of `stack` holding `resources` (made by `res`, for stack `s` of project `p`)
    moved to that stack and project."""
    moved = json.dumps(list(resources)).replace(
        "urn:pulumi:s::p::", f"urn:pulumi:{stack}::{project}::"
    )
    return {"project": project, "stack": stack, "resources": json.loads(moved), "outputs": {}}


def reference(name: str, producer: str) -> dict[str, Any]:
    """A StackReference (read) to stack `producer`."""
    ref = res(name, "pulumi:pulumi:StackReference", name=producer)
    ref["read"] = True
    ref["options"] = {}
    return ref
