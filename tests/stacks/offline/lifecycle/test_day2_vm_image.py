"""Day 2: a GPU VM re-pinned to another image (`gpu-ci:vm.image.id`, issue #26 item 3).

terraform-provider-oci does not force a new instance for `source_details.source_id`: it
sends the new image in an `UpdateInstance` (`UpdateInstanceSourceViaImageDetails`), which
swaps the boot volume under the same instance id, so the host steps (their `triggers` are
the instance id) would stay in state believing the host is set up. A pinned image is
therefore replaced on purpose (`replace_on_changes`, `OciGpuInstance`): the new-machine path
runs. A filter-chosen image still ignores a newer release.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from stacks.offline.diff.changes import diff_snapshots
from stacks.offline.diff.markdown import render_markdown
from stacks.offline.lifecycle.fate import PROVIDER, classify
from tests.stacks.offline.lifecycle.test_day2 import INSTANCE, Edit, base_plan, plan_edited

FIRST = "ocid1.image.oc1.iad.aaaaaaaafirstpinnedimageforthetest"
SECOND = "ocid1.image.oc1.iad.aaaaaaaasecondpinnedimageforthetest"
SOURCE = "sourceDetails.sourceId"
REMOTE = "command:remote:Command"
K8S = "kubernetes:core/v1"
RBAC = "kubernetes:rbac.authorization.k8s.io/v1"
MONITORING = "kubernetes:monitoring.coreos.com/v1"
RELEASE = "kubernetes:helm.sh/v3:Release"
PATCH = "kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntimePatch"
T0, T1 = ("triggers[0]",), ("triggers[1]",)

TESTS = [  # the Chainsaw checks' Tests (issue #31), in plan order
    "health-gpu-operator",
    "health-gpu-time-slicing",
    "health-kubeflow-trainer",
    "operator-health",
    "robust-controller",
]
CHECKS = ["chainsaw-pods-start", "check-nvidia-smi", *TESTS]  # their Jobs, the start Job first
JOB = "kubernetes:batch/v1:Job"
RE_PINNED = [
    # (op, name, type, replace_because, delete_before_replace), in the order they run
    ("replace", "gpu-vm-0", INSTANCE, (SOURCE,), False),
    ("replace", "host-0-cloud-init", REMOTE, T0, False),
    ("replace", "host-0-authorized-keys", REMOTE, T0, False),
    ("replace", "host-0-nvidia-driver", REMOTE, T0, False),
    ("replace", "host-0-reboot-wait", "command:local:Command", T0, False),
    ("replace", "host-0-docker", REMOTE, T0, False),
    ("replace", "host-0-container-toolkit", REMOTE, T0, False),
    ("replace", "host-0-toolkit-config", REMOTE, T0, False),
    ("replace", "host-0-inotify", REMOTE, T0, False),
    ("replace", "host-0-tools", REMOTE, T0, False),
    ("replace", "host-0-verify", REMOTE, T0, False),
    ("replace", "cluster-nvkind-cluster", REMOTE, T1, True),
    ("replace", "host-0-runner-github-app-key", REMOTE, T0, True),
    ("replace", "cluster-cluster-kubeconfig", REMOTE, T1, False),
    ("replace", "host-0-runner-github-runner", REMOTE, T0, True),
    ("replace", "cluster-k8s", "pulumi:providers:kubernetes", ("kubeconfig",), False),
    ("replace", "monitoring-ns", f"{K8S}:Namespace", (PROVIDER,), False),
    ("replace", "monitoring-grafana-admin", f"{K8S}:Secret", (PROVIDER,), False),
    ("replace", "monitoring", RELEASE, (PROVIDER,), False),
    ("replace", "monitoring-dashboard-gpu-ci", f"{K8S}:ConfigMap", (PROVIDER,), False),
    ("replace", "monitoring-queue-exporter-ns", f"{K8S}:Namespace", (PROVIDER,), False),
    (
        "replace",
        "monitoring-queue-exporter-monitor",
        f"{MONITORING}:PodMonitor",
        (PROVIDER,),
        False,
    ),
    ("replace", "monitoring-alerts", f"{MONITORING}:PrometheusRule", (PROVIDER,), False),
    ("replace", "monitoring-queue-exporter-program", f"{K8S}:ConfigMap", (PROVIDER,), False),
    ("replace", "monitoring-queue-exporter-github-app", f"{K8S}:Secret", (PROVIDER,), False),
    ("replace", "monitoring-queue-exporter", "kubernetes:apps/v1:Deployment", (PROVIDER,), False),
    ("replace", "platform-ns-gpu-operator", f"{K8S}:Namespace", (PROVIDER,), False),
    ("replace", "platform-ns-kubeflow-system", f"{K8S}:Namespace", (PROVIDER,), False),
    (
        "replace",
        "platform-gpu-time-slicing-configmap-gpu-time-slicing-config",
        f"{K8S}:ConfigMap",
        (PROVIDER,),
        False,
    ),
    ("replace", "platform-gpu-operator", RELEASE, (PROVIDER,), False),
    ("replace", "platform-kubeflow-trainer", RELEASE, (PROVIDER,), False),
    ("replace", "platform-runtime-jax-distributed", PATCH, (PROVIDER,), False),
    ("replace", "platform-runtime-torch-distributed", PATCH, (PROVIDER,), False),
    ("replace", "platform-runtime-torchtune-qwen2.5-1.5b", PATCH, (PROVIDER,), False),
    ("replace", "platform-checks-ns", f"{K8S}:Namespace", (PROVIDER,), False),
    ("replace", "platform-checks-reader", f"{RBAC}:ClusterRole", (PROVIDER,), False),
    *(("replace", f"platform-checks-{c}", f"{K8S}:ConfigMap", (PROVIDER,), False) for c in TESTS),
    ("replace", "platform-checks-reader", f"{K8S}:ServiceAccount", (PROVIDER,), False),
    (
        "replace",
        "platform-checks-reader",
        f"{RBAC}:ClusterRoleBinding",
        (PROVIDER, "roleRef"),
        False,
    ),
    *(("replace", f"platform-checks-{c}", JOB, (PROVIDER,), False) for c in CHECKS),
    ("replace", "cluster-cluster-ready", REMOTE, T0, False),
]


def pinned(image: str) -> Edit:
    def edit(config: dict[str, Any]) -> None:
        config["gpu-ci:vm"]["image"] = {"id": image}  # an id replaces the filter

    return edit


def test_a_new_pinned_image_replaces_the_vm_and_remakes_what_was_on_it(tmp_path: Path) -> None:
    base = plan_edited("dev", [pinned(FIRST)], tmp_path / "base")
    head = plan_edited("dev", [pinned(SECOND)], tmp_path / "head")
    result = classify(base, head)
    found = [
        (f.op, f.name, f.type, f.replace_because, f.delete_before_replace) for f in result.changed
    ]
    assert found == RE_PINNED
    vm = result.of("gpu-vm-0", INSTANCE)
    assert [(c.path, c.old, c.new) for c in vm.inputs] == [(SOURCE, FIRST, SECOND)]
    assert vm.ignored == ()  # not silently kept, as a filter-chosen image is
    (options,) = [r["options"] for r in head["resources"] if r["type"] == INSTANCE]
    assert options["replaceOnChanges"] == [SOURCE] and SOURCE not in options["ignoreChanges"]
    # the old runner is stopped and deregistered before its replacement registers, on the
    # old VM, which goes last (the new one is made first)
    runner = result.of("host-0-runner-github-runner")
    assert runner.op == "replace" and runner.delete_before_replace
    # Grafana's generated password is not on the host: it is kept
    assert result.of("monitoring-grafana-password").op is None

    md = render_markdown(diff_snapshots(base, head), base, head)
    caution = md[md.index("> [!CAUTION]") : md.index("| | resource | type | changed |")]
    assert (
        "> - **replace** `gpu-vm-0` (`oci:Core/instance:Instance`): destroys a GPU VM and its "
        "boot volume (when replaced, its host steps, runner registration and cluster are made "
        "again on the new VM) — sourceDetails.sourceId changed"
    ) in caution
    assert (
        "> - **replace** `host-0-runner-github-runner` (`command:remote:Command`): destroys a "
        "runner registration (stopped and deregistered)"
    ) in caution


def test_the_same_pinned_image_changes_nothing(tmp_path: Path) -> None:
    base = plan_edited("dev", [pinned(FIRST)], tmp_path / "base")
    head = plan_edited("dev", [pinned(FIRST)], tmp_path / "head")
    assert classify(base, head).changed == []


def test_a_newer_image_from_the_filter_changes_nothing() -> None:
    """The filter (newest Ubuntu 24.04 for the shape) picks a newer release: running VMs
    keep theirs (`ignore_changes`); `pulumi up --replace` takes it on purpose."""
    base = base_plan("dev")
    head = copy.deepcopy(base)
    (vm,) = [r for r in head["resources"] if r["type"] == INSTANCE]
    assert vm["inputs"]["sourceDetails"]["sourceId"] != SECOND
    vm["inputs"]["sourceDetails"]["sourceId"] = SECOND
    result = classify(base, head)
    assert result.changed == []
    fate = result.of("gpu-vm-0", INSTANCE)
    assert (fate.op, fate.ignored) == (None, (SOURCE,))


def test_a_filter_chosen_image_registers_ignored_not_replaced_on_change() -> None:
    """The filter-chosen image's options (the pinned one's: the first test)."""
    (filtered,) = [r for r in base_plan("dev")["resources"] if r["type"] == INSTANCE]
    assert SOURCE in filtered["options"]["ignoreChanges"]
    assert filtered["options"]["replaceOnChanges"] == []
