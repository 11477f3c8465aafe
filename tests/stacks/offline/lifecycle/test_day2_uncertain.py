"""Day 2, round 3 (issue 37): a replaced OKE cluster takes its provider and everything on
it; types without rules are never safe; what `--replace` keeps; and guesses shown as
`may-replace`, with why, never as the engine's answer. Each test names the upstream line
its rule comes from (stacks/offline/lifecycle/replacements/rules.json holds them with their
commits).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from stacks.offline.diff.changes import diff_snapshots
from stacks.offline.diff.markdown import render_markdown
from stacks.offline.diff.mermaid import render_changed_mermaid
from stacks.offline.diff.text import render_text
from stacks.offline.lifecycle.fate import PROVIDER, classify
from stacks.offline.lifecycle.inputs import sourceless_unknown
from stacks.offline.lifecycle.replacement_rules import load_rules
from stacks.offline.plan import REPO, plan_stack
from stacks.offline.snapshot.shape import Snapshot
from tests.stacks.offline.lifecycle.test_day2 import INSTANCE, Edit, base_plan, ops, plan_edited

K8S = "pulumi:providers:kubernetes"
OKE_K8S = "oke-k8s"
STACKS = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in REPO.glob("Pulumi.*.yaml"))


def on_provider(snap: Snapshot, name: str) -> list[str]:
    """The names of every resource that uses the provider resource `name`."""
    (urn,) = [r["urn"] for r in snap["resources"] if r["name"] == name and r["type"] == K8S]
    return sorted(
        r["name"] for r in snap["resources"] if (r.get("options") or {}).get("provider") == urn
    )


# -- 1: a replaced OKE cluster ---------------------------------------------------------


def pods_cidr(config: dict[str, Any]) -> None:
    config["gpu-ci:arc"]["cluster"]["oke"]["podsCidr"] = "10.245.0.0/16"


def test_a_replaced_oke_cluster_replaces_its_provider_and_everything_on_it(tmp_path: Path) -> None:
    """The new cluster's id is unknown at preview, so the kubeconfig lookup is unknown
    (pulumi 3.272.0 runtime/invoke.py `_invoke`: `if rpc.struct_contains_unknowns(inputs):
    return (InvokeResult(None, is_secret=False, is_known=False), None)`); pulumi-kubernetes
    replaces a provider whose kubeconfig is unknown (provider/pkg/provider/provider.go
    DiffConfig: `if news[key].IsComputed() {`); the engine replaces every resource of a
    replaced provider (pkg/resource/deploy/step_generator.go `diff`: `} else if
    providerChanged {`)."""
    base = base_plan("arc")
    head = plan_edited("arc", [pods_cidr], tmp_path)
    result = classify(base, head)
    found = ops(result)
    assert set(found) == {"replace"}
    cluster = result.of("oke", "oci:ContainerEngine/cluster:Cluster")
    assert cluster.replace_because == ("options.kubernetesNetworkConfig.podsCidr",)
    for pool in ("oke-cpu", "oke-gpu"):
        assert result.of(pool).replace_because == ("clusterId",)
    provider = result.of(OKE_K8S)
    assert (provider.op, provider.replace_because, provider.unknown) == (
        "replace",
        ("kubeconfig",),
        ("kubeconfig",),
    )
    on_it = on_provider(head, OKE_K8S)
    assert len(on_it) > 30 and "arc-controller" in on_it and "monitoring-grafana-admin" in on_it
    replaced = [f for f in result.changed if f.name in set(on_it)]
    assert len(replaced) == len(on_it)  # every one, nothing left "unchanged"
    for fate in replaced:
        assert fate.op == "replace" and PROVIDER in fate.replace_because, fate.name
        assert not fate.delete_before_replace, fate.name  # provider-caused: created first
    assert len(found["replace"]) == 4 + len(on_it)  # cluster, 2 pools, provider
    # the PR's caution block names every one of them
    md = render_markdown(diff_snapshots(base, head), base, head)
    caution = md[md.index("> [!CAUTION]") : md.index("| | resource | type | changed |")]
    for name in on_it:
        assert f"`{name}`" in caution, name
    assert f"> - and {len([f for f in replaced if not _loud(f.type)])} more replaced" in caution


def _loud(type_: str) -> bool:
    return type_ in ("kubernetes:helm.sh/v3:Release", K8S)


@pytest.mark.parametrize("stack", STACKS)
def test_only_the_oke_kubeconfig_comes_from_an_unrecorded_lookup(stack: str) -> None:
    """The one input a plan shows unknown with no recorded source: the kubeconfig lookup
    over the cluster's id, which the offline preview cannot know. Its source is read as the
    provider's dependencies: the cluster (`depends_on`)."""
    found = {
        (r["name"], prop)
        for r in base_plan(stack)["resources"]
        if r.get("custom", True) and not r.get("read")
        for prop in sourceless_unknown(r)
    }
    assert found == ({(OKE_K8S, "kubeconfig")} if stack == "arc" else set())
    if stack == "arc":
        (k8s,) = [r for r in base_plan(stack)["resources"] if r["name"] == OKE_K8S]
        assert [d.rsplit("::", 1)[-1] for d in k8s["dependencies"]] == ["oke"]


