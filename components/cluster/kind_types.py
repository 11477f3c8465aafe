"""kind's `Cluster` config (`kind.x-k8s.io/v1alpha4`) as typed data, and nvkind's GPU mounts.

Only the subset this project writes. nvkind (FIELD-NOTES §3) gives a worker GPUs through
extra mounts `hostPath: /dev/null, containerPath: /var/run/nvidia-container-devices/<index|all>`,
which the host's NVIDIA runtime turns into device requests.
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

KIND_API_VERSION: Final = "kind.x-k8s.io/v1alpha4"
GPU_DEVICE_DIR: Final = "/var/run/nvidia-container-devices"
"""Where nvkind's mounts name the GPUs a worker gets (nvkind `getNvidiaVisibleDevices`)."""
GPU_PRESENT_LABEL: Final = "nvidia.com/gpu.present"
"""Set on every GPU worker: without it the device plugin alone schedules nothing
(nvkind#20)."""

Propagation = Literal["None", "HostToContainer", "Bidirectional"]


class _KindModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class KindMount(_KindModel):
    """kind `Mount` (v1alpha4): a host path mounted into the node container."""

    hostPath: str
    containerPath: str
    readOnly: StrictBool | None = None
    propagation: Propagation | None = None


class KindNode(_KindModel):
    """kind `Node` (v1alpha4)."""

    role: Literal["control-plane", "worker"]
    image: str | None = None
    labels: dict[str, str] | None = None
    extraMounts: tuple[KindMount, ...] | None = None
    kubeadmConfigPatches: tuple[str, ...] | None = None


class KindNetworking(_KindModel):
    """kind `Networking` (v1alpha4)."""

    apiServerAddress: str | None = None
    apiServerPort: StrictInt | None = Field(None, ge=0, le=65535)
    podSubnet: str | None = None
    serviceSubnet: str | None = None


class KindCluster(_KindModel):
    """kind `Cluster` (`kind.x-k8s.io/v1alpha4`)."""

    kind: Literal["Cluster"]
    apiVersion: Literal["kind.x-k8s.io/v1alpha4"]
    name: str | None = None
    nodes: tuple[KindNode, ...] = ()
    networking: KindNetworking | None = None
