"""bench/setup_critical_path.py runs (one timing, no time asserted) and counts what it says."""

from __future__ import annotations

import subprocess
import sys

from .action_sandbox import REPO


def test_the_critical_path_bench_runs() -> None:
    done = subprocess.run(
        [sys.executable, "bench/setup_critical_path.py", "--runs", "1"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "| steps, one after another | 9 |" in out
    chain = next(line for line in out.splitlines() if line.startswith("Longest chain"))
    for step in ("host-toolkit-config", "cluster-nvkind-cluster", "platform-kubeflow-trainer"):
        assert step in chain
    assert chain.index("host-toolkit-config") < chain.index("cluster-nvkind-cluster")
    assert chain.index("platform-gpu-operator") < chain.index("platform-kubeflow-trainer")
    rows = [
        line for line in out.splitlines() if line.endswith(("| again |", "cached (virtualenv) |"))
    ]
    assert rows  # the download inventory is there