# -- 2: no type without rules is safe --------------------------------------------------


def test_a_new_password_length_replaces_the_password_and_its_secret_first() -> None:
    """terraform-provider-random v3.9.0 internal/provider/resource_password.go
    passwordSchemaV3: `"length"` has `int64planmodifier.RequiresReplace()`. The new
    password is unknown at preview, so the Grafana admin Secret's `stringData` is, and
    pulumi-kubernetes replaces a Secret on `.stringData` (diff.go); it keeps its name, so
    it goes first (provider.go Diff: `newInputs.GetName() == oldLive.GetName() &&`)."""
    base = base_plan("dev")
    head = copy.deepcopy(base)
    (password,) = [r for r in head["resources"] if r["type"].startswith("random:")]
    password["inputs"]["length"] = 40
    result = classify(base, head)
    assert ops(result) == {"replace": ("monitoring-grafana-password", "monitoring-grafana-admin")}
    assert result.of("monitoring-grafana-password").replace_because == ("length",)
    assert not result.of("monitoring-grafana-password").delete_before_replace
    secret = result.of("monitoring-grafana-admin")
    assert (secret.replace_because, secret.delete_before_replace) == (("stringData",), True)


@pytest.mark.parametrize("stack", STACKS)
def test_every_custom_type_an_example_stack_plans_has_rules(stack: str) -> None:
    rules = load_rules()
    for r in base_plan(stack)["resources"]:
        if r.get("custom", True) and not r.get("read"):
            assert rules.known(r["type"]), f"{stack}: no replacement rules for {r['type']}"


def test_a_type_without_rules_is_loudly_unpredictable() -> None:
    base = plan_stack("dev")  # a plan of its own, edited below: the shared cache is not touched
    head = copy.deepcopy(base)
    (password,) = [r for r in head["resources"] if r["type"].startswith("random:")]
    for snap in (base, head):
        for r in snap["resources"]:
            if r["name"] == password["name"]:
                r["type"] = "random:index/randomUuid:RandomUuid"  # no rule covers it
    password["inputs"]["keepers"] = {"k": "v"}
    fate = classify(base, head).of(password["name"])
    assert (fate.op, fate.cannot_predict) == ("may-replace", True)
    text = render_text(diff_snapshots(base, head))
    assert "!! CANNOT PREDICT 1 resource(s): no replacement rules for random:" in text


# -- 3: what a replacement keeps, and the way that makes a VM anew ---------------------


def generation(n: int) -> Edit:
    return lambda c: c["gpu-ci:vm"].update(generation=n)


