"""Recipe engine speed: cold load of a full catalog, and warm resolves once loaded.

Two catalogs: AICR's of July 2026 (`aicr.run/v1alpha2`, 98 overlays) on its own, as
`--data` gives it, and AICR v0.11.1's (`aicr.nvidia.com/v1alpha1`) layered under this
project's. Cold: the first `load_catalog` of that catalog in this process (every overlay,
mixin and registry entry parsed, validated and cross-checked; imports already done);
reload: the median of N more loads (file contents then come from the parse cache). Warm:
every overlay resolved by its own criteria on the loaded catalog (the one that pins
nothing, monitoring-hpa, which AICR refuses to resolve alone, is skipped), median per
resolve over all of them, N rounds after a first round. AICR documents < 10 ms per resolve
once loaded. Targets: cold load <= 200 ms, warm resolve <= 1 ms median. Nothing here
asserts a time.
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

from recipes import PROJECT_CATALOG, Catalog, load_catalog, resolve  # noqa: E402


def measure(name: str, dirs: list[Path], runs: int) -> None:
    """Print the cold load, reload and warm resolve figures of the catalog in `dirs`."""
    loads = []
    catalog: Catalog | None = None
    for _ in range(runs + 1):
        start = time.perf_counter()
        catalog = load_catalog(dirs, log=False)
        loads.append(time.perf_counter() - start)
    assert catalog is not None
    queries = [
        c
        for o in catalog.overlays.values()
        if (c := o.doc.spec.criteria) is not None and c.normalized().specificity()
    ]
    for criteria in queries:  # the first resolve of each query builds its cached result
        resolve(catalog, criteria)
    per_resolve = []
    for _ in range(runs):
        for criteria in queries:
            start = time.perf_counter()
            resolve(catalog, criteria)
            per_resolve.append(time.perf_counter() - start)
    print(f"{name}: {len(catalog.overlays)} overlays")
    print(
        f"  cold load: {loads[0] * 1000:.1f} ms; reload: median "
        f"{statistics.median(loads[1:]) * 1000:.1f} ms over {runs}"
    )
    print(
        f"  warm resolve: median {statistics.median(per_resolve) * 1000:.2f} ms, "
        f"max {max(per_resolve) * 1000:.2f} ms over {len(per_resolve)} resolves "
        f"({len(queries)} overlays x {runs})"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--upstream",
        type=Path,
        default=Path(os.environ.get("GPU_CI_UPSTREAM", REPO.parent / "shared" / "upstream")),
    )
    args = parser.parse_args()
    current = args.upstream / "aicr-main-2026-07-09" / "recipes"
    old = args.upstream / "aicr-v0.11.1" / "recipes"
    for path in (current, old):
        if not path.is_dir():
            print(f"no AICR catalog at {path} (set GPU_CI_UPSTREAM)", file=sys.stderr)
            return 2
    print(f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    measure("AICR main 2026-07-09", [current], args.runs)
    measure("AICR v0.11.1 + this project's catalog", [old, PROJECT_CATALOG], args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
