"""collect_bundle: nothing reaches the bundle unredacted, the size bound's order, the tarball.

In this process, under the dotted name mutmut gives the module (collect_modules.py).
"""

from __future__ import annotations

import os
import tarfile
from pathlib import Path
from typing import Any

import pytest

from .collect_modules import module

bundle_mod = module("collect_bundle")
redact = module("collect_redact")
Cut = bundle_mod.Cut


def write(root: Path, files: dict[str, bytes | str]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            path.write_text(content)
        else:
            path.write_bytes(content)


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_a_cut_says_what_it_kept_or_that_the_file_was_dropped() -> None:
    assert Cut("kind-logs/a.log", 300000, 65536).line() == (
        "kind-logs/a.log: cut to its last 65536 bytes (300000 bytes before)"
    )
    assert (
        Cut("cluster/x/events.txt", 1200, 0).line() == "cluster/x/events.txt: dropped (1200 bytes)"
    )


def test_text_is_what_has_no_nul_in_its_head_and_is_not_gzip(tmp_path: Path) -> None:
    cases = {
        "empty": b"",
        "log": b"plain log\n",
        "nul": b"abc\0def",
        "late-nul": b"x" * 8192 + b"\0",
        "gzip": b"\x1f\x8b\x08\x08rest",  # no NUL: its magic alone says so
        "gzip-later": b"a\x1f\x8b",
    }
    write(tmp_path, dict(cases))
    assert {name: bundle_mod.is_text(tmp_path / name) for name in cases} == {
        "empty": True,
        "log": True,
        "nul": False,
        "late-nul": True,  # only the first 8 KiB are looked at
        "gzip": False,
        "gzip-later": True,
    }


def test_every_shipped_file_is_redacted_into_the_bundle_and_the_rest_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ship, bundle = tmp_path / "ship", tmp_path / "bundle"
    write(
        ship,
        {
            "b/events.txt": "runner token s3cret-value rejected\n",
            "a/deep/kubelet.log": "token: abcdefgh123\nready\n",
            "a/deep/other.log": "second file in the folder\n",
            "a/pods.log.gz": b"\x1f\x8b\x08\x00",
            "a/z.txt": "after what was left out\n",
            "c/unreadable.txt": "x\n",
            "d/e/inside.txt": "in a folder whose parent holds only folders\n",
            "top.txt": "no secret\n",
        },
    )
    (ship / "a" / "link.txt").symlink_to(ship / "top.txt")
    os.mkfifo(ship / "b" / "fifo")
    real_open = Path.open

    def refuse(self: Path, *args: Any, **kw: Any) -> Any:
        if self.name == "unreadable.txt":
            raise PermissionError(13, "Permission denied")
        return real_open(self, *args, **kw)

    monkeypatch.setattr(Path, "open", refuse)
    redactor = redact.Redactor()
    redactor.add(["s3cret-value"])
    left_out = bundle_mod.redact_into(ship, bundle, redactor)
    assert left_out == [
        "a/link.txt: not a regular file",
        "a/pods.log.gz: not text, so it cannot be checked for secrets",
        "b/fifo: not a regular file",
        "c/unreadable.txt: unreadable (Permission denied)",
    ]
    assert tree(bundle) == {
        "a/deep/kubelet.log": b"token: [REDACTED]\nready\n",
        "a/deep/other.log": b"second file in the folder\n",
        "a/z.txt": b"after what was left out\n",
        "b/events.txt": b"runner token [REDACTED] rejected\n",
        "d/e/inside.txt": b"in a folder whose parent holds only folders\n",
        "top.txt": b"no secret\n",
    }


def test_tiers_put_kinds_logs_and_the_kernel_log_last() -> None:
    assert [
        bundle_mod.tier(rel)
        for rel in (
            "kind-logs/kind-worker/journal.log",
            "host/kernel.log",
            "cluster/gpu-operator/events.txt",
            "action/up-full.log",
            "host/xid.txt",
            "checks/job.log",
            "versions.txt",
        )
    ] == [3, 3, 2, 2, 1, 1, 1]


def test_within_the_bound_nothing_is_cut(tmp_path: Path) -> None:
    write(tmp_path, {"a.txt": "x" * 100, "kind-logs/node/deep/b.log": "y" * 100, "cluster/c": ""})
    assert bundle_mod.bound(tmp_path, 250, 50) == []
    assert bundle_mod.bound(tmp_path, 249, 50) == [Cut("kind-logs/node/deep/b.log", 100, 0)]
    assert tree(tmp_path) == {"a.txt": b"x" * 100, "cluster/c": b""}
    folders = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_dir())
    assert folders == ["cluster"]  # the emptied folders went too, the deepest first


def marker(cut: int) -> bytes:
    return f"[gpu-ci collect: the first {cut} bytes were cut (size bound)]\n".encode()


