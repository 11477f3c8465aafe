"""What collect.py reads and what it leaves behind: secrets (a kubeconfig, a secret file)
in any encoding and on a host whose locale is not UTF-8, only the folders it was given
(--work, --statedir), room in the size bound for a long collect.log, kind's logs as root
and the staging folder removed through sudo. test_collect_sources.py has the names of the
sources and parts; test_collect_main.py the bundle's shape, its tarball and the result.
"""

from __future__ import annotations

import json
import locale
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from ..action_sandbox import ActionSandbox
from .collect_in_process import InProcess, in_process
from .collect_modules import module
from .collect_sandbox import CHECKS
from .collect_stand_ins import (
    JOB,
    KEY_DATA,
    KUBECONFIG,
    a_script,
    given_kubeconfig,
    log_rows,
)


@pytest.fixture
def stands(runner: ActionSandbox, monkeypatch: pytest.MonkeyPatch) -> InProcess:
    return in_process(runner, monkeypatch)


def test_a_kubeconfig_with_a_byte_that_is_not_utf8_is_used_and_redacted(
    stands: InProcess, tmp_path: Path
) -> None:
    config = given_kubeconfig(tmp_path, b"# copied from caf\xe9's host\n" + KUBECONFIG.encode())
    stands.rig.cluster(["gpu-operator"], {})
    stands.rig.kind_log("n/kubelet.log", f"key {KEY_DATA}\n")
    assert stands.main("--kubeconfig", str(config), work=False) == 0
    files = stands.rig.files()
    assert files["kind-logs/n/kubelet.log"] == b"key [REDACTED]\n"
    assert "cluster/namespaces.txt" in files
    assert "kubeconfig" not in [row.split("\t")[1] for row in log_rows(stands)]


def test_a_secret_file_with_a_byte_that_is_not_utf8_still_redacts(
    stands: InProcess, tmp_path: Path
) -> None:
    secret = tmp_path / "app-key"
    secret.write_bytes(b"# cl\xe9 de l'app\nAPPKEY0123456789abcdef\n")
    stands.rig.kind_log("n/kubelet.log", "APPKEY0123456789abcdef in a log\n")
    assert stands.main("--redact-file", str(secret), work=False) == 0
    assert stands.rig.files()["kind-logs/n/kubelet.log"] == b"[REDACTED] in a log\n"


@contextmanager
def a_locale_without_utf8() -> Iterator[None]:
    """The C locale's ASCII, the default encoding of Python's files on a host whose locale
    is not UTF-8 (Python not in UTF-8 mode)."""
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        yield
    finally:
        locale.setlocale(locale.LC_CTYPE, before)


def test_secrets_are_read_and_the_bundle_written_in_utf8_whatever_the_locale(
    stands: InProcess, tmp_path: Path
) -> None:
    config = given_kubeconfig(tmp_path, KUBECONFIG.replace(KEY_DATA, "S3CRET-KÉY-DATA-0123"))
    passphrase = tmp_path / "passphrase"
    passphrase.write_text("pässphrase-4242\n", encoding="utf-8")
    rig = stands.rig
    rig.kind_log("n/kubelet.log", "key S3CRET-KÉY-DATA-0123\nthe pässphrase-4242 leaked\n")
    rig.cluster([CHECKS], {})
    rig.check_job(JOB, "nccl-all-reduce", "gpu-ci check nccl-all-reduce: FAILED (“NCCL”)\n")
    rig.fail("nvidia-smi", "NVIDIA-SMI has failed … driver")
    rig.answer("docker version --format {{.Server.Version}}", "28.3.3 \u2013 rootless\n")
    with a_locale_without_utf8():
        code = stands.main("--kubeconfig", str(config), "--redact-file", str(passphrase))
    assert code == 0
    files = stands.rig.files()
    assert files["kind-logs/n/kubelet.log"] == b"key [REDACTED]\nthe [REDACTED] leaked\n"
    summary = files["SUMMARY.md"].decode("utf-8")
    assert "- nvidia-smi -q: failed (exit 1: NVIDIA-SMI has failed … driver)" in summary
    log = files["collect.log"].decode("utf-8").splitlines()
    row = "failed\tnvidia-smi -q\thost/nvidia-smi-q.txt\texit 1: NVIDIA-SMI has failed … driver"
    assert row in log
    table = files["versions.txt"].decode("utf-8").splitlines()
    assert [row.split()[:5] for row in table if row.startswith("docker")] == [
        ["docker", "-", "-", "28.3.3", "\u2013"]
    ]
    lines = (stands.rig.runner.work / "collect.result").read_bytes().decode("utf-8").splitlines()
    assert lines[-1].startswith("first-failure=check nccl-all-reduce (Job ")
    assert lines[-1].endswith("gpu-ci check nccl-all-reduce: FAILED (“NCCL”)")


