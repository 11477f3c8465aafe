"""`command: collect` end to end in the stub sandbox: the bundle's layout, its summary, the
size bound, a failing source, and that no planted secret survives redaction.

The action's own steps run first (prepare, configure with its real offline plan, install,
`up` on the Pulumi stand-in), so the namespaces, versions and kubeconfig the collect uses
are the ones the action really writes; kubectl, kind, helm, nvidia-smi, docker, journalctl
and dmesg are collect_sandbox's stand-ins.
"""

from __future__ import annotations

import json
import re

from ..action_sandbox import OUTPUTS, ActionSandbox
from .collect_modules import module
from .collect_sandbox import CHECKS, NODE_IMAGE, CollectRig, pod

PLATFORM = ["gpu-ci-checks", "gpu-operator", "kubeflow-system"]
"""The namespaces the action's default stack deploys into (its offline plan's)."""
XID = "2026-09-01T10:03:12+0000 runner kernel: NVRM: Xid (PCI:0000:00:04): 79, pid=2211, "
XID += "name=python, GPU has fallen off the bus."
GPU_LOG = "gpu-ci check nccl-all-reduce: FAILED (NCCL error: unhandled cuda error)\n"
CRASHING = pod(
    "kubeflow-system",
    "kubeflow-trainer-controller-manager-5d9c",
    "2026-09-01T09:58:00Z",
    "Running",
    containerStatuses=[
        {
            "name": "manager",
            "ready": False,
            "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 40s"}},
        }
    ],
)
HEALTHY = pod(
    "gpu-operator",
    "nvidia-device-plugin-daemonset-abcde",
    "2026-09-01T09:50:00Z",
    "Running",
    containerStatuses=[{"name": "main", "ready": True, "state": {"running": {}}}],
)


def up(runner: ActionSandbox) -> None:
    runner.up_to_install()
    assert runner.run("up").returncode == 0


def host(rig: CollectRig, kernel: str = "") -> None:
    rig.answer(
        "nvidia-smi -q", "==============NVSMI LOG==============\nDriver Version : 570.172.08\n"
    )
    rig.answer("journalctl -k --no-pager -o short-iso", kernel or "kernel: Linux version 6.8\n")
    rig.host_file("etc/docker/daemon.json", '{"default-runtime": "nvidia"}\n')
    rig.host_file(
        "etc/nvidia-container-runtime/config.toml",
        "accept-nvidia-visible-devices-as-volume-mounts = true\n",
    )
    rig.host_file("etc/cdi/nvidia.yaml", "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\n")
    rig.kind_log("kind-worker/journal.log", "kubelet started\n")
    rig.kind_log("kind-worker/kubelet.log", "kubelet: node ready\n")
    rig.kind_log("kind-version.txt", "kind v0.31.0\n")


def versions(rig: CollectRig) -> None:
    rig.answer("kind version", "kind v0.31.0 go1.25.5 linux/amd64\n")
    rig.answer("kubectl version --client", "Client Version: v1.35.0\nKustomize Version: v5.7.1\n")
    rig.answer("helm version --short", "v4.1.4+g05fa379\n")
    rig.answer("nvidia-smi --query-gpu=driver_version --format=csv,noheader", "570.172.08\n")
    rig.answer("docker version --format {{.Server.Version}}", "28.3.3\n")
    rig.answer("kubectl version -o json", json.dumps({"serverVersion": {"gitVersion": "v1.35.0"}}))
    releases = [
        {"name": "gpu-operator", "chart": "gpu-operator-v26.7.0", "status": "deployed"},
        {"name": "kubeflow-trainer", "chart": "kubeflow-trainer-2.3.0", "status": "failed"},
    ]
    rig.answer("helm list -A -o json", json.dumps(releases))


def a_failed_run(runner: ActionSandbox, kernel: str = "") -> CollectRig:
    rig = CollectRig(runner)
    up(runner)
    runner.sandbox.installed("nvidia-container-toolkit", "1.18.0-1")  # not the pin
    host(rig, kernel)
    versions(rig)
    rig.cluster(PLATFORM, {"kubeflow-system": [CRASHING], "gpu-operator": [HEALTHY]})
    rig.check_job("platform-checks-nccl-all-reduce-3f9a2c1", "nccl-all-reduce", GPU_LOG)
    return rig


