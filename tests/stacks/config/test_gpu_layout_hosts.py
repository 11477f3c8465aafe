"""The GPU layout rules (`stacks.config.gpu_layout`) on each kind of host, in-process: a
local or SSH host's count is `gpu-ci:host.gpus` (unknown when unset), an unlisted VM shape's
is unknown, and each refusal names the fix that host allows. test_multi_gpu_config.py has
the same rules through a whole preview."""

from __future__ import annotations

from typing import Any

import pytest

from components.cluster.cluster_config import NvkindClusterSpec
from components.host.config.host import HostConfig, LocalHost, OciVmHost, SshHost
from components.oci.vm_config import VmCapacityConfig
from stacks.config.gpu_layout import HostGpus, check_layout, host_gpus
from stacks.config.problems import KeyedError
from tests.stacks.stack_helpers import SSH_KEY

UNLISTED = VmCapacityConfig(
    shape="VM.GPU.A10.8", allowUnlistedShape=True, sshAuthorizedKeys=[SSH_KEY]
)
ONE_PER_GPU = "list each worker's GPU indexes (gpus: [[0], [1]])"


def _vm(shape: str) -> VmCapacityConfig:
    return VmCapacityConfig(shape=shape, sshAuthorizedKeys=[SSH_KEY])


def _check(host: HostConfig, vm: VmCapacityConfig | None = None, **cluster: Any) -> None:
    check_layout(NvkindClusterSpec(name="gpu-ci", **cluster), host, vm)


def _refusal(host: HostConfig, vm: VmCapacityConfig | None = None, **cluster: Any) -> str:
    with pytest.raises(KeyedError) as err:
        _check(host, vm, **cluster)
    return f"{err.value.key}: {err.value} [given: {err.value.given}]"


def test_each_host_says_where_its_gpu_count_comes_from() -> None:
    assert host_gpus(LocalHost(target="local"), None) == HostGpus(
        None, "the host (gpu-ci:host.gpus unset)"
    )
    assert host_gpus(
        SshHost(target="ssh", address="10.0.0.2", user="ci", gpus=2), None
    ) == HostGpus(2, "gpu-ci:host.gpus")
    assert host_gpus(OciVmHost(target="oci-vm"), None) == HostGpus(
        None, "the VMs (gpu-ci:vm unset)"
    )
    assert host_gpus(OciVmHost(target="oci-vm"), UNLISTED) == HostGpus(
        None, "the unlisted shape VM.GPU.A10.8 (gpu-ci:vm.shape)"
    )


def test_one_per_gpu_needs_a_known_count() -> None:
    with pytest.raises(ValueError) as local:
        _check(LocalHost(target="local"), gpus="one-per-gpu")
    assert str(local.value) == (
        "gpus: one-per-gpu needs the host's GPU count: set gpu-ci:host.gpus, or " + ONE_PER_GPU
    )
    with pytest.raises(ValueError) as unlisted:
        _check(OciVmHost(target="oci-vm"), UNLISTED, gpus="one-per-gpu")
    assert str(unlisted.value) == (
        "gpus: one-per-gpu needs the host's GPU count, which gpu-ci does not know for the "
        f"unlisted shape VM.GPU.A10.8 (gpu-ci:vm.shape); {ONE_PER_GPU}"
    )
    _check(LocalHost(target="local", gpus=2), gpus="one-per-gpu", expectGpus=2)


def test_without_a_valid_vm_the_layout_is_left_to_its_own_problem() -> None:
    _check(OciVmHost(target="oci-vm"), None, gpus=[[0], [9]], expectGpus=1)


def test_a_host_gpus_count_is_raised_where_the_layout_wants_more() -> None:
    host = LocalHost(target="local", gpus=2)
    assert _refusal(host, gpus=[[0], [2]]) == (
        "cluster.gpus: worker 1 is given GPU 2, but the host has 2 GPUs (indexes 0-1), from "
        "gpu-ci:host.gpus; raise gpu-ci:host.gpus if the host has more, or give each worker "
        "indexes below 2 [given: [[0], [2]]]"
    )
    assert _refusal(host, gpus=[[1]], expectGpus=3) == (
        "cluster.expectGpus: expects 3 GPUs, but gpus: [[1]] gives the cluster 1 GPU on "
        "gpu-ci:host.gpus; list more GPU indexes, or raise gpu-ci:host.gpus if the host has "
        "more, or lower expectGpus [given: 3]"
    )
    assert _refusal(host, gpus="one-per-gpu", expectGpus=1) == (
        "cluster.expectGpus: expects 1 GPU, but gpus: one-per-gpu gives the cluster 2 GPUs on "
        "gpu-ci:host.gpus, which the GPU-count check would find; remove expectGpus (it "
        "follows the layout) or set it to 2 [given: 1]"
    )


def test_a_host_of_unknown_size_takes_any_index_and_is_asked_for_more_indexes() -> None:
    _check(SshHost(target="ssh", address="10.0.0.2", user="ci"), gpus=[[0], [63]])
    assert _refusal(OciVmHost(target="oci-vm"), UNLISTED, gpus=[[0]], expectGpus=2) == (
        "cluster.expectGpus: expects 2 GPUs, but gpus: [[0]] gives the cluster 1 GPU on the "
        "unlisted shape VM.GPU.A10.8 (gpu-ci:vm.shape); list more GPU indexes, or lower "
        "expectGpus [given: 2]"
    )


def test_more_indexes_are_asked_for_only_where_the_host_has_them() -> None:
    host = OciVmHost(target="oci-vm")
    # every GPU of the shape listed: the shape, not the indexes, is what falls short
    assert _refusal(host, _vm("VM.GPU.A10.1"), gpus=[[0]], expectGpus=2) == (
        "cluster.expectGpus: expects 2 GPUs, but gpus: [[0]] gives the cluster 1 GPU on "
        "VM.GPU.A10.1 (gpu-ci:vm.shape); use a shape with 2 GPUs (gpu-ci:vm.shape: "
        "VM.GPU.A10.2), or lower expectGpus [given: 2]"
    )
    assert _refusal(host, _vm("VM.GPU.A10.2"), gpus=[[0]], expectGpus=3) == (
        "cluster.expectGpus: expects 3 GPUs, but gpus: [[0]] gives the cluster 1 GPU on "
        "VM.GPU.A10.2 (gpu-ci:vm.shape); list more GPU indexes, or use a host with more GPUs "
        "(no listed A10 VM shape has 3 GPUs), or lower expectGpus [given: 3]"
    )
    # the shape has the GPUs expected: only the indexes fall short
    assert _refusal(host, _vm("VM.GPU.A10.2"), gpus=[[0]], expectGpus=2) == (
        "cluster.expectGpus: expects 2 GPUs, but gpus: [[0]] gives the cluster 1 GPU on "
        "VM.GPU.A10.2 (gpu-ci:vm.shape); list more GPU indexes, or lower expectGpus [given: 2]"
    )
    _check(host, _vm("VM.GPU.A10.2"), gpus=[[0], [1]], expectGpus=2)
    _check(host, _vm("VM.GPU.A10.2"), gpus=[[1]])
