"""collect_host: the GPU, the kernel's Xid lines, the runtime's files, kind's logs and the
action's own logs, read through collect_sandbox's stand-ins in this process
(collect_in_process.py), so collect_host's mutants run here.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ..action_sandbox import ActionSandbox
from .collect_in_process import InProcess, in_process
from .collect_modules import module

host_mod = module("collect_host")
Failure = module("collect_cluster").Failure
Record = module("collect_run").Record
XID = (
    "2026-09-01T10:03:12+0000 runner kernel: NVRM: Xid (PCI:0000:00:04): 79, pid=2211, "
    "GPU has fallen off the bus."
)
XID2 = "2026-09-01T10:04:00+0000 runner kernel: NVRM: Xid (PCI:0000:00:05): 48, pid=7, DBE."


@pytest.fixture
def stands(runner: ActionSandbox, monkeypatch: pytest.MonkeyPatch) -> InProcess:
    return in_process(runner, monkeypatch)


def test_the_host_collect_reads_each_source_in_turn(stands: InProcess) -> None:
    rig, root = stands.rig, stands.sandbox.root
    rig.answer("nvidia-smi -q", "==============NVSMI LOG==============\n")
    rig.answer("journalctl -k --no-pager -o short-iso", f"boot\n{XID}\n")
    rig.host_file("etc/docker/daemon.json", '{"default-runtime": "nvidia"}\n')
    rig.host_file("etc/cdi/nvidia.yaml", "cdiVersion: 0.5.0\n")
    rig.host_file("etc/cdi/a-folder/ignored.yaml", "x\n")
    (root / "var" / "run" / "cdi").mkdir(parents=True)
    rig.kind_log("kind-worker/kubelet.log", "kubelet: node ready\n")
    ran = stands.runner()
    failures = host_mod.Host(ran, root).collect("kind", "gpu-e2e", False)
    assert failures == [
        Failure("Xid", f"Xid 79 on PCI:0000:00:04: {XID}", "host/xid.txt"),
    ]
    assert stands.calls() == [
        "nvidia-smi -q",
        "journalctl -k --no-pager -o short-iso",
        f"kind export logs {stands.staging / 'ship' / 'kind-logs'} --name gpu-e2e",
    ]
    config = "etc/nvidia-container-runtime/config.toml"
    assert ran.records == [
        Record("nvidia-smi -q", "ok", "host/nvidia-smi-q.txt"),
        Record("journalctl -k", "ok", "host/kernel.log"),
        Record("/etc/docker/daemon.json", "ok", "host/etc/docker/daemon.json"),
        Record(f"/{config}", "absent", f"host/{config}", f"no {root / config}"),
        Record("/etc/cdi/nvidia.yaml", "ok", "host/etc/cdi/nvidia.yaml"),
        Record("/var/run/cdi", "ok", "", "no CDI spec in it"),
        Record("kind export logs", "ok", ""),
    ]
    assert stands.shipped() == {
        "host/etc/cdi/nvidia.yaml": "cdiVersion: 0.5.0\n",
        "host/etc/docker/daemon.json": '{"default-runtime": "nvidia"}\n',
        "host/kernel.log": f"boot\n{XID}\n",
        "host/nvidia-smi-q.txt": "==============NVSMI LOG==============\n",
        "host/xid.txt": f"{XID}\n",
        "kind-logs/kind-worker/kubelet.log": "kubelet: node ready\n",
    }


def test_without_journald_the_ring_buffer_is_read_and_every_xid_counted(
    stands: InProcess,
) -> None:
    stands.rig.fail("journalctl", "No journal files were found.")
    long_line = XID + " " + "x" * 500
    stands.rig.answer("dmesg --time-format iso", f"{long_line}\nok\n{XID2}\n")
    ran = stands.runner()
    failures = host_mod.Host(ran, stands.sandbox.root).kernel()
    text = f"Xid 79 on PCI:0000:00:04: {long_line[:400]} (2 Xid lines in all)"
    assert failures == [Failure("Xid", text, "host/xid.txt")]
    assert stands.shipped()["host/xid.txt"] == f"{long_line}\n{XID2}\n"
    assert stands.shipped()["host/kernel.log"] == f"{long_line}\nok\n{XID2}\n"
    assert [(r.name, r.status) for r in ran.records] == [
        ("journalctl -k", "failed"),
        ("dmesg", "ok"),
    ]


def test_a_kernel_log_without_an_xid_says_so(stands: InProcess) -> None:
    stands.rig.answer("journalctl -k --no-pager -o short-iso", "  NVRM: loading driver\n")
    assert host_mod.Host(stands.runner(), stands.sandbox.root).kernel() == []
    assert stands.shipped()["host/xid.txt"] == "no NVRM Xid line in the kernel log\n"


def test_no_kernel_log_at_all_is_no_xid(stands: InProcess) -> None:
    stands.rig.fail("journalctl", "no journal")
    stands.rig.fail("dmesg", "dmesg: read kernel buffer failed: Operation not permitted")
    assert host_mod.Host(stands.runner(), stands.sandbox.root).kernel() == []
    assert stands.shipped()["host/xid.txt"] == "no NVRM Xid line in the kernel log\n"


def test_absent_or_unreadable_cdi_folders_are_recorded(
    stands: InProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = stands.sandbox.root
    (root / "etc" / "cdi").mkdir(parents=True)
    ran = stands.runner()
    host = host_mod.Host(ran, root)
    host.cdi("var/run/cdi")
    real = Path.iterdir

    def refuse(self: Path) -> object:
        if self == root / "etc" / "cdi":
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "iterdir", refuse)
    host.cdi("etc/cdi")
    assert ran.records == [
        Record("/var/run/cdi", "absent", "", f"no {root / 'var/run/cdi'}"),
        Record("/etc/cdi", "failed", "", f"{root / 'etc/cdi'}: Permission denied"),
    ]


def test_kinds_logs_as_root_are_made_readable(
    stands: InProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    stands.rig.kind_log("kind-worker/journal.log", "j\n")
    ran = stands.runner(sudo=True)
    host_mod.Host(ran, stands.sandbox.root).kind_logs("kind", "kind", True)
    folder = stands.staging / "ship" / "kind-logs"
    owner = f"{os.getuid()}:{os.getgid()}"
    assert stands.calls() == [
        f"sudo -n kind export logs {folder} --name kind",
        f"kind export logs {folder} --name kind",
        f"sudo -n chown -R {owner} {folder}",
        f"chown -R {owner} {folder}",
    ]
    assert [(r.name, r.status) for r in ran.records] == [
        ("kind export logs", "ok"),
        ("kind-logs ownership", "ok"),
    ]


def test_kinds_logs_not_as_root_or_when_root_need_no_chown(
    stands: InProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    stands.rig.kind_log("kind-worker/journal.log", "j\n")
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    host_mod.Host(stands.runner(sudo=True), stands.sandbox.root).kind_logs("kind", "kind", False)
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    host_mod.Host(stands.runner(sudo=True), stands.sandbox.root).kind_logs("kind", "kind", True)
    folder = stands.staging / "ship" / "kind-logs"
    assert stands.calls() == [f"kind export logs {folder} --name kind"] * 2


def test_a_hanging_kind_export_has_four_source_timeouts(stands: InProcess) -> None:
    stands.rig.hang("kind")
    ran = stands.runner(timeout=0.3)
    host_mod.Host(ran, stands.sandbox.root).kind_logs("kind", "kind", False)
    assert ran.records == [Record("kind export logs", "timed out", "", "after 1 s")]


def test_the_actions_files_are_shipped_and_the_first_failed_host_step_named(
    tmp_path: Path, stands: InProcess
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "stack.json").write_text("{}\n")
    (work / "plan.json").write_text("{}\n")  # not one of the action's files to ship
    (work / "up-cluster.log").write_text("no step failed here\n")
    (work / "up-full.log").write_text(
        "    gpu-ci step nvidia-driver: installing 570\n"
        "    gpu-ci step nvkind-cluster: creating cluster kind\n"
        "    gpu-ci step nvidia-driver: exit 100 from apt-get\n"
        "    gpu-ci step nvkind-cluster: failed\n"
    )
    (work / "destroy.log").write_text("gpu-ci step teardown: failed too\n")
    ran = stands.runner()
    failures = host_mod.action_files(ran, work)
    assert failures == [
        Failure("host step", "host step nvidia-driver: exit 100 from apt-get", "action/up-full.log")
    ]
    assert [(r.name, r.path) for r in ran.records] == [
        ("action stack.json", "action/stack.json"),
        ("action up-cluster.log", "action/up-cluster.log"),
        ("action up-full.log", "action/up-full.log"),
        ("action destroy.log", "action/destroy.log"),
    ]
    assert sorted(stands.shipped()) == [
        "action/destroy.log",
        "action/stack.json",
        "action/up-cluster.log",
        "action/up-full.log",
    ]


def test_a_destroy_logs_step_is_named_when_no_up_log_has_one(
    tmp_path: Path, stands: InProcess
) -> None:
    (tmp_path / "destroy.log").write_bytes(b"gpu-ci step kind-delete: \xff gone\n")
    assert host_mod.action_files(stands.runner(), tmp_path) == [
        Failure("host step", "host step kind-delete: \ufffd gone", "action/destroy.log")
    ]
    assert host_mod.action_files(stands.runner(), tmp_path / "none") == []


def test_the_kernel_log_is_read_as_root(stands: InProcess, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    stands.rig.fail("journalctl", "No journal files were found.")
    stands.rig.answer("dmesg --time-format iso", "boot\n")
    host_mod.Host(stands.runner(sudo=True), stands.sandbox.root).kernel()
    assert stands.calls() == [
        "sudo -n journalctl -k --no-pager -o short-iso",
        "journalctl -k --no-pager -o short-iso",
        "sudo -n dmesg --time-format iso",
        "dmesg --time-format iso",
    ]


def test_a_failed_cluster_phase_is_named_from_its_own_log(
    tmp_path: Path, stands: InProcess
) -> None:
    (tmp_path / "up-cluster.log").write_text("gpu-ci step nvkind-cluster: kind create failed\n")
    (tmp_path / "up-full.log").write_text("gpu-ci step platform: later\n")
    assert host_mod.action_files(stands.runner(), tmp_path) == [
        Failure(
            "host step", "host step nvkind-cluster: kind create failed", "action/up-cluster.log"
        )
    ]


def test_with_the_budget_spent_xid_txt_still_says_what_was_found(
    stands: InProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    monkeypatch.setattr(time, "monotonic", lambda: 1000.0)
    ran = stands.runner(budget=0)
    assert host_mod.Host(ran, stands.sandbox.root).kernel() == []
    assert stands.shipped() == {"host/xid.txt": "no NVRM Xid line in the kernel log\n"}
    assert [(r.name, r.status) for r in ran.records] == [
        ("journalctl -k", "skipped"),
        ("dmesg", "skipped"),
    ]


def test_kind_as_root_reaches_kinds_logs(
    stands: InProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    stands.rig.answer("nvidia-smi -q", "")
    stands.rig.answer("journalctl -k --no-pager -o short-iso", "")
    host_mod.Host(stands.runner(sudo=True), stands.sandbox.root).collect("kind", "k", True)
    folder = stands.staging / "ship" / "kind-logs"
    assert f"sudo -n kind export logs {folder} --name k" in stands.calls()