def test_the_bundle_has_its_layout_and_names_the_first_failure(runner: ActionSandbox) -> None:
    rig = a_failed_run(runner, kernel=f"kernel: Linux version 6.8\n{XID}\n")
    run = runner.run("collect")
    assert run.returncode == 0, run.stderr
    per_namespace = [
        f"cluster/{ns}/{f}" for ns in PLATFORM for f in ("describe.txt", "events.txt", "pods.txt")
    ]
    assert sorted(rig.files()) == sorted(
        [
            "SUMMARY.md",
            "collect.log",
            "versions.txt",
            "action/stack.json",
            "action/up-full.log",
            "action/versions.json",
            "checks/platform-checks-nccl-all-reduce-3f9a2c1-describe.txt",
            "checks/platform-checks-nccl-all-reduce-3f9a2c1.log",
            "cluster/namespaces.txt",
            "cluster/nodes-gpus.txt",
            "cluster/nodes.txt",
            *per_namespace,
            "host/etc/cdi/nvidia.yaml",
            "host/etc/docker/daemon.json",
            "host/etc/nvidia-container-runtime/config.toml",
            "host/kernel.log",
            "host/nvidia-smi-q.txt",
            "host/xid.txt",
            "kind-logs/kind-version.txt",
            "kind-logs/kind-worker/journal.log",
            "kind-logs/kind-worker/kubelet.log",
        ]
    )
    members = rig.members()
    assert {f"gpu-ci-diagnostics-kind/{k}": v for k, v in rig.files().items()} == members
    files = rig.files()
    # The namespaces come from the action's plan, and the label finds the same ones.
    listed = files["cluster/namespaces.txt"].decode().splitlines()
    assert [line.split("\t")[0] for line in listed] == PLATFORM
    assert all("\tthe plan: " in line for line in listed)
    assert files["cluster/nodes-gpus.txt"].decode().splitlines()[1:] == [
        "kind-control-plane\tTrue\t0\t0\tNVIDIA-A10",
        "kind-worker\tTrue\t1\t1\tNVIDIA-A10",
    ]
    assert files["host/xid.txt"].decode() == f"{XID}\n"
    # The first failure is the Xid (the GPU the checks needed); then each kind's first.
    summary = rig.summary()
    assert summary.splitlines()[2] == (f"**First failure:** Xid 79 on PCI:0000:00:04: {XID}")
    assert (
        "- check Job: check nccl-all-reduce (Job gpu-ci-checks/platform-checks-nccl-all-reduce-"
        "3f9a2c1) failed: BackoffLimitExceeded (Job has reached the specified backoff limit); "
        "gpu-ci check nccl-all-reduce: FAILED (NCCL error: unhandled cuda error) "
        "(`checks/platform-checks-nccl-all-reduce-3f9a2c1.log`)"
    ) in summary
    assert (
        "- pod: pod kubeflow-system/kubeflow-trainer-controller-manager-5d9c: Running, container "
        "manager CrashLoopBackOff: back-off 40s (`cluster/kubeflow-system/describe.txt`)"
    ) in summary
    assert "- toolkit (expected 1.17.8-1, installed 1.18.0-1)" in summary
    assert (
        "- release kubeflow-trainer (expected oci://ghcr.io/kubeflow/charts/kubeflow-trainer"
        in (summary)
    )
    table = files["versions.txt"].decode()
    assert re.search(r"^kind +0\.31\.0 +0\.31\.0 +0\.31\.0 +ok$", table, re.MULTILINE), table
    assert re.search(
        r"^driver +570-server +nvidia-driver-570-server +570\.172\.08 +ok$", table, re.MULTILINE
    )
    assert re.search(
        r"^release gpu-operator .* gpu-operator-v26\.7\.0 \(deployed\) +ok$", table, re.MULTILINE
    )
    # The step's outputs and the job summary.
    outputs = runner.step_outputs()
    assert outputs["bundle"] == str(rig.tarball)
    assert outputs["bundle-dir"] == str(rig.bundle)
    assert outputs["first-failure"].startswith("Xid 79 on PCI:0000:00:04: ")
    assert "### gpu-cluster: diagnostics bundle" in runner.github_file("summary")
    assert "::notice title=gpu-ci diagnostics::first failure: Xid 79" in run.stdout
    assert not list(runner.temp.glob(".gpu-ci-collect-*"))  # the raw staging is gone


