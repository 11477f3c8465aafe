"""Step verify: GPUs on the host and inside a container, reported as a JSON line."""

from __future__ import annotations

import json

from components.host.params.bootstrap import VerifyParams
from components.host.params.step import Step

from .sandbox import Sandbox

A10 = ("NVIDIA A10", "GPU-9b2e1f4c-0000-1111-2222-333344445555")


def test_happy_path_reports_gpus(sandbox: Sandbox) -> None:
    sandbox.gpus(A10, ("NVIDIA A10", "GPU-second"), driver="570.172.08")
    run = sandbox.run(Step.VERIFY, sandbox.params(VerifyParams, verify_image="ubuntu:22.04"))
    assert run.returncode == 0, run.stderr
    assert run.calls == [
        "nvidia-smi -L",
        "nvidia-smi --query-gpu=driver_version --format=csv,noheader",
        "docker run --rm -v /dev/null:/var/run/nvidia-container-devices/all ubuntu:22.04 "
        "nvidia-smi -L",
    ]
    last = json.loads(run.stdout.splitlines()[-1])
    assert last == {
        "step": "verify",
        "changed": False,
        "driverVersion": "570.172.08",
        "gpus": [
            {"index": 0, "name": "NVIDIA A10", "uuid": A10[1]},
            {"index": 1, "name": "NVIDIA A10", "uuid": "GPU-second"},
        ],
        "containerGpuCount": 2,
    }
    assert [g.uuid for g in run.result().gpus] == [A10[1], "GPU-second"]


def test_no_driver_fails(sandbox: Sandbox) -> None:
    run = sandbox.run(Step.VERIFY, sandbox.params(VerifyParams))
    assert run.returncode != 0
    assert "gpu-ci step verify: nvidia-smi -L failed on the host" in run.stderr
    assert "docker" not in run.commands()


def test_no_gpu_fails(sandbox: Sandbox) -> None:
    sandbox.gpus()
    run = sandbox.run(Step.VERIFY, sandbox.params(VerifyParams))
    assert run.returncode != 0
    assert "gpu-ci step verify:" in run.stderr
    assert "No devices were found" in run.stderr
    assert run.stdout == ""


def test_no_gpu_in_container_fails(sandbox: Sandbox) -> None:
    sandbox.gpus(A10)
    sandbox.put("container-gpus", "")
    run = sandbox.run(Step.VERIFY, sandbox.params(VerifyParams))
    assert run.returncode != 0
    assert "gpu-ci step verify: GPU container check failed" in run.stderr


def test_container_runtime_error_fails(sandbox: Sandbox) -> None:
    sandbox.gpus(A10)
    sandbox.put("docker-run-fail", "docker: Error response from daemon: unknown runtime\n")
    run = sandbox.run(Step.VERIFY, sandbox.params(VerifyParams))
    assert run.returncode != 0
    assert "unknown runtime" in run.stderr
    assert "gpu-ci step verify:" in run.stderr


def test_fewer_gpus_in_container_fails(sandbox: Sandbox) -> None:
    sandbox.gpus(A10, ("NVIDIA A10", "GPU-second"))
    sandbox.put("container-gpus", f"{A10[0]}|{A10[1]}\n")
    run = sandbox.run(Step.VERIFY, sandbox.params(VerifyParams))
    assert run.returncode != 0
    assert "gpu-ci step verify: container sees 1 GPU(s), host has 2" in run.stderr


def test_expected_gpu_count(sandbox: Sandbox) -> None:
    sandbox.gpus(A10)
    run = sandbox.run(Step.VERIFY, sandbox.params(VerifyParams, expected_gpus=2))
    assert run.returncode != 0
    assert "gpu-ci step verify: expected 2 GPU(s), found 1" in run.stderr


def test_gpu_name_with_quote_is_escaped(sandbox: Sandbox) -> None:
    sandbox.gpus(('Weird "GPU" \\ 1', "GPU-x"))
    run = sandbox.run(Step.VERIFY, sandbox.params(VerifyParams))
    assert run.returncode == 0, run.stderr
    assert run.result().gpus[0].name == 'Weird "GPU" \\ 1'
