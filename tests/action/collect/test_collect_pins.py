"""collect_pins: the `pins.py` column of versions.txt is components/pins.py, by the names
collect_versions looks its rows up by.

In this process, under the dotted name mutmut gives the module (collect_modules.py).
"""

from __future__ import annotations

import json
import subprocess
import sys

from components.pins import CHECK_PINS, OBSERVABILITY_PINS, PINS

from ..action_sandbox import COLLECT
from .collect_modules import module

collect_pins = module("collect_pins")
versions = module("collect_versions")


def test_every_pin_is_named_as_the_versions_table_reads_it() -> None:
    assert collect_pins.pins() == {
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
    assert set(versions.TOOLS) <= set(collect_pins.pins())


def test_run_as_a_script_it_prints_them_as_json() -> None:
    done = subprocess.run(
        [sys.executable, str(COLLECT / "collect_pins.py")],
        capture_output=True,
        text=True,
        check=True,
        cwd="/",
    )
    assert json.loads(done.stdout) == collect_pins.pins()