def test_without_an_xid_the_first_failure_is_the_first_failed_check(runner: ActionSandbox) -> None:
    a_failed_run(runner)
    assert runner.run("collect").returncode == 0
    first = runner.step_outputs()["first-failure"]
    assert first == (
        "check nccl-all-reduce (Job gpu-ci-checks/platform-checks-nccl-all-reduce-3f9a2c1) "
        "failed: BackoffLimitExceeded (Job has reached the specified backoff limit); "
        "gpu-ci check nccl-all-reduce: FAILED (NCCL error: unhandled cuda error)"
    )


def test_a_failed_host_step_comes_first(runner: ActionSandbox) -> None:
    rig = CollectRig(runner)
    runner.up_to_install()
    cause = "nvkind cluster create --name kind failed (exit 1); its output is above"
    runner.sandbox.put(
        "pulumi/up-fail",
        "    error: exit status 1: running ...:\n"
        "    gpu-ci step nvkind-cluster: creating cluster kind\n"
        f"    gpu-ci step nvkind-cluster: {cause}\n",
    )
    assert runner.run("up").returncode == 255
    host(rig, kernel=f"{XID}\n")
    rig.answer("kind get kubeconfig --name kind", "clusters:\n- cluster: {}\n")
    assert runner.run("collect").returncode == 0
    assert runner.step_outputs()["first-failure"] == f"host step nvkind-cluster: {cause}"
    assert "action/up-full.log" in rig.files()
    assert "- Xid: Xid 79" in rig.summary()


def test_the_size_bound_cuts_kinds_logs_first(runner: ActionSandbox) -> None:
    rig = a_failed_run(runner)
    journal = "".join(f"journal line {i:07d}\n" for i in range(150_000))  # 3.3 MB
    rig.kind_log("kind-worker/journal.log", journal)
    rig.kind_log("kind-worker/containerd.log", "c" * 100_000 + "\n")
    run = runner.run("collect", bundle_max_mb="1")
    assert run.returncode == 0, run.stderr
    files = rig.files()
    assert sum(len(v) for v in files.values()) <= 1 << 20
    cut = files["kind-logs/kind-worker/journal.log"].decode()
    size = len(journal.encode())
    assert cut.startswith(
        f"[gpu-ci collect: the first {size - 65536} bytes were cut (size bound)]\n"
    )
    assert cut.endswith("journal line 0149999\n") and len(cut.encode()) < 65536 + 100
    assert "kind-logs/kind-worker/containerd.log" in files  # the bound was met before it
    summary = rig.summary()
    assert "## Size bound: 1048576 bytes" in summary
    assert (
        f"- kind-logs/kind-worker/journal.log: cut to its last 65536 bytes ({size} bytes before)"
        in summary
    )
    assert "checks/platform-checks-nccl-all-reduce-3f9a2c1.log" in files  # tier 1 kept


def test_a_tiny_bound_drops_the_rest_but_never_the_summary(runner: ActionSandbox) -> None:
    rig = a_failed_run(runner)
    rig.kind_log("kind-worker/journal.log", "x" * (3 << 20) + "\n")
    assert runner.run("collect", bundle_max_mb="1").returncode == 0
    assert "SUMMARY.md" in rig.files() and "collect.log" in rig.files()