def test_the_bound_takes_the_least_telling_largest_files_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bundle_mod, "TAIL", 100)
    files: dict[str, bytes | str] = {
        "SUMMARY.md": "s" * 500,
        "collect.log": "l" * 500,
        "versions.txt": "v" * 300,
        "cluster/ns/events.txt": "e" * 150,
        "cluster/ns/describe.txt": "d" * 150,
        "action/up-full.log": "u" * 150 + "U" * 100,
        "kind-logs/node/journal.log": "j" * 150,
        "kind-logs/node/kubelet.log": "k" * 101 + "K" * 100,  # over twice the tail: cut
        "host/kernel.log": "n" * 50,
        "host/xid.txt": "x" * 40,
    }
    write(tmp_path, files)
    cuts = bundle_mod.bound(tmp_path, 1850, 0)
    kubelet = len(marker(101)) + 100
    assert cuts == [
        Cut("kind-logs/node/kubelet.log", 201, 100),
        Cut("kind-logs/node/kubelet.log", kubelet, 0),  # no longer over twice the tail
        Cut("kind-logs/node/journal.log", 150, 0),
        Cut("host/kernel.log", 50, 0),
        Cut("action/up-full.log", 250, 100),
    ]
    assert tree(tmp_path) == {
        "SUMMARY.md": b"s" * 500,
        "action/up-full.log": marker(150) + b"U" * 100,
        "cluster/ns/describe.txt": b"d" * 150,
        "cluster/ns/events.txt": b"e" * 150,
        "collect.log": b"l" * 500,
        "host/xid.txt": b"x" * 40,
        "versions.txt": b"v" * 300,
    }


def test_twice_the_tail_is_dropped_and_one_byte_more_is_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bundle_mod, "TAIL", 100)
    write(tmp_path, {"kind-logs/a.log": "a" * 200})
    assert bundle_mod.bound(tmp_path, 199, 0) == [Cut("kind-logs/a.log", 200, 0)]
    write(tmp_path, {"kind-logs/a.log": "a" * 201})
    assert bundle_mod.bound(tmp_path, 200, 0) == [Cut("kind-logs/a.log", 201, 100)]
    assert tree(tmp_path) == {"kind-logs/a.log": marker(101) + b"a" * 100}


def test_within_a_tier_the_larger_then_the_later_name_goes_first(tmp_path: Path) -> None:
    write(
        tmp_path, {"cluster/a.txt": "a" * 10, "cluster/b.txt": "b" * 10, "cluster/c.txt": "c" * 9}
    )
    assert bundle_mod.bound(tmp_path, 9, 0) == [
        Cut("cluster/b.txt", 10, 0),
        Cut("cluster/a.txt", 10, 0),
    ]
    assert tree(tmp_path) == {"cluster/c.txt": b"c" * 9}


def test_the_reserve_counts_after_each_cut(tmp_path: Path) -> None:
    write(tmp_path, {"a.txt": "a" * 10, "b.txt": "b" * 10, "c.txt": "c" * 10})
    assert bundle_mod.bound(tmp_path, 30, 15) == [Cut("c.txt", 10, 0), Cut("b.txt", 10, 0)]


def test_the_summary_and_log_are_never_dropped_and_the_reserve_counts(tmp_path: Path) -> None:
    write(tmp_path, {"SUMMARY.md": "s" * 40, "collect.log": "l" * 40, "x/only.txt": "o" * 5})
    (tmp_path / "x" / "link").symlink_to(tmp_path / "SUMMARY.md")
    assert bundle_mod.files_of(tmp_path) == {"SUMMARY.md": 40, "collect.log": 40, "x/only.txt": 5}
    assert bundle_mod.bound(tmp_path, 100, 15) == []
    assert bundle_mod.bound(tmp_path, 100, 16) == [Cut("x/only.txt", 5, 0)]
    assert bundle_mod.bound(tmp_path, 10, 0) == []  # only what is never dropped is left
    assert sorted(tree(tmp_path)) == ["SUMMARY.md", "collect.log", "x/link"]


def test_the_tarball_holds_the_bundle_under_its_name(tmp_path: Path) -> None:
    bundle = tmp_path / "gpu-ci-diagnostics-kind"
    write(bundle, {"SUMMARY.md": "# s\n", "host/xid.txt": "none\n"})
    target = tmp_path / "gpu-ci-diagnostics-kind.tar.gz"
    (tmp_path / "gpu-ci-diagnostics-kind.tar.gz.partial").write_text("an interrupted one")
    bundle_mod.tarball(bundle, target)
    with tarfile.open(target, "r:gz") as tar:
        names = sorted(m.name for m in tar.getmembers())
        handle = tar.extractfile("gpu-ci-diagnostics-kind/host/xid.txt")
        assert handle is not None and handle.read() == b"none\n"
    assert names == [
        "gpu-ci-diagnostics-kind",
        "gpu-ci-diagnostics-kind/SUMMARY.md",
        "gpu-ci-diagnostics-kind/host",
        "gpu-ci-diagnostics-kind/host/xid.txt",
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "gpu-ci-diagnostics-kind",
        "gpu-ci-diagnostics-kind.tar.gz",
    ]
