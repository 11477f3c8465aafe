"""The GPU checks (issue #32): `gpu-count`'s form (its verdicts on recorded Nodes are
Chainsaw's own, `chainsaw/test_runs.py`), and `nccl-all-reduce`'s script names each cause
(GPU count, NCCL error, timeout) and logs the bandwidth, run here with stand-ins for torch
and torchrun."""

from __future__ import annotations

import ast
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from components.pins import CHECK_PINS
from components.platform.checks.gpu_count import GPU_COUNT_CHECK, GpuExpectation
from components.platform.checks.jobs import check_job
from components.platform.checks.nccl_all_reduce import BANDWIDTH_PREFIX, NCCL_CHECK, NCCL_RUN_S
from components.platform.checks.plan import gpu_checks
from components.platform.releases.gpu_sharing import GpuSharing

COVERS = ("gpu-operator", "kubeflow-trainer")
TWO_ON_ONE = GpuExpectation(gpus=2, multi=True, per_node=2)
SHARED = GpuSharing("timeSlicing", 2, "gpu-operator", "devicePlugin.config", "cfg", "ts")
SHELLCHECK = Path(sys.executable).with_name("shellcheck")


def test_no_expectation_no_checks() -> None:
    assert gpu_checks(None, None, COVERS) == ([], {})


def test_the_count_is_a_chainsaw_check() -> None:
    (count,), _ = gpu_checks(GpuExpectation(2, multi=False, per_node=2), None, COVERS)
    assert count.name == GPU_COUNT_CHECK and count.kind == "chainsaw"
    assert count.summary == "the nodes advertise 2 nvidia.com/gpu"  # unshared: the GPUs alone


def test_a_shared_gpu_counts_its_replicas() -> None:
    (count,), _ = gpu_checks(GpuExpectation(1, multi=False, per_node=1), SHARED, COVERS)
    assert count.summary == "the nodes advertise 2 nvidia.com/gpu (1 GPUs x 2, timeSlicing)"
    assert "cluster-advertises-2-nvidia-gpu" in count.test  # the step a failure names


def test_the_count_reads_only_nodes_within_its_deadline() -> None:
    (count,), _ = gpu_checks(GpuExpectation(2, multi=False, per_node=2), None, COVERS)
    assert [(r.group, r.resource) for r in count.reads] == [("", "nodes")]
    assert count.covers == COVERS and count.timeout_s == count.worst_s + 60 == 240 + 60


