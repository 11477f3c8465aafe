"""Day 2 across stacks and credentials: a renamed stack, a rotated host key, and a consumer
stack whose producer's cluster is made anew (issue #26, items 1, 2 and 4).

Each scenario plans the example stacks before and after the change, as
`tests/stacks/offline/lifecycle/test_day2.py` does, and states the whole outcome: every
operation and every delete-first flag.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from stacks.offline.lifecycle.fate import PROVIDER, Lifecycle, classify
from stacks.offline.lifecycle.generations import export_identities, generations
from stacks.offline.plan import plan_run, plan_stack
from stacks.offline.snapshot.recorded import snapshot_of
from stacks.offline.snapshot.shape import Snapshot
from tests.stacks.offline.lifecycle.test_day2 import PLATFORM, Edit, base_plan, ops, project_with
from tests.stacks.stack_helpers import DEV_QUEUE_EXPORTER

REMOTE_STEPS = (
    "host-0-cloud-init",
    "host-0-authorized-keys",
    "host-0-nvidia-driver",
    "host-0-docker",
    "host-0-container-toolkit",
    "host-0-toolkit-config",
    "host-0-inotify",
    "host-0-tools",
    "host-0-verify",
    "cluster-nvkind-cluster",
    "host-0-runner-github-app-key",
    "cluster-cluster-kubeconfig",
    "host-0-runner-github-runner",
    "cluster-cluster-ready",
)
"""The dev stack's steps that run over SSH (all but the reboot wait, which probes from the
deployer), in the order they run."""
ON_THE_CLUSTER = sorted([*PLATFORM, "platform-checks-reader", "platform-checks-reader"])
"""What runs on a cluster's Kubernetes provider in dev (the checks' reader is a
ServiceAccount, a ClusterRole and a ClusterRoleBinding), sorted."""
ON_THE_CONSUMERS_CLUSTER = [name for name in ON_THE_CLUSTER if name not in DEV_QUEUE_EXPORTER]
"""The same in apps-dev, with monitoring but no runners of its own, so no queue-time exporter
(it is where a stack's VM runners are: docs/observability.md)."""


def fates(result: Lifecycle) -> dict[str, list[tuple[str, tuple[str, ...], bool]]]:
    """name -> (op, replace because, deleted first) of each changed resource by that name."""
    out: dict[str, list[tuple[str, tuple[str, ...], bool]]] = {}
    for f in result.changed:
        out.setdefault(f.name, []).append((str(f.op), f.replace_because, f.delete_before_replace))
    return out


def assert_platform_follows_its_provider(result: Lifecycle, on_the_cluster: list[str]) -> None:
    """The provider replaced because its kubeconfig changes, and everything on it replaced
    because its provider is: created first (nothing on it asks to be deleted first), except
    the checks' binding, whose role reference is unknown until the new role exists."""
    found = fates(result)
    assert found["cluster-k8s"] == [("replace", ("kubeconfig",), False)]
    on_cluster = [f for f in result.changed if f.name in set(on_the_cluster)]
    assert sorted(f.name for f in on_cluster) == on_the_cluster
    for f in on_cluster:
        expected = (PROVIDER, "roleRef") if f.type.endswith(":ClusterRoleBinding") else (PROVIDER,)
        assert (f.op, f.replace_because, f.delete_before_replace) == (
            "replace",
            expected,
            False,
        ), f.name


# -- 1: a renamed stack ------------------------------------------------------------------


def arc_renamed(tmp: Path, edits: list[Edit] | None = None) -> Lifecycle:
    """`arc` as deployed, against the same stack file as `arc2` (`pulumi stack rename`)."""
    project = project_with(tmp, {"arc2": edits or []}, copies={"arc2": "arc"})
    return classify(base_plan("arc"), plan_stack("arc2", project))


def test_a_renamed_stack_replaces_no_secret(tmp_path: Path) -> None:
    """Equal secrets compare equal across stacks: their digests are salted with the
    project and the resource's identity, not its URN. What changes is the stack's name in
    tags and in the OKE cluster's and node pools' names: updates in place."""
    result = arc_renamed(tmp_path)
    tagged = ("freeformTags.gpu-ci-stack",)
    expected = {
        "network-vcn": tagged,
        "network-igw": tagged,
        "network-nsg": tagged,
        "network-egress-only": tagged,
        "network-routes": tagged,
        "network-subnet": tagged,
        "oke-nsg": tagged,
        "oke": (*tagged, "name"),
        "oke-cpu": (*tagged, "name", "nodeConfigDetails.freeformTags.gpu-ci-stack"),
        "oke-gpu": (*tagged, "name", "nodeConfigDetails.freeformTags.gpu-ci-stack"),
    }
    assert {f.name: (f.op, tuple(c.path for c in f.inputs)) for f in result.changed} == {
        name: ("update", paths) for name, paths in expected.items()
    }
    secrets = [f for f in result.fates if f.type == "kubernetes:core/v1:Secret"]
    assert len(secrets) >= 4 and all(f.op is None for f in secrets)


def test_a_secret_rotated_in_a_renamed_stack_still_shows(tmp_path: Path) -> None:
    def rotate(config: dict[str, Any]) -> None:
        config["gpu-ci:arc"]["githubApp"]["privateKey"] = {"secure": "v1:ROTATED:new"}

    result = arc_renamed(tmp_path, [rotate])
    secrets = {
        f.name: (f.op, f.replace_because, f.delete_before_replace)
        for f in result.changed
        if f.type == "kubernetes:core/v1:Secret"
    }
    # Each scale set's GitHub App Secret: its data is immutable to pulumi-kubernetes, and
    # its name stays, so the old one is deleted first.
    assert secrets and all(
        value == ("replace", ("stringData",), True) for value in secrets.values()
    ), secrets


def test_secret_digests_name_no_stack_and_differ_between_resources() -> None:
    dev = base_plan("dev")
    digests = [d for r in dev["resources"] for d in (r.get("secretDigests") or {}).values()]
    assert digests and all(d.startswith("id1:") for d in digests)
    assert len(set(digests)) == len(digests)  # one secret in two places: two digests


# -- 2: a rotated host key -------------------------------------------------------------


def host_key(ciphertext: str) -> Edit:
    return lambda c: c["gpu-ci:host"].update(privateKey={"secure": ciphertext})


def test_rotating_the_host_key_updates_every_remote_step(tmp_path: Path) -> None:
    """Every remote step's connection holds the key: each is updated (re-run) in place.
    The kubeconfig step re-runs too, so its output is unknown at preview and `pulumi
    preview` shows the provider and the platform replaced; the `up` reads the same
    kubeconfig before it diffs the provider, which pulumi-kubernetes replaces only for
    another active cluster (provider.go DiffConfig `if oldFound && found &&
    !reflect.DeepEqual(oldActiveCluster, activeCluster)`): so the diff says `may-replace`,
    with why, never `replace` (docs/day-2.md#what-each-change-does)."""
    old = plan_stack("dev", project_with(tmp_path / "old", {"dev": [host_key("v1:OLD")]}))
    new = plan_stack("dev", project_with(tmp_path / "new", {"dev": [host_key("v1:NEW")]}))
    result = classify(old, new)
    found = ops(result)
    assert set(found) == {"update", "may-replace"}
    assert found["update"] == (*REMOTE_STEPS[:3], "host-0-reboot-wait", *REMOTE_STEPS[3:])
    for name in REMOTE_STEPS:
        fate = result.of(name)
        assert [c.path for c in fate.inputs] == ["connection"], name
        assert fate.replace_because == () and not fate.delete_before_replace
    wait = result.of("host-0-reboot-wait")  # reads the driver step's result
    assert wait.unknown == ("environment.GPU_CI_DRIVER_RESULT",)
    assert sorted(found["may-replace"]) == sorted(["cluster-k8s", *ON_THE_CLUSTER])
    provider = result.of("cluster-k8s")
    assert provider.unknown == ("kubeconfig",)
    assert provider.maybe == (
        (
            "kubeconfig",
            "it comes from cluster-cluster-kubeconfig, which re-runs: unknown at preview (so "
            "`pulumi preview` shows a replacement), read again before the `up` diffs it",
        ),
    )
    for f in result.changed:
        if f.name in set(ON_THE_CLUSTER):
            assert (f.op, f.delete_before_replace) == ("may-replace", False), f.name
            assert (PROVIDER, "cluster-k8s may be replaced") in f.maybe, f.name
    assert result.of("gpu-vm-0", "oci:Core/instance:Instance").op is None


def test_a_vm_address_is_known_in_the_plan_and_unknown_once_the_vm_is_replaced() -> None:
    """The stand-in address lets a diff see the connection; a replaced VM makes it unknown."""
    dev = base_plan("dev")
    head = copy.deepcopy(dev)
    (vm,) = [r for r in head["resources"] if r["type"] == "oci:Core/instance:Instance"]
    vm["inputs"]["hostnameLabel"] = "gpu0"  # ForceNew in terraform-provider-oci
    result = classify(dev, head)
    assert result.of("gpu-vm-0", "oci:Core/instance:Instance").replace_because == ("hostnameLabel",)
    docker = result.of("host-0-docker")
    assert (docker.op, docker.unknown) == ("replace", ("connection", "triggers[0]"))


# -- 4: a consumer stack and its producer ------------------------------------------------


def gpu_dev_changed(tmp: Path, edit: Edit) -> tuple[Lifecycle, Lifecycle]:
    """gpu-dev and apps-dev (which reads gpu-dev's cluster) as deployed, against both
    planned from a project where gpu-dev has `edit`."""
    project = project_with(tmp, {"gpu-dev": [edit]})
    producer = classify(base_plan("gpu-dev"), plan_stack("gpu-dev", project))
    consumer = classify(base_plan("apps-dev"), plan_stack("apps-dev", project))
    return producer, consumer


def node_image(config: dict[str, Any]) -> None:
    config["gpu-ci:cluster"]["nodeImage"] = "kindest/node:v1.34.3"


def test_a_producer_cluster_made_anew_replaces_the_consumer_platform(tmp_path: Path) -> None:
    producer, consumer = gpu_dev_changed(tmp_path, node_image)
    assert fates(producer)["cluster-cluster-kubeconfig"] == [("replace", ("triggers[0]",), False)]
    found = ops(consumer)
    assert set(found) == {"replace"}
    assert sorted(found["replace"]) == sorted(["cluster-k8s", *ON_THE_CONSUMERS_CLUSTER])
    assert_platform_follows_its_provider(consumer, ON_THE_CONSUMERS_CLUSTER)
    reference = consumer.of("cluster-stack", "pulumi:pulumi:StackReference")
    assert reference.op is None  # read, never created or replaced


def test_a_producer_change_in_place_leaves_the_consumer_alone(tmp_path: Path) -> None:
    """A toolkit bump re-runs gpu-dev's host steps and adopts the same cluster: its
    kubeconfig stays, and so does everything apps-dev runs on it."""

    def toolkit(config: dict[str, Any]) -> None:
        config["gpu-ci:host"].setdefault("versions", {}).update(toolkit="1.17.0-1")

    producer, consumer = gpu_dev_changed(tmp_path, toolkit)
    assert set(ops(producer)) == {"update"}
    assert ops(consumer) == {}


def kubeconfig_identity(snap: Snapshot, sources: dict[str, list[str]]) -> str:
    return export_identities(snap, sources)["kubeconfig"]


def test_the_kubeconfig_identity_follows_the_step_generation() -> None:
    run = plan_run("gpu-dev")
    snap = snapshot_of(run)
    (step,) = run.export_sources["kubeconfig"]
    assert step.endswith("::cluster-cluster-kubeconfig")
    identity = kubeconfig_identity(snap, run.export_sources)
    # the same plan twice: the same identity; a forcing input changed: another one
    assert kubeconfig_identity(snapshot_of(plan_run("gpu-dev")), run.export_sources) == identity
    changed = copy.deepcopy(snap)
    (kube,) = [r for r in changed["resources"] if r["urn"] == step]
    kube["inputs"]["triggers"][0] = "another-cluster-definition"
    assert kubeconfig_identity(changed, run.export_sources) != identity
    # an input that updates in place (its script, ignored; its connection) does not
    kube["inputs"]["triggers"][0] = snap_trigger(snap, step)
    kube["inputs"]["stdin"] = "a new script"
    kube["secretDigests"] = {"connection": "id1:0000000000000000"}
    assert kubeconfig_identity(changed, run.export_sources) == identity


def snap_trigger(snap: Snapshot, urn: str) -> Any:
    (r,) = [r for r in snap["resources"] if r["urn"] == urn]
    return r["inputs"]["triggers"][0]


def test_a_generation_does_not_name_the_stack(tmp_path: Path) -> None:
    """The same resource in a renamed stack has the same generation where nothing that
    replaces it names the stack (its Secrets), and another where something does (the OKE
    cluster's name is not among them: it updates in place)."""
    project = project_with(tmp_path, {}, copies={"arc2": "arc"})
    before, after = base_plan("arc"), plan_stack("arc2", project)

    def by_name(snap: Snapshot) -> dict[tuple[str, str], str]:
        found = generations(snap)
        return {(r["type"], r["name"]): found[r["urn"]] for r in snap["resources"]}

    old, new = by_name(before), by_name(after)
    assert old.keys() == new.keys()
    assert {key for key in old if old[key] != new[key]} == set()
