"""The GPU count check (issue #32): the cluster advertises the GPUs its layout gives it.

`gpu-count` (a Chainsaw check): the Nodes' allocatable `nvidia.com/gpu`, summed, is the
physical GPUs the cluster's layout gives it (`GpuExpectation`), times the device plugin's
sharing replicas (`releases/gpu_sharing.py`). One non-resource assertion over
`x_k8s_list($client, 'v1', 'Node', '')` (kyverno/chainsaw
`testdata/e2e/examples/non-resource-assertion`; the function is in Chainsaw's JMESPath
reference, `x_k8s_list(any, string, string, string)`), so a layout of one worker per GPU
counts as well as one worker with all; a failure names the step,
`cluster-advertises-N-nvidia-gpu`, and the sum it found. The other GPU check, for a
multi-GPU cluster, is `nccl_all_reduce.py`; which of them run, `plan.gpu_checks`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from components.platform.chainsaw.documents import render_test, test_doc
from components.platform.chainsaw.reads import Read
from components.platform.checks.model import ClusterCheck, chainsaw_check
from components.platform.releases.gpu_sharing import GpuSharing

GPU_COUNT_CHECK = "gpu-count"
GPU_COUNT_BUDGET_S = 240
"""How long the count may take to appear: the readiness wait already saw the GPUs."""
_NODES = "x_k8s_list($client, 'v1', 'Node', '')"
_SUM = "sum(items[].to_number(status.allocatable.\"nvidia.com/gpu\" || '0'))"


@dataclass(frozen=True)
class GpuExpectation:
    """What the cluster's layout gives it (`stacks/config/views.py`, from `gpu-ci:cluster`)."""

    gpus: int
    """The physical GPUs the cluster must advertise."""
    multi: bool
    """`expectGpus` of 2 or more: a multi-GPU cluster (no sharing; the NCCL check)."""
    per_node: int
    """The most GPUs one worker gets: what one pod can ask for."""


def gpu_count_check(
    expected: GpuExpectation, sharing: GpuSharing | None, covers: Sequence[str]
) -> ClusterCheck:
    """The Nodes advertise the expected GPUs (times the replicas when they are shared)."""
    replicas = sharing.replicas if sharing is not None else 1
    advertised = expected.gpus * replicas
    shared = f" ({expected.gpus} GPUs x {replicas}, {sharing.strategy})" if sharing else ""
    test = test_doc(
        f"gpu-ci-{GPU_COUNT_CHECK}",
        GPU_COUNT_BUDGET_S,
        [
            {
                "name": f"cluster-advertises-{advertised}-nvidia-gpu",
                "try": [{"assert": {"resource": {f"({_NODES})": {f"({_SUM})": advertised}}}}],
            }
        ],
    )
    return chainsaw_check(
        GPU_COUNT_CHECK,
        f"the nodes advertise {advertised} nvidia.com/gpu{shared}",
        test,
        render_test(test),
        wait_s=GPU_COUNT_BUDGET_S,
        covers=tuple(covers),
        reads=(Read("", "nodes"),),
    )