def test_a_multi_gpu_expectation_adds_the_nccl_check_on_two_gpus() -> None:
    checks, not_run = gpu_checks(TWO_ON_ONE, None, COVERS)
    assert [c.name for c in checks] == [GPU_COUNT_CHECK, NCCL_CHECK] and not_run == {}
    nccl = checks[1]
    assert (nccl.kind, nccl.gpus, nccl.image) == ("gpu-pod", 2, CHECK_PINS.torch_image)
    assert re.fullmatch(r"pytorch/pytorch:[\w.-]+cuda12\.8[\w.-]*@sha256:[0-9a-f]{64}", nccl.image)
    pod = check_job(nccl, "gpu-ci-checks")["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert container["resources"] == {"limits": {"nvidia.com/gpu": 2}}
    assert container["volumeMounts"] == [{"name": "dshm", "mountPath": "/dev/shm"}]
    assert pod["volumes"] == [{"name": "dshm", "emptyDir": {"medium": "Memory"}}]


def test_one_gpu_per_worker_cannot_hold_the_nccl_pod() -> None:
    checks, not_run = gpu_checks(GpuExpectation(2, multi=True, per_node=1), None, COVERS)
    assert [c.name for c in checks] == [GPU_COUNT_CHECK]
    assert not_run[NCCL_CHECK].startswith("no worker has 2 GPUs (each gets 1)")


def test_a_one_gpu_check_pod_keeps_the_containers_own_shm() -> None:
    from components.platform.checks.plan import smoke_check

    pod = check_job(smoke_check(COVERS), "gpu-ci-checks")["spec"]["template"]["spec"]
    assert "volumes" not in pod and "volumeMounts" not in pod["containers"][0]


# -- the NCCL check's script, run with stand-ins -----------------------------------------
FAKE_TORCH = """
import os
_state = {"world": int(os.environ["WORLD_SIZE"])}
class _T:
    def __init__(self, n, v=1.0): self.n, self.v = n, v
    def fill_(self, v): self.v = v; return self
    def numel(self): return self.n
    def element_size(self): return 4
    def __eq__(self, other): return self.v == other
    def __getitem__(self, i): return self
    def item(self): return self.v
def ones(n, device=None): return _T(n)
def all(x): return x
def device(kind, index): return (kind, index)
class _Props:
    name = "NVIDIA A10"
    uuid = os.environ.get("FAKE_UUID", "GPU-1")
class cuda:
    @staticmethod
    def device_count(): return int(os.environ.get("FAKE_GPUS", "2"))
    @staticmethod
    def set_device(i): pass
    @staticmethod
    def get_device_properties(i): return _Props()
    @staticmethod
    def synchronize(): pass
"""
FAKE_DIST = """
import os
from torch import _state
def init_process_group(backend, timeout=None, device_id=None):
    if os.environ.get("FAKE_INIT_ERROR"):
        raise RuntimeError(os.environ["FAKE_INIT_ERROR"] + "\\nmore detail")
def all_gather_object(out, obj):
    for i in range(len(out)): out[i] = obj if os.environ.get("FAKE_SAME") else f"{obj}-{i}"
def all_reduce(x):
    x.v = x.v * _state["world"] * float(os.environ.get("FAKE_SCALE", "1"))
def destroy_process_group(): pass
"""


def _tool(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text("#!/bin/bash\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def run_script(
    tmp_path: Path, env: dict[str, str] | None = None, run_s: int = NCCL_RUN_S
) -> tuple[int, list[str]]:
    """The check's command with /tmp moved into `tmp_path`, its run cut to `run_s`, and a
    `torchrun` that starts rank 0 of 2 with the stand-in torch."""
    checks, _ = gpu_checks(TWO_ON_ONE, None, COVERS)
    shell, flag, script = checks[1].command
    assert (shell, flag) == ("/bin/bash", "-c")
    script = script.replace("/tmp/", f"{tmp_path}/").replace(
        f"timeout {NCCL_RUN_S} ", f"timeout {run_s} "
    )
    fakes = tmp_path / "fakes"
    (fakes / "torch").mkdir(parents=True)
    (fakes / "torch" / "__init__.py").write_text(FAKE_TORCH)
    (fakes / "torch" / "distributed.py").write_text(FAKE_DIST)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    env = env or {}
    hang = "sleep 30\n" if env.get("FAKE_HANG") else ""
    _tool(bin_dir, "torchrun", f'{hang}exec "{sys.executable}" "${{@: -1}}"\n')
    done = subprocess.run(
        ["/bin/bash", "-c", script],
        env={
            **os.environ,
            "PATH": f"{bin_dir}:{os.environ['PATH']}",
            "PYTHONPATH": str(fakes),
            "RANK": "0",
            "LOCAL_RANK": "0",
            "WORLD_SIZE": "2",
            **env,
        },
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    return done.returncode, done.stdout.splitlines()


def test_two_gpus_that_all_reduce_log_the_bandwidth_and_pass(tmp_path: Path) -> None:
    rc, lines = run_script(tmp_path)
    assert rc == 0, lines
    (bandwidth,) = [line for line in lines if line.startswith(BANDWIDTH_PREFIX)]
    assert re.fullmatch(
        BANDWIDTH_PREFIX + r"[0-9.]+ GB/s, algbw [0-9.]+ GB/s \(all_reduce of 256 MiB over 2 "
        r"GPUs: NVIDIA A10, 20 iterations\)",
        bandwidth,
    )
    assert lines[-1] == f"gpu-ci check {NCCL_CHECK}: passed"


@pytest.mark.parametrize(
    ("env", "cause"),
    [
        ({"FAKE_GPUS": "1"}, "GPU count: the pod sees 1 GPU(s), 2 asked for"),
        ({"FAKE_SAME": "1"}, "GPU count: 2 ranks on 1 physical GPU(s)"),
        (
            {"FAKE_INIT_ERROR": "ncclUnhandledCudaError"},
            "NCCL error: RuntimeError: ncclUnhandledCudaError)",
        ),
        ({"FAKE_SCALE": "0.5"}, "NCCL error: the all-reduce summed to 1.0, not 2"),
    ],
)
def test_a_failure_ends_the_log_with_its_cause(
    tmp_path: Path, env: dict[str, str], cause: str
) -> None:
    rc, lines = run_script(tmp_path, env)
    assert rc == 1
    assert lines[-1].startswith(f"gpu-ci check {NCCL_CHECK}: FAILED ({cause}"), lines[-1]
    assert not any(line.startswith(BANDWIDTH_PREFIX) for line in lines)


def test_a_collective_that_hangs_fails_as_a_timeout(tmp_path: Path) -> None:
    rc, lines = run_script(tmp_path, {"FAKE_HANG": "1"}, run_s=1)
    assert rc == 1
    assert lines[-1] == (
        f"gpu-ci check {NCCL_CHECK}: FAILED (timeout: no result within {NCCL_RUN_S}s; a "
        "collective that hangs, see NCCL above)"
    )


def test_the_script_is_bash_and_python_that_parse() -> None:
    checks, _ = gpu_checks(TWO_ON_ONE, None, COVERS)
    script = checks[1].command[-1]
    python = script.split("<<'PY'\n", 1)[1].split("\nPY\n", 1)[0]
    ast.parse(python)
    assert "torchrun --standalone --nproc-per-node 2" in script
    assert "busbw = algbw * 2 * (world - 1) / world" in python  # nccl-tests' all_reduce busbw
    if SHELLCHECK.exists():
        done = subprocess.run(
            [str(SHELLCHECK), "-s", "bash", "--severity=style", "-"],
            input=script,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stdout
