"""The NCCL check (issue #32): whether two of a multi-GPU cluster's GPUs can all-reduce.

`nccl-all-reduce` (a GPU pod), for a multi-GPU expectation (`cluster.expectGpus` of 2+):
`torchrun` starts two ranks in one pod given two GPUs; they check they hold two physical
GPUs (their UUIDs), all-reduce a 256 MiB tensor over NCCL, check the sum, and time 20 more.
Rank 0 logs `gpu-ci check nccl-all-reduce: busbw X GB/s, ...`: the bus bandwidth as
nccl-tests reports it (algbw x 2(n-1)/n for all_reduce, NVIDIA/nccl-tests
`doc/PERFORMANCE.md`), which the gpu-cluster action copies into the job summary. A failure
ends the log with its cause: `GPU count`, `NCCL error` or `timeout`.
"""

from __future__ import annotations

from collections.abc import Sequence

from components.pins import CHECK_PINS
from components.platform.checks.model import MARGIN_S, ClusterCheck

NCCL_CHECK = "nccl-all-reduce"
NCCL_GPUS = 2
NCCL_STARTUP_S = 600
"""Scheduling and pulling the PyTorch image (several GB) before the container starts."""
NCCL_RUN_S = 300
"""The run itself, from the container's start: past it, the check fails as a timeout."""
NCCL_TIMEOUT_S = NCCL_STARTUP_S + NCCL_RUN_S + MARGIN_S
"""The NCCL Job's deadline: its worst case (start, then the bounded run) plus the margin."""
BANDWIDTH_PREFIX = f"gpu-ci check {NCCL_CHECK}: busbw "
"""The log line the gpu-cluster action reads the bandwidth from."""


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
