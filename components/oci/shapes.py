"""OCI GPU compute shapes the stack knows, as typed data.

The shape decides the GPU model and count that later layers check constraints against
(`GPU.info.type`) and that the default runner label is derived from. Figures are from the
"GPU shapes" tables of OCI's Compute Shapes documentation (docs.oracle.com, Compute >
Compute Shapes), read 2026-11. A shape that is not listed can still be used with
`gpu-ci:vm.allowUnlistedShape: true`, for shapes OCI adds after this table.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class GpuShape(BaseModel):
    """One fixed GPU shape: what a VM of it carries."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    gpuModel: str
    gpuCount: int
    gpuMemoryGb: int
    ocpus: int
    memoryGb: int

    @property
    def is_vm(self) -> bool:
        return self.name.startswith("VM.")


def _shape(name: str, model: str, gpus: int, gpu_mem: int, ocpus: int, mem: int) -> GpuShape:
    return GpuShape(
        name=name, gpuModel=model, gpuCount=gpus, gpuMemoryGb=gpu_mem, ocpus=ocpus, memoryGb=mem
    )


GPU_SHAPES: dict[str, GpuShape] = {
    s.name: s
    for s in (
        _shape("VM.GPU.A10.1", "A10", 1, 24, 15, 240),
        _shape("VM.GPU.A10.2", "A10", 2, 48, 30, 480),
        _shape("BM.GPU.A10.4", "A10", 4, 96, 64, 1024),
        _shape("VM.GPU2.1", "P100", 1, 16, 12, 72),
        _shape("BM.GPU2.2", "P100", 2, 32, 28, 192),
        _shape("VM.GPU3.1", "V100", 1, 16, 6, 90),
        _shape("VM.GPU3.2", "V100", 2, 32, 12, 180),
        _shape("VM.GPU3.4", "V100", 4, 64, 24, 360),
        _shape("BM.GPU3.8", "V100", 8, 128, 52, 768),
        _shape("BM.GPU4.8", "A100", 8, 320, 64, 2048),
        _shape("BM.GPU.A100-v2.8", "A100", 8, 640, 128, 2048),
        _shape("BM.GPU.L40S.4", "L40S", 4, 192, 112, 1024),
        _shape("BM.GPU.H100.8", "H100", 8, 640, 112, 2048),
    )
}
