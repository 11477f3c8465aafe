"""collect.py's entry point in this process, with the arguments collect.sh gives it, against
collect_sandbox's stand-ins (collect_in_process.py): what the bundle, its tarball and the
result file hold, what each part does without its inputs, and when the collect fails.
test_collect_step.py runs the same through collect.sh in a process of its own.
"""

from __future__ import annotations

import json
import os
import shutil
import tarfile
from pathlib import Path
from typing import Any

import pytest

from ..action_sandbox import PULUMI_STUB, ActionSandbox
from .collect_in_process import InProcess, in_process
from .collect_modules import module
from .collect_sandbox import CHECKS, pod

collect = module("collect")
JOB = "platform-checks-nccl-all-reduce-3f9a2c1"
KUBECONFIG = (
    "apiVersion: v1\nclusters:\n- cluster:\n    server: https://127.0.0.1:6443\n"
    "users:\n- name: kind-kind\n  user:\n    client-key-data: S3CRET-KEY-DATA-0123\n"
)
PINS = {"kind": "0.31.0", "toolkit": "1.17.8-1", "driver": "570-server"}


@pytest.fixture
def stands(runner: ActionSandbox, monkeypatch: pytest.MonkeyPatch) -> InProcess:
    return in_process(runner, monkeypatch)


def a_failed_job(stands: InProcess) -> None:
    """The action's folder after a failed job, a one-GPU cluster with a failed check."""
    rig, work = stands.rig, stands.rig.runner.work
    work.mkdir(parents=True, exist_ok=True)
    plan = {
        "resources": [
            {
                "type": "kubernetes:core/v1:Namespace",
                "name": "ns",
                "inputs": {"metadata": {"name": CHECKS}},
            }
        ]
    }
    (work / "plan.json").write_text(json.dumps(plan))
    (work / "versions.json").write_text(json.dumps({"kind": "0.31.0", "kubernetes": "v1.35.0"}))
    (work / "kubeconfig").write_text(KUBECONFIG)
    (work / "passphrase").write_text("the-passphrase-42\n")
    (work / "up-full.log").write_text("the passphrase the-passphrase-42 leaked\n")
    rig.cluster([CHECKS], {CHECKS: [pod(CHECKS, "stuck", "T", "Pending")]})
    rig.check_job(JOB, "nccl-all-reduce", "gpu-ci check nccl-all-reduce: FAILED (NCCL error)\n")
    rig.answer("nvidia-smi -q", "NVSMI LOG\n")
    rig.answer("journalctl -k --no-pager -o short-iso", "kernel: Linux\n")
    rig.answer("kind version", "kind v0.31.0\n")
    rig.answer("kubectl version --client", "Client Version: v1.35.0\n")
    rig.answer("helm version --short", "v4.1.4\n")
    rig.answer("nvidia-smi --query-gpu=driver_version --format=csv,noheader", "570.172.08\n")
    rig.answer("docker version --format {{.Server.Version}}", "28.3.3\n")
    rig.answer("kubectl version -o json", json.dumps({"serverVersion": {"gitVersion": "v1.35.0"}}))
    rig.answer("helm list -A -o json", "[]")