def test_a_replaced_vm_keeps_its_ignored_inputs_and_the_diff_says_so() -> None:
    """pulumi/pulumi step_generator.go continueStepsFromImport: `processedInputs :=
    processIgnoreChanges(sg.deployment.Diag(), urn, inputs, old.Inputs, goal.IgnoreChanges)`
    runs for every resource with a state, a `--replace` target included: a replaced VM boots
    its old metadata (user data, SSH keys), availability domain and filter-chosen image."""
    base = base_plan("dev")
    head = copy.deepcopy(base)
    (vm,) = [r for r in head["resources"] if r["type"] == INSTANCE]
    vm["options"]["replaceOnChanges"] = ["displayName"]  # as `--replace` asks
    vm["inputs"]["displayName"] += "-x"
    fate = classify(base, head).of("gpu-vm-0", INSTANCE)
    assert fate.op == "replace"
    assert fate.kept_on_replace == ("availabilityDomain", "metadata", "sourceDetails.sourceId")
    assert "keeps its old availabilityDomain, metadata, sourceDetails.sourceId (ignoreChanges)" in (
        render_text(diff_snapshots(base, head))
    )


def test_a_new_vm_generation_makes_the_vm_anew_from_the_programs_values(tmp_path: Path) -> None:
    """`vm.generation` names the instance anew: a URN with no state, so nothing is copied
    from the old one (processIgnoreChanges runs only `if old != nil`); the old VM is
    deleted after the new one and what was on it is made again."""
    base = base_plan("dev")
    head = plan_edited("dev", [generation(1)], tmp_path)
    result = classify(base, head)
    found = ops(result)
    assert found["create"] == ("gpu-vm-0-g1",)
    assert found["delete"] == ("gpu-vm-0",)
    assert "host-0-cloud-init" in found["replace"] and "cluster-k8s" in found["replace"]
    assert "host-0-runner-github-runner" in found["replace"]
    (new_vm,) = [r for r in head["resources"] if r["type"] == INSTANCE]
    (old_vm,) = [r for r in base["resources"] if r["type"] == INSTANCE]
    assert new_vm["inputs"]["metadata"] == old_vm["inputs"]["metadata"]  # today's, in full
    assert new_vm["options"]["ignoreChanges"] == old_vm["options"]["ignoreChanges"]
    assert result.of("gpu-vm-0-g1", INSTANCE).kept_on_replace == ()
    again = plan_edited("dev", [generation(1)], tmp_path / "again")
    assert classify(head, again).changed == []  # the same generation: nothing


# -- 4: guesses are `may-replace`, with why --------------------------------------------


def kubeconfig(ciphertext: str) -> Edit:
    def edit(config: dict[str, Any]) -> None:
        config["gpu-ci:arc"]["cluster"] = {"kubeconfig": {"secure": ciphertext}}
        config["gpu-ci:platform"]["accelerator"] = "a10"  # no OKE pool to tell it

    return edit


ACTIVE_CLUSTER = (
    "pulumi-kubernetes replaces a provider only when its kubeconfig's active cluster changes "
    "(provider.go DiffConfig); the plan sees only that it changed"
)


def test_a_rotated_cluster_kubeconfig_may_replace_never_replaces(tmp_path: Path) -> None:
    """provider.go DiffConfig: `if oldFound && found &&
    !reflect.DeepEqual(oldActiveCluster, activeCluster) {`: a rotated kubeconfig of the
    same cluster replaces nothing; the plan holds only the secret's digest."""
    base = plan_edited("arc", [kubeconfig("v1:FIRST")], tmp_path / "base")
    head = plan_edited("arc", [kubeconfig("v1:SECOND")], tmp_path / "head")
    result = classify(base, head)
    assert set(ops(result)) == {"may-replace"}
    provider = result.of("cluster-k8s", K8S)
    assert provider.maybe == (("kubeconfig", ACTIVE_CLUSTER),)
    for name in on_provider(head, "cluster-k8s"):
        fate = result.of(name) if len([f for f in result.fates if f.name == name]) == 1 else None
        if fate is not None:
            assert (fate.op, fate.maybe) == (
                "may-replace",
                ((PROVIDER, "cluster-k8s may be replaced"),),
            ), name
    d = diff_snapshots(base, head)
    text = render_text(d)
    assert f" ? {K8S}  cluster-k8s  (may-replace: kubeconfig: {ACTIVE_CLUSTER})" in text
    assert "to replace" in text and "0 to replace" in text
    md = render_markdown(d, base, head)
    assert "[!CAUTION]" not in md  # nothing certainly goes
    assert (
        f"> - **may replace** `cluster-k8s` (`{K8S}`): may destroy a Kubernetes provider: "
        f"everything on it is replaced — kubeconfig: {ACTIVE_CLUSTER}"
    ) in md
    assert "| ? **may replace** | `cluster-k8s` |" in md
    mermaid = render_changed_mermaid(d, base, head)
    assert "may replace: kubeconfig</small>" in mermaid and ":::mayreplace" in mermaid
    assert f"may replace, kubeconfig: {ACTIVE_CLUSTER}" in mermaid
    (change,) = [c for c in d.as_json()["changes"] if c["name"] == "cluster-k8s"]
    assert (change["op"], change["uncertain"]) == (
        "may-replace",
        [{"input": "kubeconfig", "why": ACTIVE_CLUSTER}],
    )
    json.dumps(d.as_json())  # serializable as the CLI writes it


