"""The GPU layout rules (`stacks.config.gpu_layout`) on the listed shapes other than A10
(components/oci/shapes.py): V100 VMs of 1, 2 and 4 GPUs, the A100 and H100 bare metal of 8.
The host's GPU count is the shape's; a shape too small is answered with the smallest VM
shape of the same GPU model that has as many GPUs as the layout wants, or, where no VM
shape has that many (bare metal, the biggest VM), a bigger host, saying none has."""

from __future__ import annotations

from typing import Any

import pytest

from components.cluster.cluster_config import NvkindClusterSpec
from components.host.config.host import OciVmHost
from components.oci.vm_config import VmCapacityConfig
from stacks.config.gpu_layout import HostGpus, check_layout, host_gpus, vm_shape_with
from stacks.config.problems import KeyedError
from tests.stacks.stack_helpers import SSH_KEY

HOST = OciVmHost(target="oci-vm")


def vm(shape: str) -> VmCapacityConfig:
    return VmCapacityConfig(shape=shape, sshAuthorizedKeys=[SSH_KEY])


@pytest.mark.parametrize(
    ("shape", "count", "model"),
    [
        ("VM.GPU3.1", 1, "V100"),
        ("VM.GPU3.4", 4, "V100"),
        ("BM.GPU3.8", 8, "V100"),
        ("BM.GPU.A100-v2.8", 8, "A100"),
        ("BM.GPU.H100.8", 8, "H100"),
        ("VM.GPU2.1", 1, "P100"),
        ("BM.GPU.L40S.4", 4, "L40S"),
    ],
)
def test_a_listed_shape_gives_its_gpu_count_and_model(shape: str, count: int, model: str) -> None:
    assert host_gpus(HOST, vm(shape)) == HostGpus(count, f"{shape} (gpu-ci:vm.shape)", model)


@pytest.mark.parametrize(
    ("model", "wanted", "shape"),
    [
        ("V100", 1, "VM.GPU3.1"),
        ("V100", 2, "VM.GPU3.2"),  # the fewest GPUs that suffice, not VM.GPU3.4
        ("V100", 3, "VM.GPU3.4"),  # no 3-GPU shape: the next one up
        ("V100", 4, "VM.GPU3.4"),
        ("V100", 5, ""),  # BM.GPU3.8 is bare metal: no VM shape has 5
        ("A10", 2, "VM.GPU.A10.2"),
        ("A10", 3, ""),  # BM.GPU.A10.4 only
        ("P100", 2, ""),  # BM.GPU2.2 only
        ("A100", 1, ""),  # bare metal only
    ],
)
def test_the_suggested_vm_shape_has_the_gpus_wanted(model: str, wanted: int, shape: str) -> None:
    assert vm_shape_with(model, wanted) == shape


def refusal(shape: str, **cluster: Any) -> tuple[str, str]:
    with pytest.raises(KeyedError) as err:
        check_layout(NvkindClusterSpec(name="gpu-ci", **cluster), HOST, vm(shape))
    return err.value.key, str(err.value)


def test_a_v100_worker_beyond_the_shape_is_pointed_at_the_next_vm_shape() -> None:
    assert refusal("VM.GPU3.1", gpus=[[0], [1]]) == (
        "cluster.gpus",
        "worker 1 is given GPU 1, but the host has 1 GPU (indexes 0-0), from VM.GPU3.1 "
        "(gpu-ci:vm.shape); use a shape with 2 GPUs (gpu-ci:vm.shape: VM.GPU3.2), or give "
        "each worker indexes below 1",
    )
    assert refusal("VM.GPU3.2", gpus="one-per-gpu", expectGpus=4) == (
        "cluster.expectGpus",
        "expects 4 GPUs, but gpus: one-per-gpu gives the cluster 2 GPUs on VM.GPU3.2 "
        "(gpu-ci:vm.shape); use a shape with 4 GPUs (gpu-ci:vm.shape: VM.GPU3.4), or lower "
        "expectGpus",
    )


def test_a_v100_worker_far_beyond_the_shape_is_pointed_at_a_shape_with_enough_gpus() -> None:
    assert refusal("VM.GPU3.1", gpus=[[0], [3]]) == (
        "cluster.gpus",
        "worker 1 is given GPU 3, but the host has 1 GPU (indexes 0-0), from VM.GPU3.1 "
        "(gpu-ci:vm.shape); use a shape with 4 GPUs (gpu-ci:vm.shape: VM.GPU3.4), or give "
        "each worker indexes below 1",
    )
    assert refusal("VM.GPU3.1", gpus="one-per-gpu", expectGpus=3) == (
        "cluster.expectGpus",
        "expects 3 GPUs, but gpus: one-per-gpu gives the cluster 1 GPU on VM.GPU3.1 "
        "(gpu-ci:vm.shape); use a shape with 3 GPUs (gpu-ci:vm.shape: VM.GPU3.4), or lower "
        "expectGpus",
    )


def test_a_layout_no_vm_shape_of_the_model_can_carry_says_so() -> None:
    assert refusal("VM.GPU3.1", gpus=[[0], [4]]) == (
        "cluster.gpus",
        "worker 1 is given GPU 4, but the host has 1 GPU (indexes 0-0), from VM.GPU3.1 "
        "(gpu-ci:vm.shape); use a host with more GPUs (no listed V100 VM shape has 5 GPUs), "
        "or give each worker indexes below 1",
    )
    assert refusal("VM.GPU3.2", gpus=[[0], [1]], expectGpus=6) == (
        "cluster.expectGpus",
        "expects 6 GPUs, but gpus: [[0], [1]] gives the cluster 2 GPUs on VM.GPU3.2 "
        "(gpu-ci:vm.shape); use a host with more GPUs (no listed V100 VM shape has 6 GPUs), "
        "or lower expectGpus",
    )


@pytest.mark.parametrize(("shape", "model"), [("BM.GPU4.8", "A100"), ("BM.GPU.H100.8", "H100")])
def test_an_eight_gpu_bare_metal_host_takes_eight_and_no_more(shape: str, model: str) -> None:
    check_layout(
        NvkindClusterSpec(name="gpu-ci", gpus="one-per-gpu", expectGpus=8), HOST, vm(shape)
    )
    check_layout(
        NvkindClusterSpec(name="gpu-ci", gpus=[[0, 1, 2, 3], [4, 5, 6, 7]]), HOST, vm(shape)
    )
    assert refusal(shape, gpus=[[0], [8]]) == (
        "cluster.gpus",
        f"worker 1 is given GPU 8, but the host has 8 GPUs (indexes 0-7), from {shape} "
        f"(gpu-ci:vm.shape); use a host with more GPUs (no listed {model} VM shape has 9 "
        "GPUs), or give each worker indexes below 8",
    )
    assert refusal(shape, expectGpus=4) == (
        "cluster.expectGpus",
        f"expects 4 GPUs, but gpus: all gives the cluster 8 GPUs on {shape} (gpu-ci:vm.shape), "
        "which the GPU-count check would find; remove expectGpus (it follows the layout) or "
        "set it to 8",
    )
