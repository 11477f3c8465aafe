"""Day 2: each routine change to an example stack, planned before and after, and what the
engine would do to the live resources (`stacks.offline.lifecycle.fate`, the rules
`stacks diff` uses).

Every scenario states the whole outcome: which resources are created, updated, replaced
(with the input that forces it) or deleted; everything else must be left as it is.
"""

from __future__ import annotations

import copy
import shutil
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from stacks.offline.lifecycle.fate import PROVIDER, Lifecycle, classify
from stacks.offline.plan import REPO, plan_stack
from stacks.offline.snapshot.shape import Snapshot
from tests.stacks.stack_helpers import DEV_HEALTH_CHECKS, DEV_MONITORING, DEV_QUEUE_EXPORTER

NEW_KEY = (
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK2x5nHkDl9o3Zv1sVfYVZ0hTqGmHc7LVbMrfGL4yQ0n ops@example"
)
INSTANCE = "oci:Core/instance:Instance"
TOOLKIT_ON = [
    "host-0-container-toolkit",
    "host-0-toolkit-config",
    "host-0-inotify",
    "host-0-tools",
    "host-0-verify",
    "cluster-nvkind-cluster",
    "cluster-cluster-ready",
]
MONITORING = [
    "monitoring-ns",
    "monitoring-grafana-admin",
    "monitoring",
    "monitoring-dashboard-gpu-ci",
    "monitoring-alerts",
    *DEV_QUEUE_EXPORTER,
]
"""On the cluster too (its generated Grafana password is not: it survives a new cluster)."""
PLATFORM = [
    *MONITORING,
    "platform-ns-gpu-operator",
    "platform-ns-kubeflow-system",
    "platform-gpu-time-slicing-configmap-gpu-time-slicing-config",
    "platform-gpu-operator",
    "platform-kubeflow-trainer",
    "platform-runtime-jax-distributed",
    "platform-runtime-torch-distributed",
    "platform-runtime-torchtune-qwen2.5-1.5b",
    "platform-checks-ns",
    "platform-checks-reader",
    "platform-checks-check-nvidia-smi",
    "platform-checks-operator-health",
    *(name for name, _ in DEV_HEALTH_CHECKS),
]

COMMAND = "command:remote:Command"
NAMESPACE = "kubernetes:core/v1:Namespace"
CONFIG_MAP = "kubernetes:core/v1:ConfigMap"
RELEASE = "kubernetes:helm.sh/v3:Release"
RUNTIME_PATCH = "kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntimePatch"
ON_THE_PROVIDER = {
    ("monitoring-ns", NAMESPACE),
    ("monitoring-grafana-admin", "kubernetes:core/v1:Secret"),
    ("monitoring", RELEASE),
    ("monitoring-dashboard-gpu-ci", CONFIG_MAP),
    ("monitoring-alerts", "kubernetes:monitoring.coreos.com/v1:PrometheusRule"),
    ("monitoring-queue-exporter-ns", NAMESPACE),
    ("monitoring-queue-exporter-github-app", "kubernetes:core/v1:Secret"),
    ("monitoring-queue-exporter-program", CONFIG_MAP),
    ("monitoring-queue-exporter", "kubernetes:apps/v1:Deployment"),
    ("monitoring-queue-exporter-monitor", "kubernetes:monitoring.coreos.com/v1:PodMonitor"),
    ("platform-ns-gpu-operator", NAMESPACE),
    ("platform-ns-kubeflow-system", NAMESPACE),
    ("platform-gpu-time-slicing-configmap-gpu-time-slicing-config", CONFIG_MAP),
    ("platform-gpu-operator", RELEASE),
    ("platform-kubeflow-trainer", RELEASE),
    ("platform-runtime-jax-distributed", RUNTIME_PATCH),
    ("platform-runtime-torch-distributed", RUNTIME_PATCH),
    ("platform-runtime-torchtune-qwen2.5-1.5b", RUNTIME_PATCH),
    ("platform-checks-ns", NAMESPACE),
    ("platform-checks-reader", "kubernetes:core/v1:ServiceAccount"),
    ("platform-checks-reader", "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole"),
    ("platform-checks-check-nvidia-smi", "kubernetes:batch/v1:Job"),
    ("platform-checks-operator-health", "kubernetes:batch/v1:Job"),
    *DEV_HEALTH_CHECKS,
}
"""Replaced only because their provider is (`cluster-k8s`); none sets `deleteBeforeReplace`,
and a provider-caused replacement never reaches pulumi-kubernetes' Diff, so none of them,
named or not, is deleted first."""
NEW_CLUSTER: dict[tuple[str, str], tuple[tuple[str, ...], bool]] = {
    # (replaced because, deleted first)
    ("cluster-nvkind-cluster", COMMAND): (("triggers[0]",), True),  # its own option
    ("cluster-cluster-kubeconfig", COMMAND): (("triggers[0]",), False),
    ("cluster-k8s", "pulumi:providers:kubernetes"): (("kubeconfig",), False),
    **{key: ((PROVIDER,), False) for key in ON_THE_PROVIDER},
    # its roleRef names the ClusterRole's generated name, unknown while that is replaced
    ("platform-checks-reader", "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding"): (
        (PROVIDER, "roleRef"),
        False,
    ),
}
"""Every replacement a new nvkind cluster brings, and whether the old one goes first."""