def test_a_failing_source_is_recorded_and_the_collect_goes_on(runner: ActionSandbox) -> None:
    rig = a_failed_run(runner)
    rig.hang("nvidia-smi")
    rig.fail("journalctl", "No journal files were found.")
    rig.answer("dmesg --time-format iso", f"{XID}\n")
    (runner.sandbox.root / "etc" / "docker" / "daemon.json").unlink()
    run = runner.run("collect", bundle_timeout="1")
    assert run.returncode == 0, run.stderr
    summary = rig.summary()
    assert "- nvidia-smi -q: timed out (after 1 s)" in summary
    assert "- journalctl -k: failed (exit 1: No journal files were found.)" in summary
    assert "/etc/docker/daemon.json" not in summary  # absent is not a failure
    log = (rig.bundle / "collect.log").read_text()
    assert (
        "absent\t/etc/docker/daemon.json\thost/etc/docker/daemon.json\t"
        f"no {runner.sandbox.root}/etc/docker/daemon.json"
    ) in log
    files = rig.files()
    assert files["host/xid.txt"].decode() == f"{XID}\n"  # dmesg stood in for journald
    assert "cluster/kubeflow-system/describe.txt" in files  # the rest was collected
    assert runner.step_outputs()["first-failure"].startswith("Xid 79")


def test_the_bad_size_input_is_warned_and_the_default_used(runner: ActionSandbox) -> None:
    a_failed_run(runner)
    run = runner.run("collect", bundle_max_mb="lots")
    assert run.returncode == 0
    assert (
        "::warning title=gpu-ci step collect::input bundle-max-mb 'lots' is not a whole number "
        "of at least 1; using 100"
    ) in run.stdout


def test_collect_before_any_up_still_writes_a_bundle(runner: ActionSandbox) -> None:
    """A job that failed before the action's steps ran: no folder, no plan, no virtualenv;
    python3 from PATH, kind's kubeconfig, the namespaces by their label."""
    rig = CollectRig(runner)
    host(rig)
    rig.answer("kind get kubeconfig --name kind", "apiVersion: v1\nclusters:\n- cluster: {}\n")
    rig.cluster(["gpu-operator"], {"gpu-operator": [HEALTHY]})
    run = runner.run("collect")
    assert run.returncode == 0, run.stderr
    listed = (rig.bundle / "cluster" / "namespaces.txt").read_text()
    assert listed == "gpu-operator\tlabel app.kubernetes.io/managed-by=gpu-ci\n"
    assert runner.step_outputs()["first-failure"].startswith("no failure found")


def test_collect_fails_only_when_it_cannot_write_the_bundle(runner: ActionSandbox) -> None:
    rig = CollectRig(runner)
    elsewhere = runner.sandbox.base / "elsewhere"
    elsewhere.mkdir()
    rig.bundle.symlink_to(elsewhere)
    run = runner.run("collect")
    assert run.returncode == 1
    assert f"gpu-ci step collect: cannot write the bundle at {rig.bundle}: " in run.stderr
    assert "::error title=gpu-ci step collect::cannot write the bundle (exit 1)" in run.stdout


SECRET_OUTPUT = "runner-registration-s3cret-0123456789"
APP_KEY = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEAq7BFUpkGp3+LQmlQYx2eqzDV+xeG8kx/sQFV18S5JNzzGGnE\n"
    "OEzGU1mFdTcPrVb8bgh1dWcoRJMTSpFYbpOcSJa/nBnbBUGwSxOkFZn8GqN+uTIU\n"
    "-----END RSA PRIVATE KEY-----\n"
)
GHS = "ghs_16C7e42F292c6912E7710c838347Ae178B4a"


