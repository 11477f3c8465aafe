"""The checks of a cluster's GPUs (issue #32): how many it advertises, and whether two of them
can all-reduce over NCCL.

- `gpu-count` (a Chainsaw check): the Nodes' allocatable `nvidia.com/gpu`, summed, is the
  physical GPUs the cluster's layout gives it, times the device plugin's sharing replicas
  (`gpu_sharing.py`). One non-resource assertion over `x_k8s_list($client, 'v1', 'Node', '')`
  (kyverno/chainsaw `testdata/e2e/examples/non-resource-assertion`; the function is in
  Chainsaw's JMESPath reference, `x_k8s_list(any, string, string, string)`), so a layout of
  one worker per GPU counts as well as one worker with all; a failure names the step,
  `cluster-advertises-N-nvidia-gpu`, and the sum it found.
- `nccl-all-reduce` (a GPU pod), for a multi-GPU expectation (`cluster.expectGpus` of 2+):
  `torchrun` starts two ranks in one pod given two GPUs; they check they hold two physical
  GPUs (their UUIDs), all-reduce a 256 MiB tensor over NCCL, check the sum, and time 20 more.
  Rank 0 logs `gpu-ci check nccl-all-reduce: busbw X GB/s, ...`: the bus bandwidth as
  nccl-tests reports it (algbw x 2(n-1)/n for all_reduce, NVIDIA/nccl-tests
  `doc/PERFORMANCE.md`), which the gpu-cluster action copies into the job summary. A failure
  ends the log with its cause: `GPU count`, `NCCL error` or `timeout`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from components.pins import CHECK_PINS
from components.platform.chainsaw_tests import render_test, test_doc
from components.platform.health_model import MARGIN_S, ClusterCheck, Read, chainsaw_check

if TYPE_CHECKING:
    from components.platform.gpu_sharing import GpuSharing

GPU_COUNT_CHECK = "gpu-count"
NCCL_CHECK = "nccl-all-reduce"
NCCL_GPUS = 2
GPU_COUNT_BUDGET_S = 240
"""How long the count may take to appear: the readiness wait already saw the GPUs."""
NCCL_STARTUP_S = 600
"""Scheduling and pulling the PyTorch image (several GB) before the container starts."""
NCCL_RUN_S = 300
"""The run itself, from the container's start: past it, the check fails as a timeout."""
NCCL_TIMEOUT_S = NCCL_STARTUP_S + NCCL_RUN_S + MARGIN_S
"""The NCCL Job's deadline: its worst case (start, then the bounded run) plus the margin."""
BANDWIDTH_PREFIX = f"gpu-ci check {NCCL_CHECK}: busbw "
"""The log line the gpu-cluster action reads the bandwidth from."""
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


_NCCL_PY = """\
import datetime, os, sys, time
import torch
import torch.distributed as dist

CHECK = "gpu-ci check nccl-all-reduce"
rank, local = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"])
world = int(os.environ["WORLD_SIZE"])


def fail(cause):
    print(f"{CHECK}: FAILED ({cause})", flush=True)
    sys.exit(1)


if torch.cuda.device_count() < world:
    fail(f"GPU count: the pod sees {torch.cuda.device_count()} GPU(s), {world} asked for")
torch.cuda.set_device(local)
gpu = torch.cuda.get_device_properties(local)
try:
    dist.init_process_group(
        "nccl", timeout=datetime.timedelta(seconds=120), device_id=torch.device("cuda", local)
    )
    uuids = [None] * world
    dist.all_gather_object(uuids, str(gpu.uuid))
    if len(set(uuids)) < world:
        fail(f"GPU count: {world} ranks on {len(set(uuids))} physical GPU(s): {uuids}")
    x = torch.ones(64 * 2**20, device="cuda")  # 256 MiB of float32
    dist.all_reduce(x)
    torch.cuda.synchronize()
    if not bool(torch.all(x == world)):
        fail(f"NCCL error: the all-reduce summed to {x[0].item()}, not {world}")
    for _ in range(5):
        dist.all_reduce(x.fill_(1.0))
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(20):
        dist.all_reduce(x.fill_(1.0))
    torch.cuda.synchronize()
    seconds = (time.perf_counter() - start) / 20
    algbw = x.numel() * x.element_size() / seconds / 1e9
    busbw = algbw * 2 * (world - 1) / world
    if rank == 0:
        print(
            f"{CHECK}: busbw {busbw:.2f} GB/s, algbw {algbw:.2f} GB/s (all_reduce of "
            f"256 MiB over {world} GPUs: {gpu.name}, 20 iterations)",
            flush=True,
        )
    dist.destroy_process_group()
except Exception as err:
    fail(f"NCCL error: {type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}")
"""


