"""The bundle on disk: raw sources redacted into it, its size bound, the tarball.

Nothing goes into the bundle folder unredacted: the sources land in a private (0700)
staging folder, and each file is copied from there through the Redactor. A file that is
not text (a NUL byte in its first 8 KiB, gzip's magic: kind's rotated pod logs) cannot be
checked for secrets, so it is left out and named in collect.log.

The size bound is on the bundle's files. Over it, the least telling files go first: tier
3 (kind's node logs, the whole kernel log), then tier 2 (events, descriptions, the `up`
logs), then tier 1 (the rest); within a tier the largest first. A file over twice
`TAIL` is cut to its last `TAIL` bytes (a log's end is where it failed), a smaller one is
dropped, until the bundle fits. SUMMARY.md and collect.log are never dropped; each cut
and drop is listed in both.
"""

from __future__ import annotations

import os
import tarfile
from dataclasses import dataclass
from pathlib import Path

from collect_redact import Redactor

TAIL = 64 << 10
KEEP = ("SUMMARY.md", "collect.log")
BULK = ("kind-logs/", "host/kernel.log")
DETAIL = ("cluster/", "action/")


@dataclass(frozen=True)
class Cut:
    """One file the size bound shortened (`kept` bytes of its end) or dropped (kept 0)."""

    path: str
    size: int
    kept: int

    def line(self) -> str:
        if self.kept:
            return f"{self.path}: cut to its last {self.kept} bytes ({self.size} bytes before)"
        return f"{self.path}: dropped ({self.size} bytes)"


def is_text(path: Path) -> bool:
    with path.open("rb") as handle:
        head = handle.read(8192)
    return b"\0" not in head and not head.startswith(b"\x1f\x8b")


def redact_into(ship: Path, bundle: Path, redactor: Redactor) -> list[str]:
    """Every regular file under `ship`, redacted, at the same path under `bundle`; the
    files left out (not text, not a regular file), one line each."""
    left_out: list[str] = []
    for folder, dirs, files in os.walk(ship):
        dirs.sort()
        for name in sorted(files):
            source = Path(folder) / name
            rel = source.relative_to(ship).as_posix()
            if source.is_symlink() or not source.is_file():
                left_out.append(f"{rel}: not a regular file")
                continue
            try:
                if not is_text(source):
                    left_out.append(f"{rel}: not text, so it cannot be checked for secrets")
                    continue
                target = bundle / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                with source.open("rb") as src, target.open("wb") as dst:
                    dst.writelines(redactor.stream(src))
            except OSError as error:
                left_out.append(f"{rel}: unreadable ({error.strerror})")
    return left_out


def tier(rel: str) -> int:
    if rel.startswith(BULK):
        return 3
    if rel.startswith(DETAIL):
        return 2
    return 1


def files_of(bundle: Path) -> dict[str, int]:
    return {
        p.relative_to(bundle).as_posix(): p.stat().st_size
        for p in sorted(bundle.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def bound(bundle: Path, limit: int, reserve: int) -> list[Cut]:
    """Cut and drop files until the bundle's files, plus `reserve` bytes for SUMMARY.md
    and collect.log, are within `limit` bytes."""
    sizes = files_of(bundle)
    total = sum(sizes.values()) + reserve
    cuts: list[Cut] = []
    while total > limit:
        candidates = [r for r in sizes if r not in KEEP]
        if not candidates:
            break
        rel = max(candidates, key=lambda r: (tier(r), sizes[r], r))
        path, size = bundle / rel, sizes.pop(rel)
        if size > 2 * TAIL:
            with path.open("rb") as handle:
                handle.seek(size - TAIL)
                end = handle.read()
            marker = f"[gpu-ci collect: the first {size - TAIL} bytes were cut (size bound)]\n"
            path.write_bytes(marker.encode() + end)
            sizes[rel] = path.stat().st_size
            cuts.append(Cut(rel, size, TAIL))
        else:
            path.unlink()
            cuts.append(Cut(rel, size, 0))
        total = sum(sizes.values()) + reserve
    _prune(bundle)
    return cuts


def _prune(bundle: Path) -> None:
    """Folders emptied by the bound go too."""
    for folder in sorted((p for p in bundle.rglob("*") if p.is_dir()), reverse=True):
        if not any(folder.iterdir()):
            folder.rmdir()


def tarball(bundle: Path, target: Path) -> None:
    """`bundle` as `target` (.tar.gz), its top folder named as the bundle is; written
    beside and renamed, so a reader never sees half a tarball."""
    partial = target.with_name(target.name + ".partial")
    with tarfile.open(partial, "w:gz") as tar:
        tar.add(bundle, arcname=bundle.name)
    partial.replace(target)