def test_no_planted_secret_survives_anywhere_in_the_bundle(runner: ActionSandbox) -> None:
    rig = CollectRig(runner)
    outputs = {**OUTPUTS, "runnerToken": SECRET_OUTPUT}
    runner.put_outputs(outputs)
    public = {**outputs, "kubeconfig": "[secret]", "runnerToken": "[secret]"}
    runner.sandbox.put("pulumi/outputs-public.json", json.dumps(public))
    up(runner)
    passphrase = (runner.work / "passphrase").read_text()
    host(rig)
    versions(rig)
    rig.cluster(PLATFORM, {})
    # The kubeconfig's key bare in a node's journal, the App key across lines and escaped
    # in one, the installation token in a check's log, the secret output in an event, the
    # passphrase in the kubelet's log.
    rig.kind_log(
        "kind-worker/journal.log",
        f"loaded client key S3CRET-KEY-DATA\nkey follows:\n{APP_KEY}after the key\n",
    )
    rig.kind_log("kind-worker/inspect.json", json.dumps({"Env": [f"APP_KEY={APP_KEY}"]}) + "\n")
    rig.kind_log("kind-worker/kubelet.log", f"passphrase was {passphrase}\n")
    rig.kubectl(
        "get events -n gpu-operator --sort-by=.lastTimestamp",
        f"Warning  Failed  runner token {SECRET_OUTPUT} rejected\n"
        "Authorization: Bearer abcdefgh12345678\n",
    )
    rig.check_job(
        "platform-checks-gpu-count-1a2b3c4", "gpu-count", f"git clone with {GHS}\nFAILED (x)\n"
    )
    run = runner.run("collect")
    assert run.returncode == 0, run.stderr
    planted = [
        "S3CRET-KEY-DATA",
        SECRET_OUTPUT,
        "MIIEowIBAAKCAQEAq7BFUpkGp3",
        "OEzGU1mFdTcPrVb8bgh1dWcoRJMTSpFYbpOcSJa",
        GHS,
        passphrase,
        "abcdefgh12345678",
    ]
    everything = {**rig.files(), **rig.members()}
    for secret in planted:
        leaks = [name for name, data in everything.items() if secret.encode() in data]
        assert leaks == [], f"{secret[:12]}... survives in {leaks}"
    assert SECRET_OUTPUT not in run.stdout + run.stderr + runner.github_file("output")
    files = rig.files()
    journal = files["kind-logs/kind-worker/journal.log"].decode()
    assert journal == (
        "loaded client key [REDACTED]\nkey follows:\n-----BEGIN RSA PRIVATE KEY-----\n"
        "[REDACTED]\n-----END RSA PRIVATE KEY-----\nafter the key\n"
    )
    assert (
        files["checks/platform-checks-gpu-count-1a2b3c4.log"]
        .decode()
        .startswith("git clone with ghs_[REDACTED]\n")
    )
    events = files["cluster/gpu-operator/events.txt"].decode()
    assert (
        events
        == "Warning  Failed  runner token [REDACTED] rejected\nAuthorization: Bearer [REDACTED]\n"
    )
    assert json.loads(files["kind-logs/kind-worker/inspect.json"]) == {
        "Env": ["APP_KEY=-----BEGIN RSA PRIVATE KEY-----[REDACTED]-----END RSA PRIVATE KEY-----\n"]
    }
    assert re.search(r"Redacted: \d+ value\(s\)", rig.summary())


def test_the_namespaces_and_labels_are_the_programs() -> None:
    """collect_cluster's names (stdlib-only, it cannot import the program) are the
    program's: the check Jobs' label and the label on every object gpu-ci makes."""
    from components.base import MANAGED_LABELS
    from components.platform.checks.jobs import CHECK_LABEL
    from components.platform.checks.model import CHECKS_NAMESPACE

    collect_cluster = module("collect_cluster")
    assert collect_cluster.CHECK_LABEL == CHECK_LABEL
    label, value = next(iter(MANAGED_LABELS.items()))
    assert f"{label}={value}" == collect_cluster.MANAGED_LABEL
    assert CHECKS == CHECKS_NAMESPACE
    assert NODE_IMAGE.startswith("kindest/node:")


def test_the_pins_column_is_components_pins(runner: ActionSandbox) -> None:
    from components.pins import PINS

    rig = a_failed_run(runner)
    assert runner.run("collect").returncode == 0
    table = (rig.bundle / "versions.txt").read_text().splitlines()
    pinned = {line.split()[0]: line.split()[1] for line in table[1:]}
    assert pinned["kind"] == PINS.kind.version
    assert pinned["kubectl"] == PINS.kubectl.version
    assert pinned["helm"] == PINS.helm.version
    assert pinned["nvkind"] == PINS.nvkind.commit
    assert pinned["toolkit"] == PINS.toolkit_version
    assert pinned["driver"] == PINS.driver_branch
