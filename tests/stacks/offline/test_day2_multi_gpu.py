"""Day 2: asking a deployed two-GPU stack for its GPU checks (`cluster.expectGpus`, issue #32).

The multi-gpu example as deployed without `expectGpus` (its readiness wait already waits for
the layout's 2 GPUs), then with it: the GPU checks are created, nothing else changes (the
checks' reader already lists nodes, for the GPU operator's health check); the cluster, its
steps and the releases stay as they are.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.stacks.offline.test_day2 import changed, ops


def without_expectation(config: dict[str, Any]) -> None:
    del config["gpu-ci:cluster"]["expectGpus"]


def with_expectation(config: dict[str, Any]) -> None:
    config["gpu-ci:cluster"]["expectGpus"] = 2


def test_expect_gpus_creates_the_gpu_checks_and_replaces_nothing(tmp_path: Path) -> None:
    result = changed("multi-gpu", with_expectation, tmp_path, deployed=without_expectation)
    assert ops(result) == {
        "create": (
            "platform-checks-gpu-count",
            "platform-checks-gpu-count",
            "platform-checks-nccl-all-reduce",
        ),
    }
    types = {f.type for f in result.changed if f.op == "create"}
    assert types == {"kubernetes:core/v1:ConfigMap", "kubernetes:batch/v1:Job"}
    for name in ("cluster-nvkind-cluster", "cluster-cluster-ready", "platform-gpu-operator"):
        assert result.of(name).op is None
