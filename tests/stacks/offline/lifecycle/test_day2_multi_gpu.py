"""Day 2: asking a deployed two-GPU stack for its GPU checks (`cluster.expectGpus`, issue #32).

The multi-gpu example as deployed without `expectGpus` (its readiness wait already waits for
the layout's 2 GPUs), then with it: the GPU checks are created and the start Job of the
Chainsaw checks' pod, which now gates the GPU count check too, runs again
(components/platform/checks/starts.py); nothing else changes (the checks' reader already lists
nodes, for the GPU operator's health check); the cluster, its steps and the releases stay as
they are.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.stacks.offline.lifecycle.test_day2 import changed, ops


def without_expectation(config: dict[str, Any]) -> None:
    del config["gpu-ci:cluster"]["expectGpus"]


def with_expectation(config: dict[str, Any]) -> None:
    config["gpu-ci:cluster"]["expectGpus"] = 2


def test_expect_gpus_creates_the_gpu_checks_and_reruns_only_their_start_job(
    tmp_path: Path,
) -> None:
    result = changed("multi-gpu", with_expectation, tmp_path, deployed=without_expectation)
    assert ops(result) == {
        "create": (
            "platform-checks-gpu-count",
            "platform-checks-gpu-count",
            "platform-checks-nccl-all-reduce",
        ),
        "replace": ("platform-checks-chainsaw-pods-start",),
    }
    start = result.of("platform-checks-chainsaw-pods-start")
    digest = 'spec.template.metadata.annotations["gpu-ci/check-digest"]'
    assert (start.replace_because, start.delete_before_replace) == ((digest,), False)
    types = {f.type for f in result.changed if f.op == "create"}
    assert types == {"kubernetes:core/v1:ConfigMap", "kubernetes:batch/v1:Job"}
    for name in ("cluster-nvkind-cluster", "cluster-cluster-ready", "platform-gpu-operator"):
        assert result.of(name).op is None