def test_a_collect_writes_the_bundle_its_tarball_and_the_result(
    stands: InProcess, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a_failed_job(stands)
    work = stands.rig.runner.work
    pins = tmp_path / "pins.json"
    pins.write_text(json.dumps(PINS))
    secret = tmp_path / "app-key"
    secret.write_text("app-key-value-123\n")
    stands.rig.kind_log("kind-worker/kubelet.log", "app-key-value-123 in a log\n")
    stands.rig.kind_log("kind-worker/pods.log.gz", b"\x1f\x8b\x08\x00")
    stands.rig.fail("docker", "error: the-passphrase-42 was rejected")
    log = "gpu-ci check nccl-all-reduce: FAILED (NCCL error, the-passphrase-42)\n"
    stands.rig.check_job(JOB, "nccl-all-reduce", log)
    (work / "versions.json").write_text(json.dumps({"kind": "0.30.0", "kubernetes": "v1.35.0"}))
    code = stands.main(
        "--kubeconfig",
        str(work / "kubeconfig"),
        "--pins",
        str(pins),
        "--redact-file",
        str(secret),
        "--redact-file",
        str(tmp_path / "no-such-file"),
    )
    assert code == 0
    bundle, tarball = stands.rig.bundle, stands.rig.tarball
    first = (
        f"check nccl-all-reduce (Job {CHECKS}/{JOB}) failed: BackoffLimitExceeded (Job has "
        "reached the specified backoff limit); gpu-ci check nccl-all-reduce: FAILED (NCCL error, "
        "[REDACTED])"
    )
    assert stands.result() == {
        "bundle": str(tarball),
        "bundle-dir": str(bundle),
        "first-failure": first,
    }
    said = capsys.readouterr().err
    assert said == (
        f"gpu-ci step collect: bundle {tarball} ({tarball.stat().st_size} bytes): {first}\n"
    )
    files = stands.rig.files()
    assert files["kind-logs/kind-worker/kubelet.log"] == b"[REDACTED] in a log\n"
    assert files["action/up-full.log"] == b"the passphrase [REDACTED] leaked\n"
    assert b"S3CRET-KEY-DATA-0123" not in b"".join(files.values())
    assert f"**First failure:** {first}" in files["SUMMARY.md"].decode()
    summary = files["SUMMARY.md"].decode()
    assert summary.startswith("# gpu-ci diagnostics: cluster `kind`\n")
    # The kubelet's log, the up log, the check's log and the failure read from it; what
    # SUMMARY.md and collect.log hold is redacted after they are counted.
    assert "Redacted: 4 value(s) (stack secrets and kubeconfigs 4)" in summary
    assert "- pins.py" not in summary
    assert "- version: docker: failed (exit 1: error: [REDACTED] was rejected)" in summary
    assert "- kind (expected 0.30.0, installed 0.31.0)" in summary
    assert "- left out: kind-logs/kind-worker/pods.log.gz: not text, so it cannot be " in summary
    assert files["cluster/namespaces.txt"] == f"{CHECKS}\tthe plan: ns\n".encode()
    table = files["versions.txt"].decode().splitlines()
    assert table[1].split() == ["kind", "0.31.0", "0.30.0", "0.31.0", "DIFFERS"]
    assert table[-1].split() == ["kubernetes", "-", "v1.35.0", "v1.35.0", "ok"]
    text = files["collect.log"].decode()
    assert text.startswith("status\tsource\tfile\tdetail\n")
    assert "skipped\tstack outputs\t-\tno Pulumi state of this cluster here\n" in text
    assert "the-passphrase-42" not in text and "\tversions\t" not in text
    with tarfile.open(tarball) as tar:
        names = {m.name for m in tar.getmembers()}
    assert names == {"gpu-ci-diagnostics-kind"} | {
        f"gpu-ci-diagnostics-kind/{rel}" for rel in files
    } | {
        f"gpu-ci-diagnostics-kind/{'/'.join(Path(rel).parts[:i])}"
        for rel in files
        for i in range(1, len(Path(rel).parts))
    }
    assert [p.name for p in stands.rig.runner.temp.iterdir() if p.name.startswith(".")] == []


def test_without_a_kubeconfig_kinds_own_is_used_private_and_redacted(
    stands: InProcess, capsys: pytest.CaptureFixture[str]
) -> None:
    rig = stands.rig
    rig.answer("kind get kubeconfig --name kind", KUBECONFIG)
    rig.cluster(["gpu-operator"], {})
    rig.kind_log("n/kubelet.log", "key S3CRET-KEY-DATA-0123\n")
    modes: list[int] = []
    real = collect.Cluster.collect

    def spy(self: Any, known: dict[str, str]) -> Any:
        modes.append(Path(self.runner.env["KUBECONFIG"]).stat().st_mode & 0o777)
        assert Path(self.runner.env["KUBECONFIG"]).read_text() == KUBECONFIG
        return real(self, known)

    collect.Cluster.collect = spy
    try:
        assert stands.main(work=False) == 0
    finally:
        collect.Cluster.collect = real
    assert modes == [0o600]
    assert rig.files()["kind-logs/n/kubelet.log"] == b"key [REDACTED]\n"
    summary = rig.summary()
    assert "**First failure:** no failure found in what was collected; " in summary
    assert "- pins.py: skipped (neither --pins nor --python was given)" in summary
    assert "cluster/namespaces.txt" in rig.files()
    assert stands.result()["first-failure"].startswith("no failure found in what was collected")


def test_without_any_kubeconfig_the_cluster_is_skipped(stands: InProcess) -> None:
    stands.rig.answer("kind get kubeconfig --name kind", "error: no cluster\n")
    assert stands.main(work=False) == 0
    summary = stands.rig.summary()
    assert "- cluster: skipped (no kubeconfig: neither given nor from kind)" in summary
    assert not any(rel.startswith("cluster/") for rel in stands.rig.files())
    assert "kubectl version -o json" not in stands.calls()
    stands.rig.fail("kind", "kind: no such cluster")
    assert stands.main("--kind-as-root", work=False) == 0
    assert "- cluster: skipped (no kubeconfig" in stands.rig.summary()


def test_a_given_kubeconfig_that_is_missing_falls_back_to_kinds(
    stands: InProcess, tmp_path: Path
) -> None:
    stands.rig.answer("kind get kubeconfig --name gpu", "apiVersion: v1\n")  # no clusters:
    assert stands.main("--cluster", "gpu", "--kubeconfig", str(tmp_path / "gone"), work=False) == 0
    assert "kind get kubeconfig --name gpu" in stands.calls()
    assert "- cluster: skipped" in stands.rig.summary()


def test_the_stacks_secret_outputs_are_redacted(
    stands: InProcess, runner: ActionSandbox, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pulumi = tmp_path / "cli" / "pulumi"
    pulumi.parent.mkdir()
    pulumi.write_text(f'#!/bin/bash\nexec bash {PULUMI_STUB} "$@"\n')
    pulumi.chmod(0o755)
    passphrase = tmp_path / "passphrase"
    passphrase.write_text("p")
    monkeypatch.setenv("PULUMI_CONFIG_PASSPHRASE_FILE", str(passphrase))
    monkeypatch.setenv("PULUMI_HOME", str(tmp_path / "pulumi-home"))
    runner.sandbox.put("pulumi/backend", f"file://{tmp_path}")
    shown = {
        "runnerToken": "runner-token-0123456789",
        "kubeconfig": KUBECONFIG,  # an older stack's, not marked secret: redacted all the same
        "platform": {"releases": {"gpu-operator": {"namespace": "gpu-operator"}}},
    }
    runner.sandbox.put("pulumi/outputs.json", json.dumps(shown))
    public = {**shown, "runnerToken": "[secret]"}
    runner.sandbox.put("pulumi/outputs-public.json", json.dumps(public))
    stands.rig.kind_log("n/journal.log", "token runner-token-0123456789 and S3CRET-KEY-DATA-0123\n")
    stands.rig.cluster(["gpu-operator"], {})
    config = tmp_path / "kubeconfig"
    config.write_text("apiVersion: v1\nclusters: []\n")
    args = ["--pulumi", str(pulumi), "--stack", "gpu-cluster-kind", "--kubeconfig", str(config)]
    assert stands.main(*args, work=False) == 0
    files = stands.rig.files()
    assert files["kind-logs/n/journal.log"] == b"token [REDACTED] and [REDACTED]\n"
    assert files["cluster/namespaces.txt"] == (
        b"gpu-operator\tthe stack's platform export: gpu-operator\n"
    )
    base = "pulumi --non-interactive --cwd . stack output --stack gpu-cluster-kind --json"
    assert [c for c in stands.calls() if c.startswith("pulumi")] == [
        f"{base} --show-secrets",
        base,
        "pulumi version",  # versions.txt's pulumi row
    ]


def test_a_stack_without_its_cli_or_name_is_skipped(stands: InProcess, tmp_path: Path) -> None:
    assert stands.main("--pulumi", str(tmp_path / "none"), "--stack", "s", work=False) == 0
    assert stands.main("--pulumi", str(PULUMI_STUB), work=False) == 0
    log = (stands.rig.bundle / "collect.log").read_text()
    assert "skipped\tstack outputs\t-\tno Pulumi state of this cluster here\n" in log
    assert not [c for c in stands.calls() if c.startswith("pulumi")]


def test_a_part_that_raises_is_a_failed_source_and_the_rest_goes_on(stands: InProcess) -> None:
    a_failed_job(stands)
    work = stands.rig.runner.work
    (work / "versions.json").write_text(json.dumps({"charts": "not a mapping"}))
    assert stands.main("--kubeconfig", str(work / "kubeconfig")) == 0
    summary = stands.rig.summary()
    assert "- versions: failed (AttributeError: 'str' object has no attribute 'items')" in summary
    assert "**First failure:** check nccl-all-reduce" in summary
    assert "versions.txt" in stands.rig.files()


def test_a_cluster_answer_of_the_wrong_shape_fails_only_the_cluster_part(
    stands: InProcess, tmp_path: Path
) -> None:
    odd = pod("ns", "p", "T", "Pending", containerStatuses=["not an object"])
    stands.rig.cluster(["ns"], {"ns": [odd]})
    config = tmp_path / "kubeconfig"
    config.write_text(KUBECONFIG)
    assert stands.main("--kubeconfig", str(config), work=False) == 0
    summary = stands.rig.summary()
    assert "- cluster: failed (AttributeError: 'str' object has no attribute 'get')" in summary
    assert "kubernetes" in (stands.rig.bundle / "versions.txt").read_text()  # the rest ran


def test_the_pins_are_read_with_the_programs_python(stands: InProcess) -> None:
    import sys

    stands.rig.answer("kind get kubeconfig --name kind", "")
    assert stands.main("--python", sys.executable, work=False) == 0
    from components.pins import PINS as PROGRAM_PINS

    table = (stands.rig.bundle / "versions.txt").read_text().splitlines()
    assert table[1].split()[:2] == ["kind", PROGRAM_PINS.kind.version]


def test_the_statedir_is_read_under_the_root(stands: InProcess) -> None:
    stamp = stands.sandbox.root / "var" / "lib" / "gpu-ci" / "tools" / "nvkind"
    stamp.parent.mkdir(parents=True)
    stamp.write_text("go:9a3061c " + "f" * 64 + "\n")
    assert stands.main("--statedir", "/var/lib/gpu-ci/tools", work=False) == 0
    table = (stands.rig.bundle / "versions.txt").read_text()
    assert [line.split()[:4] for line in table.splitlines() if line.startswith("nvkind")] == [
        ["nvkind", "-", "-", "9a3061c"]
    ]


def test_the_size_bound_and_source_timeout_are_the_given_ones(stands: InProcess) -> None:
    stands.rig.kind_log("n/journal.log", "j" * (3 << 20))
    stands.rig.hang("nvidia-smi")
    assert stands.main("--max-mb", "1", "--timeout", "0", work=False) == 0
    assert len(stands.rig.files()["kind-logs/n/journal.log"]) < 65536 + 100
    summary = stands.rig.summary()
    assert "## Size bound: 1048576 bytes" in summary
    assert "- kind-logs/n/journal.log: cut to its last 65536 bytes (3145728 bytes before)" in (
        summary
    )
    assert "- nvidia-smi -q: timed out (after 1 s)" in summary  # at least one second


def test_a_previous_bundle_is_replaced(stands: InProcess) -> None:
    stale = stands.rig.bundle / "stale.txt"
    stale.parent.mkdir(parents=True)
    stale.write_text("old\n")
    assert stands.main(work=False) == 0
    assert not stale.exists() and (stands.rig.bundle / "SUMMARY.md").exists()


def test_a_bundle_path_that_is_a_link_fails_the_collect(
    stands: InProcess, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    stands.rig.bundle.symlink_to(elsewhere)
    assert stands.main(work=False) == 1
    bundle = stands.rig.bundle
    assert capsys.readouterr().err == (
        f"gpu-ci step collect: cannot write the bundle at {bundle}: {bundle} is a symbolic "
        "link; the bundle folder is the collect's own\n"
    )
    assert not (stands.rig.runner.work / "collect.result").exists()


def test_an_unwritable_tarball_fails_the_collect_and_leaves_no_staging(
    stands: InProcess, capsys: pytest.CaptureFixture[str]
) -> None:
    stands.rig.tarball.mkdir(parents=True)  # a folder where the tarball goes
    (stands.rig.tarball / "x").write_text("")
    assert stands.main(work=False) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"gpu-ci step collect: cannot write the bundle at {stands.rig.bundle}: ")
    assert [p.name for p in stands.rig.runner.temp.iterdir() if p.name.startswith(".")] == []


def test_a_staging_folder_left_behind_is_removed_through_sudo_or_named(
    stands: InProcess,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    staging = tmp_path / ".gpu-ci-collect-x"
    staging.mkdir()
    monkeypatch.setattr(shutil, "rmtree", lambda path, ignore_errors=False: None)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    collect.remove(staging, True)
    assert not staging.exists()  # the host stub's sudo ran rm -rf
    assert stands.calls() == [f"sudo -n rm -rf -- {staging}"]
    assert capsys.readouterr().err == ""
    staging.mkdir()
    collect.remove(staging, False)
    assert capsys.readouterr().err == (
        f"gpu-ci step collect: could not remove the raw staging folder {staging}; "
        "remove it by hand\n"
    )
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    collect.remove(staging, True)
    assert staging.exists() and len(stands.calls()) == 1


def test_a_first_failure_of_several_lines_is_one_line_in_the_result(
    stands: InProcess, tmp_path: Path
) -> None:
    waiting = {"reason": "CrashLoopBackOff", "message": "back-off\r\nthen\nmore"}
    crashing = pod(
        "ns", "p", "T", "Pending", containerStatuses=[{"name": "c", "state": {"waiting": waiting}}]
    )
    stands.rig.cluster(["ns"], {"ns": [crashing]})
    config = tmp_path / "kubeconfig"
    config.write_text(KUBECONFIG)
    assert stands.main("--kubeconfig", str(config), work=False) == 0
    assert stands.result()["first-failure"] == (
        "pod ns/p: Pending, container c CrashLoopBackOff: back-off  then more"
    )


def test_the_arguments_defaults_are_the_actions() -> None:
    args = collect.arguments(["--out", "o", "--cluster", "c"])
    assert vars(args) == {
        "out": "o",
        "cluster": "c",
        "kubeconfig": "",
        "kind": "kind",
        "kubectl": "kubectl",
        "helm": "helm",
        "kind_as_root": False,
        "sudo": False,
        "root": "/",
        "statedir": "",
        "work": "",
        "pulumi": "",
        "project": "",
        "stack": "",
        "python": "",
        "pins": "",
        "redact_file": [],
        "max_mb": 100,
        "timeout": 60,
        "result": "",
    }


HELP = """\
usage: collect.py [-h] --out OUT --cluster CLUSTER [--kubeconfig KUBECONFIG] [--kind KIND]
                  [--kubectl KUBECTL] [--helm HELM] [--kind-as-root] [--sudo] [--root ROOT]
                  [--statedir STATEDIR] [--work WORK] [--pulumi PULUMI] [--project PROJECT]
                  [--stack STACK] [--python PYTHON] [--pins PINS] [--redact-file REDACT_FILE]
                  [--max-mb MAX_MB] [--timeout TIMEOUT] [--result RESULT]

Collect one diagnostics bundle of a GPU cluster and its host: `collect.sh` runs it for the
action's `command: collect`; on a self-managed host it runs on its own (stdlib only; docs/ci-
integration.md#diagnostics-on-a-self-managed-host).

options:
  -h, --help            show this help message and exit
  --out OUT             the bundle folder (DIR.tar.gz beside it)
  --cluster CLUSTER     the kind cluster's name
  --kubeconfig KUBECONFIG
                        else `kind get kubeconfig`
  --kind KIND
  --kubectl KUBECTL
  --helm HELM
  --kind-as-root        kind as root (through sudo -n with --sudo)
  --sudo                root's sources through sudo -n
  --root ROOT           prefix of the host files read
  --statedir STATEDIR   the tools step's STATEDIR
  --work WORK           the action's folder for this cluster
  --pulumi PULUMI       the action's Pulumi CLI (secret outputs)
  --project PROJECT
  --stack STACK
  --python PYTHON       the program's Python, to read pins.py
  --pins PINS           collect_pins.py's JSON, run elsewhere
  --redact-file REDACT_FILE
                        a secret file
  --max-mb MAX_MB
  --timeout TIMEOUT     per source, s
  --result RESULT       KEY=VALUE lines for collect.sh
"""


def test_help_lists_every_option_for_a_self_managed_host(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/ci-integration.md sends a self-managed host's operator to `collect.py --help`."""
    monkeypatch.setenv("COLUMNS", "100")
    with pytest.raises(SystemExit) as stop:
        collect.arguments(["--help"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == HELP


def test_the_out_and_cluster_are_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        collect.arguments(["--out", "o"])
    assert stop.value.code == 2
    assert capsys.readouterr().err.endswith(
        "collect.py: error: the following arguments are required: --cluster\n"
    )


def test_kinds_kubeconfig_is_asked_as_root_when_kind_runs_as_root(
    stands: InProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    stands.rig.answer("kind get kubeconfig --name kind", "")
    assert stands.main("--sudo", "--kind-as-root", work=False) == 0
    assert "sudo -n kind get kubeconfig --name kind" in stands.calls()
    assert stands.main("--sudo", work=False) == 0
    assert stands.calls().count("sudo -n kind get kubeconfig --name kind") == 1  # the first


def test_the_bound_leaves_room_for_the_summary_and_the_log(stands: InProcess) -> None:
    stands.rig.kind_log("n/big.log", "b" * ((1 << 20) - 4000))
    assert stands.main("--max-mb", "1", work=False) == 0
    files = stands.rig.files()
    assert sum(len(data) for data in files.values()) <= 1 << 20
    assert "- kind-logs/n/big.log: cut to its last 65536 bytes" in stands.rig.summary()


def test_a_fresh_bundle_folder_and_a_private_staging_folder_beside_it(tmp_path: Path) -> None:
    out = tmp_path / "new" / "deeper" / "bundle"
    staging = collect.fresh(out)
    assert out.is_dir() and list(out.iterdir()) == []
    assert staging.parent == out.parent and staging.name.startswith(".gpu-ci-collect-")
    assert staging.stat().st_mode & 0o777 == 0o700
    (out / "old.txt").write_text("a previous collect's\n")
    collect.fresh(out)
    assert list(out.iterdir()) == []


def test_pins_that_are_not_a_mapping_are_none(stands: InProcess, tmp_path: Path) -> None:
    pins = tmp_path / "pins.json"
    pins.write_text("[1, 2]")
    assert stands.main("--pins", str(pins), work=False) == 0
    table = (stands.rig.bundle / "versions.txt").read_text().splitlines()
    assert table[1].split()[:3] == ["kind", "-", "-"]
