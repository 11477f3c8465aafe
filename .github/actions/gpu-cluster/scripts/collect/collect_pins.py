"""components/pins.py as JSON on stdout: the `pins.py` column of the diagnostics bundle's
versions table. Run with the program's virtualenv (pins.py is pydantic models); the
collector runs it as one of its sources, and on a self-managed host it is run beside the
checkout and its output handed over with --pins (docs/ci-integration.md).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

PROGRAM = Path(__file__).resolve().parents[5]  # the program's folder (prepare.sh)
if str(PROGRAM) not in sys.path:
    sys.path.insert(0, str(PROGRAM))

from components.pins import CHECK_PINS, OBSERVABILITY_PINS, PINS  # noqa: E402


def pins() -> dict[str, str]:
    """Every pin a GPU host or its cluster runs, by the versions table's names."""
    return {
        "kind": PINS.kind.version,
        "kubectl": PINS.kubectl.version,
        "helm": PINS.helm.version,
        "go": PINS.go.version,
        "nvkind": PINS.nvkind.commit,
        "toolkit": PINS.toolkit_version,
        "driver": PINS.driver_branch,
        "actions-runner": PINS.runner.version,
        "chainsaw image": CHECK_PINS.chainsaw_image,
        "cuda image": CHECK_PINS.cuda_image,
        "torch image": CHECK_PINS.torch_image,
        f"chart {OBSERVABILITY_PINS.chart}": OBSERVABILITY_PINS.chart_version,
    }


if __name__ == "__main__":
    print(json.dumps(pins(), indent=2, sort_keys=True))