def _nccl_script(runtime_class: str) -> str:
    """The shell around `torchrun`: its output kept, the cause repeated as the last line."""
    check = f"gpu-ci check {NCCL_CHECK}"
    return (
        f'echo "{check}: torchrun, {NCCL_GPUS} ranks, {NCCL_GPUS} nvidia.com/gpu, '
        f'runtimeClass {runtime_class or "none"}"\n'
        f"cat >/tmp/nccl_check.py <<'PY'\n{_NCCL_PY}PY\n"
        f"timeout {NCCL_RUN_S} torchrun --standalone --nproc-per-node {NCCL_GPUS} "
        "/tmp/nccl_check.py >/tmp/nccl.log 2>&1\n"
        "rc=$?\n"
        "tail -n 40 /tmp/nccl.log\n"
        'if [ "$rc" -eq 124 ]; then\n'
        f'  echo "{check}: FAILED (timeout: no result within {NCCL_RUN_S}s; a collective '
        'that hangs, see NCCL above)"\n'
        "  exit 1\n"
        "fi\n"
        'cause="$(grep -o "FAILED (.*" /tmp/nccl.log | head -n 1)"\n'
        'if [ "$rc" -ne 0 ]; then\n'
        f'  echo "{check}: ${{cause:-FAILED (NCCL error: torchrun exited $rc)}}"\n'
        "  exit 1\n"
        "fi\n"
        f'grep -q "^{BANDWIDTH_PREFIX}" /tmp/nccl.log || {{ echo "{check}: FAILED (no '
        'bandwidth line)"; exit 1; }\n'
        f'echo "{check}: passed"\n'
    )


def nccl_check(covers: Sequence[str], runtime_class: str = "") -> ClusterCheck:
    """Two ranks in one pod with two GPUs all-reduce over NCCL; rank 0 logs the bandwidth."""
    return ClusterCheck(
        name=NCCL_CHECK,
        kind="gpu-pod",
        summary=f"an NCCL all-reduce over {NCCL_GPUS} GPUs in one pod, its bus bandwidth logged",
        timeout_s=NCCL_TIMEOUT_S,
        covers=tuple(covers),
        image=CHECK_PINS.torch_image,
        command=("/bin/bash", "-c", _nccl_script(runtime_class)),
        gpus=NCCL_GPUS,
        runtime_class=runtime_class,
    )


def gpu_checks(
    expected: GpuExpectation | None,
    sharing: GpuSharing | None,
    covers: Sequence[str],
    runtime_class: str = "",
) -> tuple[list[ClusterCheck], dict[str, str]]:
    """The GPU checks for `expected` (none without an expectation), and those not run, why."""
    if expected is None:
        return [], {}
    checks = [gpu_count_check(expected, sharing, covers)]
    if not expected.multi:
        return checks, {}
    if expected.per_node < NCCL_GPUS:
        why = (
            f"no worker has {NCCL_GPUS} GPUs (each gets {expected.per_node}), so no pod can "
            "hold two; give one worker both (`gpus: all`), or test across nodes with a "
            "distributed TrainJob (examples/multi-gpu)"
        )
        return checks, {NCCL_CHECK: why}
    return [*checks, nccl_check(covers, runtime_class)], {}