SUBNET_A = "ocid1.subnet.oc1.iad.aaaaaaaafirstsubnetofthetestxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
SUBNET_B = "ocid1.subnet.oc1.iad.aaaaaaaasecondsubnetofthetestxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"


def subnet(ocid: str) -> Edit:
    return lambda c: c["gpu-ci:network"].update(existingSubnetId=ocid)


def test_a_moved_existing_subnet_may_replace_the_nsg(tmp_path: Path) -> None:
    """The NSG's `vcnId` is what `getSubnet` answers, which the offline plan makes up from
    the subnet id (stacks/offline/engine/fakes.py `_subnet`): terraform-provider-oci's ForceNew
    `vcn_id` replaces it only if the new subnet is in another VCN. The VM's
    `createVnicDetails.subnetId` is the config's own value: certain."""
    base = plan_edited("dev", [subnet(SUBNET_A)], tmp_path / "base")
    head = plan_edited("dev", [subnet(SUBNET_B)], tmp_path / "head")
    result = classify(base, head)
    nsg = result.of("network-nsg")
    assert nsg.op == "may-replace" and [p for p, _ in nsg.maybe] == ["vcnId"]
    assert "the offline plan makes up the VCN `getSubnet` finds for the subnet" in nsg.maybe[0][1]
    rules = [
        f
        for f in result.changed
        if f.type.endswith("SecurityRule:NetworkSecurityGroupSecurityRule")
    ]
    assert rules and all(
        f.maybe == (("networkSecurityGroupId", "it comes from network-nsg, which may be replaced"),)
        for f in rules
    )
    vm = result.of("gpu-vm-0", INSTANCE)
    assert (vm.op, vm.replace_because[:1]) == ("replace", ("createVnicDetails.subnetId",))


def test_a_region_change_lists_the_default_providers_update(tmp_path: Path) -> None:
    """pulumi-terraform-bridge pkg/tfbridge/provider.go configDiffer.DiffConfig: a config
    change replaces the provider only `if p.forcesProviderReplace(keyPath)`, and pulumi-oci
    sets `Config: map[string]*tfbridge.SchemaInfo{}`: the default OCI provider is updated."""
    base = base_plan("dev")
    head = plan_edited("dev", [lambda c: c.update({"oci:region": "us-phoenix-1"})], tmp_path)
    result = classify(base, head)
    provider = result.of("default", "pulumi:providers:oci")
    assert provider.op == "update"
    assert [(c.path, c.old, c.new) for c in provider.inputs] == [
        ("region", "us-ashburn-1", "us-phoenix-1")
    ]
    # another region's ADs are other ADs: the capacity reports are certainly replaced
    reports = [f for f in result.changed if f.name.startswith("placement-capacity")]
    assert reports and all(f.op == "replace" for f in reports)
    text = render_text(diff_snapshots(base, head))
    assert ' ~ pulumi:providers:oci  default\n      region: "us-ashburn-1" → "us-phoenix-1"' in text
