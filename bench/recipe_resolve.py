"""Recipe engine speed: cold load of a full catalog, and warm resolves once loaded.

Cold: the first `load_catalog` in this process of the shared AICR catalog layered under
this project's (every overlay, mixin, registry entry and values file parsed and
cross-checked); reload: the median of N more loads (file reads then hit the OS cache).
Warm: every overlay resolved by its own criteria on the loaded catalog, median
per resolve over all of them, N rounds. AICR documents < 10 ms per resolve once loaded.
Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from recipes import PROJECT_CATALOG, load_catalog, resolve  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--upstream",
        type=Path,
        default=Path(os.environ.get("GPU_CI_UPSTREAM", REPO.parent / "shared" / "upstream")),
    )
    args = parser.parse_args()
    dirs = [args.upstream / "aicr-v0.11.1" / "recipes", PROJECT_CATALOG]
    if not dirs[0].is_dir():
        print(f"no AICR catalog at {dirs[0]} (set GPU_CI_UPSTREAM)", file=sys.stderr)
        return 2
    loads = []
    for _ in range(args.runs + 1):
        start = time.perf_counter()
        catalog = load_catalog(dirs)
        loads.append(time.perf_counter() - start)
    queries = [o.doc.spec.criteria for o in catalog.overlays.values() if o.doc.spec.criteria]
    per_resolve = []
    for _ in range(args.runs):
        for criteria in queries:
            start = time.perf_counter()
            resolve(catalog, criteria)
            per_resolve.append(time.perf_counter() - start)
    print(
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}: "
        f"{len(catalog.overlays)} overlays"
    )
    print(
        f"cold load: {loads[0] * 1000:.1f} ms; reload: median "
        f"{statistics.median(loads[1:]) * 1000:.1f} ms over {args.runs}"
    )
    print(
        f"warm resolve: median {statistics.median(per_resolve) * 1000:.2f} ms, "
        f"max {max(per_resolve) * 1000:.2f} ms over {len(per_resolve)} resolves "
        f"({len(queries)} overlays x {args.runs})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