def replacements(lifecycle: Lifecycle) -> dict[tuple[str, str], tuple[tuple[str, ...], bool]]:
    """(name, type) -> (replaced because, deleted first), for every replaced resource."""
    return {
        (f.name, f.type): (f.replace_because, f.delete_before_replace)
        for f in lifecycle.changed
        if f.op == "replace"
    }


@cache
def base_plan(stack: str) -> Snapshot:
    return plan_stack(stack)


Edit = Callable[[dict[str, Any]], None]


def project_with(
    tmp: Path, edits: dict[str, list[Edit]], copies: dict[str, str] | None = None
) -> Path:
    """A copy of the example project in `tmp` (every stack file, so referenced stacks plan
    from there too), with `edits` applied to the named stacks' config and `copies` (new
    stack -> example stack) added as stack files."""
    tmp.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "Pulumi.yaml", tmp)
    for other in REPO.glob("Pulumi.*.yaml"):
        shutil.copy(other, tmp)
    for new, example in (copies or {}).items():
        shutil.copy(REPO / f"Pulumi.{example}.yaml", tmp / f"Pulumi.{new}.yaml")
    for stack, stack_edits in edits.items():
        path = tmp / f"Pulumi.{stack}.yaml"
        document = yaml.safe_load(path.read_text())
        for edit in stack_edits:
            before = copy.deepcopy(document)
            edit(document["config"])
            assert document != before, "each edit must change the stack file"
        path.write_text(yaml.safe_dump(document, sort_keys=False))
    return tmp


def plan_edited(stack: str, edits: list[Edit], project: Path) -> Snapshot:
    """The example stack with `edits` applied to its config, planned from `project`."""
    return plan_stack(stack, project_with(project, {stack: edits}))


def changed(stack: str, edit: Edit, tmp: Path, *, deployed: Edit | None = None) -> Lifecycle:
    """The example stack as it is deployed (the file, or it with `deployed` applied),
    against the same with `edit` applied too: the change under review."""
    first = [deployed] if deployed is not None else []
    base = plan_edited(stack, first, tmp / "base") if first else base_plan(stack)
    return classify(base, plan_edited(stack, [*first, edit], tmp / "head"))


def ops(lifecycle: Lifecycle) -> dict[str, tuple[str, ...]]:
    """op -> the names it applies to, in the order they run."""
    out: dict[str, list[str]] = {}
    for fate in lifecycle.changed:
        out.setdefault(str(fate.op), []).append(fate.name)
    return {op: tuple(names) for op, names in out.items()}


