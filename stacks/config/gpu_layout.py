"""The cluster's GPU layout against its host's GPUs: rules across `cluster`, `host`, `vm`.

A layout is checked where the host's size is known: a listed VM shape's GPU count
(`components/oci/shapes.py`) or `host.gpus`. Each refusal names the key to change and the
fix, before anything registers; the render of the kind config (`kind_config.nvkind_layout`)
keeps its own check for callers without a stack.
"""

from __future__ import annotations

from dataclasses import dataclass

from components.cluster.cluster_config import NvkindClusterSpec
from components.host.config.host import HostConfig, OciVmHost
from components.oci.shapes import GPU_SHAPES
from components.oci.vm_config import VmCapacityConfig
from stacks.config.problems import KeyedError


@dataclass(frozen=True)
class HostGpus:
    """The GPUs of the cluster's host, and where that count comes from (for messages)."""

    count: int | None
    source: str
    """`VM.GPU.A10.1 (gpu-ci:vm.shape)` or `gpu-ci:host.gpus` (an unlisted shape: unknown)."""
    model: str = ""
    """The listed shape's GPU model (oci-vm only), whose VM shapes a refusal suggests."""


def vm_shape_with(model: str, wanted: int) -> str:
    """The listed VM shape of GPU `model` with the fewest GPUs that still has `wanted`, or ""
    where none has (bare metal is a different host, not a `vm.shape` to swap in)."""
    enough = [
        s for s in GPU_SHAPES.values() if s.is_vm and s.gpuModel == model and s.gpuCount >= wanted
    ]
    return min(enough, key=lambda s: s.gpuCount).name if enough else ""


def host_gpus(host: HostConfig, vm: VmCapacityConfig | None) -> HostGpus:
    """What the config says of the host's GPU count (`stacks.layers.host.host_gpus` reads
    the same two sources for the host steps)."""
    if not isinstance(host, OciVmHost):
        if host.gpus is None:
            return HostGpus(None, "the host (gpu-ci:host.gpus unset)")
        return HostGpus(host.gpus, "gpu-ci:host.gpus")
    if vm is None:
        return HostGpus(None, "the VMs (gpu-ci:vm unset)")
    shape = GPU_SHAPES.get(vm.shape)
    if shape is None:
        return HostGpus(None, f"the unlisted shape {vm.shape} (gpu-ci:vm.shape)")
    return HostGpus(shape.gpuCount, f"{vm.shape} (gpu-ci:vm.shape)", shape.gpuModel)


def _gpus(count: int) -> str:
    return f"{count} GPU" + ("" if count == 1 else "s")


def _instead(host: HostGpus, wanted: int) -> str:
    """The host-side fix for a layout that wants `wanted` GPUs."""
    if host.model:
        if shape := vm_shape_with(host.model, wanted):
            return f"use a shape with {_gpus(wanted)} (gpu-ci:vm.shape: {shape})"
        return f"use a host with more GPUs (no listed {host.model} VM shape has {_gpus(wanted)})"
    return "raise gpu-ci:host.gpus if the host has more"  # the only other known count


def check_layout(cluster: NvkindClusterSpec, host: HostConfig, vm: VmCapacityConfig | None) -> None:
    """Refuse a layout the host cannot carry, or an expectation it cannot meet: raises
    ValueError (at `gpu-ci:cluster`) or KeyedError (at the sub-key to fix)."""
    if isinstance(host, OciVmHost) and vm is None:
        return  # gpu-ci:vm is invalid itself: its own problem says so
    have = host_gpus(host, vm)
    if cluster.gpus == "one-per-gpu" and have.count is None:
        if isinstance(host, OciVmHost):
            raise ValueError(
                "gpus: one-per-gpu needs the host's GPU count, which gpu-ci does not know "
                f"for {have.source}; list each worker's GPU indexes (gpus: [[0], [1]])"
            )
        raise ValueError(
            "gpus: one-per-gpu needs the host's GPU count: set gpu-ci:host.gpus, or list "
            "each worker's GPU indexes (gpus: [[0], [1]])"
        )
    if have.count is not None and (beyond := cluster.gpu_beyond(have.count)):
        worker, index = beyond
        raise KeyedError(
            "cluster.gpus",
            f"worker {worker} is given GPU {index}, but the host has {_gpus(have.count)} "
            f"(indexes 0-{have.count - 1}), from {have.source}; "
            f"{_instead(have, index + 1)}, or give each worker indexes below {have.count}",
            [list(w) for w in cluster.gpus],
        )
    expect, layout = cluster.expectGpus, cluster.layout_gpus(have.count)
    if expect is None or layout is None or expect == layout:
        return
    given = cluster.gpus if isinstance(cluster.gpus, str) else [list(w) for w in cluster.gpus]
    gives = f"gpus: {given} gives the cluster {_gpus(layout)} on {have.source}"
    if expect > layout:
        fixes = ["lower expectGpus"]
        if have.count is not None and expect > have.count:
            fixes.insert(0, _instead(have, expect))
        if not isinstance(cluster.gpus, str) and (have.count is None or have.count > layout):
            fixes.insert(0, "list more GPU indexes")
        raise KeyedError(
            "cluster.expectGpus",
            f"expects {_gpus(expect)}, but {gives}; {', or '.join(fixes)}",
            expect,
        )
    raise KeyedError(
        "cluster.expectGpus",
        f"expects {_gpus(expect)}, but {gives}, which the GPU-count check would find; remove "
        f"expectGpus (it follows the layout) or set it to {layout}",
        expect,
    )