def test_without_work_the_working_folder_is_not_the_actions(
    stands: InProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = tmp_path / "somewhere"
    here.mkdir()
    (here / "up-full.log").write_text("gpu-ci step toolkit: apt-get install failed\n")
    (here / "versions.json").write_text(json.dumps({"kind": "0.1.0"}))
    monkeypatch.chdir(here)
    assert stands.main(work=False) == 0
    files = stands.rig.files()
    assert [rel for rel in files if rel.startswith("action/")] == []
    assert "host step" not in files["SUMMARY.md"].decode()
    table = files["versions.txt"].decode().splitlines()
    assert table[1].split()[:3] == ["kind", "-", "-"]


def test_the_tools_stamps_are_read_only_from_the_statedir_given(stands: InProcess) -> None:
    root = stands.sandbox.root
    (root / "Xstate" / "tools").mkdir(parents=True)
    (root / "nvkind").write_text("go:0000000 " + "0" * 64 + "\n")
    (root / "Xstate" / "tools" / "nvkind").write_text("go:9a3061c " + "f" * 64 + "\n")

    def nvkind() -> list[str]:
        table = (stands.rig.bundle / "versions.txt").read_text().splitlines()
        return next(line.split()[:4] for line in table if line.startswith("nvkind"))

    assert stands.main(work=False) == 0
    assert nvkind() == ["nvkind", "-", "-", "?"]
    assert stands.main("--statedir", "/Xstate/tools", work=False) == 0
    assert nvkind() == ["nvkind", "-", "-", "9a3061c"]


def test_the_bound_leaves_room_for_a_long_collect_log(stands: InProcess) -> None:
    """Each CDI spec is a source of its own: 300 of them are some 30 KiB of collect.log."""
    for n in range(300):
        stands.rig.host_file(f"etc/cdi/nvidia.com-gpu-{n:03}-a-spec-of-one-device.yaml", "x\n")
    stands.rig.kind_log("n/big.log", "b" * ((1 << 20) - 16000))
    assert stands.main("--max-mb", "1", work=False) == 0
    files = stands.rig.files()
    assert len(files["collect.log"]) > 30000
    assert sum(len(data) for data in files.values()) <= 1 << 20
    assert "- kind-logs/n/big.log: cut to its last 65536 bytes" in stands.rig.summary()


def test_kind_exports_its_logs_as_root_when_it_runs_as_root(
    stands: InProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    stands.rig.kind_log("n/kubelet.log", "kubelet\n")
    assert stands.main("--sudo", "--kind-as-root", work=False) == 0
    exports = [c for c in stands.calls() if "kind export logs" in c or c.startswith("sudo -n ch")]
    assert [re.sub(r"/\S*/ship/", "STAGING/ship/", c) for c in exports] == [
        "sudo -n kind export logs STAGING/ship/kind-logs --name kind",
        "kind export logs STAGING/ship/kind-logs --name kind",
        f"sudo -n chown -R {os.getuid()}:{os.getgid()} STAGING/ship/kind-logs",
    ]
    assert stands.rig.files()["kind-logs/n/kubelet.log"] == b"kubelet\n"


def roots_log_in_staging(stands: InProcess, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rotated pod log from kind (left out of the bundle, so only in the staging folder)
    that the collector, not root, cannot delete."""
    stands.rig.kind_log("n/pods.log.gz", b"\x1f\x8b\x08\x00")
    real = os.unlink

    def unlink(path: Any, *, dir_fd: int | None = None) -> None:
        if os.fspath(path).endswith("pods.log.gz"):
            raise PermissionError(1, "Operation not permitted", path)  # root's file
        real(path, dir_fd=dir_fd)

    monkeypatch.setattr(os, "unlink", unlink)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)


def test_a_staging_folder_left_behind_is_removed_through_sudo_when_sudo_is_allowed(
    stands: InProcess, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Kind's logs exported as root can outlast the collector's own removal of the staging
    folder (a rotated pod log is left out of the bundle, so it is only there); collect.py
    hands remove() the sudo it was allowed, and sudo's `rm -rf` ends it; a sudo that
    refuses leaves it named for removal by hand."""
    roots_log_in_staging(stands, monkeypatch)
    for flag in ("--sudo", "--kind-as-root"):
        assert stands.main(flag, work=False) == 0
        removed = [c for c in stands.calls() if c.startswith("sudo -n rm -rf -- ")]
        assert [Path(c.split()[-1]).name[:16] for c in removed] == [".gpu-ci-collect-"]
        temp = stands.rig.runner.temp
        assert [p.name for p in temp.iterdir() if p.name.startswith(".")] == []
        (stands.sandbox.base / "calls.log").unlink()
    stands.sandbox.bin.joinpath("sudo").unlink()  # one that wants a password
    a_script(stands.sandbox.bin, "sudo", 'echo "sudo: a password is required" >&2\nexit 1\n')
    capsys.readouterr()
    assert stands.main("--sudo", work=False) == 0
    staging = [p for p in stands.rig.runner.temp.iterdir() if p.name.startswith(".")]
    assert len(staging) == 1
    said = capsys.readouterr().err.splitlines()
    assert said[0] == (
        f"gpu-ci step collect: could not remove the raw staging folder {staging[0]}; "
        "remove it by hand"
    )


def test_a_sudo_rm_that_hangs_is_given_up_on_and_the_folder_named(
    stands: InProcess, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A sudo that would remove the folder only after the time allowed is stopped there:
    the collect still ends well and names the folder for removal by hand."""
    roots_log_in_staging(stands, monkeypatch)
    monkeypatch.setattr(module("collect"), "SUDO_RM_S", 1)
    stands.sandbox.bin.joinpath("sudo").unlink()
    # slow, then the real rm (the sandbox's sleep and rm are stand-ins)
    a_script(stands.sandbox.bin, "sudo", '/bin/sleep 4\nshift 2\nexec /bin/rm "$@"\n')
    capsys.readouterr()
    assert stands.main("--sudo", work=False) == 0
    staging = [p for p in stands.rig.runner.temp.iterdir() if p.name.startswith(".")]
    assert len(staging) == 1
    assert capsys.readouterr().err.splitlines()[0] == (
        f"gpu-ci step collect: could not remove the raw staging folder {staging[0]}; "
        "remove it by hand"
    )
