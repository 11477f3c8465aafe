"""What the upstream tools cost `.ci/run`: building them cold, and finding them current.

Warm (the default, and the CI smoke run): `install_all` over the real cache, as every run
after the first on a machine does: a `go version -m` per tool, nothing built. `--cold`: the
same into empty folders (GOMODCACHE, GOCACHE and the tools' cache in a temporary folder), as
on a new machine: every module downloaded from the proxy and verified, every package built.
Prints each phase's wall time, the load average and the machine; asserts no time. Fails only
if a tool did not end up current.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tools.tasks.upstream_tools import TOOLS, cache_root, install_all, is_current  # noqa: E402


@contextlib.contextmanager
def empty_caches() -> Iterator[Path]:
    """Go's module and build caches and the tools' cache, all empty, for the block."""
    saved = {k: os.environ.get(k) for k in ("GOMODCACHE", "GOCACHE", "GPU_CI_TOOLS_CACHE")}
    with tempfile.TemporaryDirectory(prefix="cold-tools-") as scratch:
        root = Path(scratch)
        os.environ.update(
            GOMODCACHE=str(root / "mod"),
            GOCACHE=str(root / "build"),
            GPU_CI_TOOLS_CACHE=str(root / "tools"),
        )
        try:
            yield root
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
            # the module cache is read-only by design: make it removable
            for folder, _, _ in os.walk(root):
                os.chmod(folder, 0o755)


def _load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cold", action="store_true", help="build into empty caches (minutes)")
    args = parser.parse_args(argv)
    go = shutil.which("go")
    if go is None:
        print("bench/upstream_tools.py: Go not found on PATH", file=sys.stderr)
        return 1
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs; load before: {_load()}")
    with empty_caches() if args.cold else contextlib.nullcontext() as scratch:
        started = time.monotonic()
        install_all(required=True)
        took = time.monotonic() - started
        stale = [tool.name for tool in TOOLS if not is_current(tool, go)]
        kind = f"cold, into {scratch}" if args.cold else f"warm, {cache_root()}"
        print(f"install_all ({kind}): {took:.1f} s; load after: {_load()}")
    if stale:
        print(f"not current afterwards: {', '.join(stale)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
