"""An oracle of nvkind and of the nvkind-cluster step: how they read a rendered kind config.

Tests parse a kind config (ours, or one nvkind's upstream templates render), read the GPUs
each worker gets as nvkind does, ask plain nvkind for the same layout, and substitute the
host's address as the step's shell does. Test code only: nothing deployed runs it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from components.cluster.api_server import (
    API_SERVER_ADDRESS_PLACEHOLDER,
    LOCAL_SANS,
    check_api_address,
)
from components.cluster.cluster_config import NvkindClusterSpec
from components.cluster.kind_config import nvkind_layout
from components.cluster.kind_types import GPU_DEVICE_DIR, KindCluster, KindNode
from core import yaml_text


def parse_kind_config(text: str) -> KindCluster:
    """A kind config (YAML text) checked against the typed model."""
    return KindCluster.model_validate(yaml_text.load(text))


def gpu_devices(node: KindNode) -> tuple[str, ...]:
    """The GPUs `node` gets, read from its mounts exactly as nvkind reads them."""
    return tuple(
        mount.containerPath.removeprefix(GPU_DEVICE_DIR + "/")
        for mount in node.extraMounts or ()
        if mount.hostPath == "/dev/null" and mount.containerPath.rsplit("/", 1)[0] == GPU_DEVICE_DIR
    )


def workers(cluster: KindCluster) -> tuple[KindNode, ...]:
    return tuple(node for node in cluster.nodes if node.role == "worker")


def worker_gpu_devices(cluster: KindCluster) -> tuple[tuple[str, ...], ...]:
    """Per worker, in order, the GPU device names nvkind will inject."""
    return tuple(gpu_devices(worker) for worker in workers(cluster))


class NvkindTemplateInput(BaseModel):
    """An upstream nvkind template and the values that give the same workers as a spec."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    template: str = Field(description="file name in nvkind's pkg/nvkind or examples/")
    values: dict[str, Any]
    numGPUs: int


def nvkind_equivalent(spec: NvkindClusterSpec, gpu_count: int) -> NvkindTemplateInput:
    """How plain nvkind would be asked for the same worker -> GPU layout."""
    layout = nvkind_layout(spec, gpu_count)
    base: dict[str, Any] = {"name": spec.name, "image": spec.node_image}
    if spec.gpus == "all":
        template, values = "default-config-template.yaml", {**base, "workers": [{"devices": "all"}]}
    elif spec.gpus == "one-per-gpu":
        template, values = "one-worker-per-gpu.yaml", base
    else:
        workers = [{"devices": [int(d) for d in devices]} if devices else {} for devices in layout]
        template, values = "explicit-gpus-per-worker.yaml", {**base, "workers": workers}
    return NvkindTemplateInput(template=template, values=values, numGPUs=gpu_count)


def bind_api_server_address(config: str, address: str) -> str:
    """`config` with the placeholder SAN replaced by `address` (the nvkind-cluster step's
    substitution): dropped when `address` is already a local SAN."""
    check_api_address(address)
    lines = []
    for line in config.splitlines(keepends=True):
        if API_SERVER_ADDRESS_PLACEHOLDER not in line:
            lines.append(line)
        elif address not in LOCAL_SANS:
            lines.append(line.replace(API_SERVER_ADDRESS_PLACEHOLDER, address))
    return "".join(lines)