def versions(config: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = config["gpu-ci:host"].setdefault("versions", {})
    return found


def test_a_toolkit_bump_updates_that_step_and_the_ones_after_in_place(tmp_path: Path) -> None:
    result = changed("dev", lambda c: versions(c).update(toolkit="1.17.0-1"), tmp_path)
    assert ops(result) == {"update": tuple(TOOLKIT_ON)}
    for name in TOOLKIT_ON:
        assert [c.path for c in result.of(name).inputs] == ["stdin"], name
    # the kubeconfig, its provider, the platform and the runner are left as they are
    for name in ("cluster-cluster-kubeconfig", "cluster-k8s", "host-0-runner-github-runner"):
        assert result.of(name).op is None


def test_a_driver_branch_bump_reruns_from_the_driver_on(tmp_path: Path) -> None:
    result = changed("dev", lambda c: versions(c).update(driverBranch="580-server"), tmp_path)
    assert ops(result) == {
        "update": (
            "host-0-nvidia-driver",
            "host-0-reboot-wait",
            "host-0-docker",
            *TOOLKIT_ON,
        )
    }
    # the reboot wait reads the driver's result, unknown until the driver step re-ran
    wait = result.of("host-0-reboot-wait")
    assert "environment.GPU_CI_DRIVER_RESULT" in wait.unknown


@pytest.mark.parametrize(
    ("tool", "pin"),
    [
        ("helm", {"version": "3.19.0", "sha256": "a" * 64}),
        ("kind", {"version": "0.31.0", "sha256": "b" * 64}),
    ],
)
def test_a_tool_pin_bump_reruns_the_tools_and_adopts_the_cluster(
    tool: str, pin: dict[str, str], tmp_path: Path
) -> None:
    """A new kind binary manages the running cluster too: the cluster is made anew only
    when the node image changes (its own row)."""
    result = changed("dev", lambda c: versions(c).update({tool: pin}), tmp_path)
    assert ops(result) == {
        "update": (
            "host-0-tools",
            "host-0-verify",
            "cluster-nvkind-cluster",
            "cluster-cluster-ready",
        )
    }
    assert all(f.replace_because == () for f in result.changed)


def test_a_node_image_bump_replaces_the_cluster_and_everything_on_it(tmp_path: Path) -> None:
    result = changed(
        "dev", lambda c: c["gpu-ci:cluster"].update(nodeImage="kindest/node:v1.34.3"), tmp_path
    )
    found = ops(result)
    assert set(found) == {"replace", "update"}
    assert found["update"] == ("cluster-cluster-ready",)
    replaced = found["replace"]
    assert replaced[:3] == ("cluster-nvkind-cluster", "cluster-cluster-kubeconfig", "cluster-k8s")
    assert sorted(replaced[3:]) == sorted([*PLATFORM, *["platform-checks-reader"] * 2])
    # only the cluster step goes first (`kind delete cluster`, its own deleteBeforeReplace);
    # the kubeconfig step, the provider and everything on it are created before the old go
    assert replacements(result) == NEW_CLUSTER
    assert [f.name for f in result.changed if f.delete_before_replace] == ["cluster-nvkind-cluster"]
    # nothing on the host or the VM moves, and Grafana's password is kept
    assert all(f.op is None for f in result.fates if f.name.startswith(("host-0", "gpu-vm")))
    assert result.of("monitoring-grafana-password").op is None


def test_an_nvkind_pin_bump_replaces_the_cluster_on_purpose(tmp_path: Path) -> None:
    nvkind = {"commit": "b7c1d2e", "commitDate": "2026-07-01"}
    result = changed("dev", lambda c: versions(c).update(nvkind=nvkind), tmp_path)
    found = ops(result)
    assert found["update"] == ("host-0-tools", "host-0-verify", "cluster-cluster-ready")
    assert found["replace"][:3] == (
        "cluster-nvkind-cluster",
        "cluster-cluster-kubeconfig",
        "cluster-k8s",
    )
    assert sorted(found["replace"][3:]) == sorted([*PLATFORM, *["platform-checks-reader"] * 2])
    assert set(found) == {"update", "replace"}
    assert replacements(result) == NEW_CLUSTER


def test_a_new_gpu_layout_replaces_the_cluster_on_purpose(tmp_path: Path) -> None:
    """The layout is in the cluster step's triggers, as the node image is."""
    result = changed("dev", lambda c: c["gpu-ci:cluster"].update(gpus=[[0], []]), tmp_path)
    found = ops(result)
    assert set(found) == {"replace", "update"}
    assert found["update"] == ("cluster-cluster-ready",)
    assert found["replace"][:3] == (
        "cluster-nvkind-cluster",
        "cluster-cluster-kubeconfig",
        "cluster-k8s",
    )
    assert sorted(found["replace"][3:]) == sorted([*PLATFORM, *["platform-checks-reader"] * 2])
    assert replacements(result) == NEW_CLUSTER


def test_adding_an_ssh_key_updates_the_keys_step_and_never_the_vm(tmp_path: Path) -> None:
    result = changed("dev", lambda c: c["gpu-ci:vm"]["sshAuthorizedKeys"].append(NEW_KEY), tmp_path)
    assert ops(result) == {"update": ("host-0-authorized-keys",)}
    vm = result.of("gpu-vm-0", INSTANCE)
    assert vm.op is None and vm.ignored == ("metadata.ssh_authorized_keys",)


def test_changed_user_data_is_ignored_on_running_vms() -> None:
    """cloud-init's user data changes with gpu-ci itself; OCI would replace the VM."""
    base = base_plan("dev")
    head = copy.deepcopy(base)
    vm = next(r for r in head["resources"] if r["type"] == "oci:Core/instance:Instance")
    vm["inputs"]["metadata"]["user_data"] = "I2Nsb3VkLWNvbmZpZwo="
    fate = classify(base, head).of("gpu-vm-0", INSTANCE)
    assert (fate.op, fate.ignored) == (None, ("metadata.user_data",))
    vm["options"]["ignoreChanges"] = []  # as the program was before it ignored metadata
    fate = classify(base, head).of("gpu-vm-0", INSTANCE)
    assert (fate.op, fate.replace_because) == ("replace", ("metadata.user_data",))


def test_rotating_the_github_app_key_updates_the_key_file_and_replaces_the_exporters_copy(
    tmp_path: Path,
) -> None:
    """The runners' key file is rewritten in place; the queue-time exporter's Secret holding
    the same App is replaced: pulumi-kubernetes replaces a Secret whose `.stringData` changes
    unless its provider sets `enableSecretMutable` (dev's does not), deleting it first as it
    keeps its name (pulumi/pulumi-kubernetes provider/pkg/provider/diff.go @ 94977969, as
    the shared upstream data's replacements/kubernetes-forcenew.json `secretUnlessMutable`)."""

    def rotate(config: dict[str, Any]) -> None:
        config["gpu-ci:runner"]["githubApp"]["privateKey"] = {"secure": "v1:ROTATED:new-ciphertext"}

    result = changed("dev", rotate, tmp_path)
    assert ops(result) == {
        "update": ("host-0-runner-github-app-key",),
        "replace": ("monitoring-queue-exporter-github-app",),
    }
    assert [c.path for c in result.of("host-0-runner-github-app-key").inputs] == ["stdin"]
    secret = result.of("monitoring-queue-exporter-github-app")
    assert (secret.replace_because, secret.delete_before_replace) == (("stringData",), True)
    assert "enableSecretMutable" not in next(
        r["inputs"] for r in base_plan("dev")["resources"] if r["name"] == "cluster-k8s"
    )


def runners_only(config: dict[str, Any]) -> None:
    """A VM fleet registered as runners, without the one-host cluster and its platform."""
    del config["gpu-ci:cluster"], config["gpu-ci:platform"]


def test_a_second_vm_only_creates(tmp_path: Path) -> None:
    result = changed(
        "dev", lambda c: c["gpu-ci:vm"].update(count=2), tmp_path, deployed=runners_only
    )
    found = ops(result)
    assert set(found) == {"create"}
    assert "gpu-vm-1" in found["create"] and "host-1-runner-github-runner" in found["create"]
    assert not [n for n in found["create"] if n.startswith(("host-0", "gpu-vm-0", "cluster"))]


def test_a_new_fallback_list_moves_no_running_vm(tmp_path: Path) -> None:
    result = changed("dev", lambda c: c["gpu-ci:vm"].update(availabilityDomains=[1, 2]), tmp_path)
    assert ops(result) == {
        "replace": ("placement-capacity-0", "placement-capacity-1"),
        "delete": ("placement-capacity-2",),
    }
    vm = result.of("gpu-vm-0", INSTANCE)
    assert vm.op is None and vm.ignored == ("availabilityDomain",)


def test_a_new_tenancy_moves_no_running_vm(tmp_path: Path) -> None:
    tenancy = "ocid1.tenancy.oc1..aaaaaaaanewtenancyforthetest"
    result = changed("dev", lambda c: c.update({"gpu-ci:tenancyId": tenancy}), tmp_path)
    reports = ("placement-capacity-0", "placement-capacity-1", "placement-capacity-2")
    assert ops(result) == {"replace": reports}
    assert all(result.of(r).replace_because == ("compartmentId",) for r in reports)
    assert result.of("gpu-vm-0", INSTANCE).op is None


def test_a_new_scale_set_only_creates(tmp_path: Path) -> None:
    def add(config: dict[str, Any]) -> None:
        scale_sets = config["gpu-ci:arc"]["scaleSets"]
        extra = copy.deepcopy(scale_sets[0])
        extra["name"] = "oracle-vm-gpu-a10-9"
        scale_sets.append(extra)

    result = changed("arc", add, tmp_path)
    found = ops(result)
    assert all("oracle-vm-gpu-a10-9" in name for name in found.pop("create"))
    # The queue-time exporter watches the new set's label too: its program's ConfigMap (data
    # is immutable to pulumi-kubernetes) is replaced, its Deployment's pod restarted.
    assert found == {
        "replace": ("monitoring-queue-exporter-program",),
        "update": ("monitoring-queue-exporter",),
    }


def test_a_new_recipe_component_creates_it_and_reruns_the_checks(tmp_path: Path) -> None:
    """Trainer added to a platform without it: its namespace, release, runtime patches and
    checks (its health check, robust-controller) are created, the checks' ClusterRole reads
    its kinds too; of the other checks only the GPU smoke Job, which covers every component,
    runs again (its digest annotation changed, and a Job's template can only change by
    replacement), and so does the Chainsaw pods' start Job, which runs before the checks it
    gates and now gates two more: the GPU operator's and time-slicing's checks stay."""

    def trainer_off(config: dict[str, Any]) -> None:
        config["gpu-ci:platform"]["set"] = ["kubeflow-trainer:enabled=false"]

    def trainer_on(config: dict[str, Any]) -> None:
        config["gpu-ci:platform"]["set"] = []

    result = changed("dev", trainer_on, tmp_path, deployed=trainer_off)
    found = ops(result)
    assert set(found) == {"create", "replace", "update"}
    assert set(found["create"]) == {
        "platform-ns-kubeflow-system",
        "platform-kubeflow-trainer",
        "platform-runtime-jax-distributed",
        "platform-runtime-torch-distributed",
        "platform-runtime-torchtune-qwen2.5-1.5b",
        "platform-checks-health-kubeflow-trainer",
        "platform-checks-robust-controller",
    }
    assert found["update"] == ("platform-checks-reader",)
    assert found["replace"] == (
        "platform-checks-chainsaw-pods-start",
        "platform-checks-check-nvidia-smi",
    )
    revision = 'spec.template.metadata.annotations["gpu-ci/check-digest"]'
    for job in found["replace"]:
        # auto-named (no .metadata.name): the new Job gets a new name and starts first
        fate = result.of(job)
        assert (fate.replace_because, fate.delete_before_replace) == ((revision,), False)


@pytest.mark.parametrize("stack", ["dev", "gpu-dev", "apps-dev", "arc", "workstation"])
def test_planning_the_same_config_twice_changes_nothing(stack: str) -> None:
    assert classify(base_plan(stack), plan_stack(stack)).changed == []


def observability(config: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = config.setdefault("gpu-ci:observability", {})
    return found


def test_a_retention_or_storage_change_upgrades_the_monitoring_release_only(
    tmp_path: Path,
) -> None:
    result = changed(
        "dev", lambda c: observability(c).update(retention="30d", storageSize="100Gi"), tmp_path
    )
    assert ops(result) == {"update": ("monitoring",)}
    assert result.of("monitoring", "kubernetes:helm.sh/v3:Release").replace_because == ()


def test_turning_observability_off_deletes_only_what_it_added(tmp_path: Path) -> None:
    result = changed("dev", lambda c: observability(c).update(enabled=False), tmp_path)
    found = ops(result)
    assert sorted(found["delete"]) == DEV_MONITORING
    assert found["update"] == ("platform-gpu-operator",)  # its ServiceMonitor off again
    assert set(found) == {"delete", "update", "replace"}
    # the checks of what changed re-run: the GPU operator's, and the smoke Job (covers all),
    # and the start Job of the Chainsaw checks' pod, before the GPU operator's Chainsaw check
    assert sorted(found["replace"]) == [
        "platform-checks-chainsaw-pods-start",
        "platform-checks-check-nvidia-smi",
        "platform-checks-health-gpu-operator",
        "platform-checks-operator-health",
    ]


def test_a_new_grafana_password_replaces_its_secret(tmp_path: Path) -> None:
    """Kubernetes Secrets are immutable to pulumi-kubernetes: new data is a new Secret
    (delete-before-replace: its name is fixed). Grafana reads it at start;
    docs/observability.md#day-2 says to restart it. Setting a password drops the generated
    one."""

    def password(text: str) -> Edit:
        given = {"secure": f"v1:{text}"}
        return lambda c: observability(c).update(grafana={"adminPassword": given})

    result = changed("dev", password("Zmlyc3Q="), tmp_path, deployed=password("c2Vjb25k"))
    assert ops(result) == {"replace": ("monitoring-grafana-admin",)}
    assert result.of("monitoring-grafana-admin").delete_before_replace
    (tmp_path / "generated").mkdir()
    dropped = changed("dev", password("Zmlyc3Q="), tmp_path / "generated")
    assert ops(dropped)["delete"] == ("monitoring-grafana-password",)


def test_a_changed_dashboard_replaces_its_config_map_only() -> None:
    """pulumi-kubernetes treats a ConfigMap's data as immutable: a new dashboard is a new
    ConfigMap (its name is fixed, so delete-before-replace); Grafana's sidecar reloads it."""
    before = base_plan("dev")
    after = copy.deepcopy(before)
    (board,) = [r for r in after["resources"] if r["name"] == "monitoring-dashboard-gpu-ci"]
    board["inputs"]["data"]["gpu-ci.json"] += " "
    result = classify(before, after)
    assert ops(result) == {"replace": ("monitoring-dashboard-gpu-ci",)}
    fate = result.of("monitoring-dashboard-gpu-ci")
    assert fate.replace_because == ('data["gpu-ci.json"]',) and fate.delete_before_replace
