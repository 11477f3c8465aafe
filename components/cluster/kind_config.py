"""The kind `Cluster` config an nvkind GPU cluster is created from, rendered from its spec.

nvkind (FIELD-NOTES §3) renders a Go template over values into a kind `Cluster`. Here the
same config is rendered from a typed `NvkindClusterSpec` in Python, so it can be checked
(and golden-tested) before any host exists; nvkind then receives it as a
`--config-template` with no template directives, which its template engine passes through
unchanged. The host's address joins the certificate's SANs at deploy time (`api_server`).
"""

from __future__ import annotations

from typing import Final

import yaml

from components.cluster.api_server import API_SERVER_ADDRESS_PLACEHOLDER, LOCAL_SANS
from components.cluster.cluster_config import NvkindClusterSpec
from components.cluster.errors import ClusterSpecError
from components.cluster.kind_types import (
    GPU_DEVICE_DIR,
    GPU_PRESENT_LABEL,
    KIND_API_VERSION,
    KindCluster,
    KindMount,
    KindNetworking,
    KindNode,
)
from core import yaml_text


def nvkind_layout(spec: NvkindClusterSpec, gpu_count: int) -> tuple[tuple[str, ...], ...]:
    """Per worker, the GPUs nvkind gives it (`("all",)`, `("0",)`, `()` for CPU only).

    `gpu_count` is the number of GPUs on the host (nvkind's `numGPUs`).
    """
    if gpu_count < 1:
        raise ClusterSpecError(
            f"gpu_count {gpu_count}: the host has no GPU to give the cluster's workers; "
            "check the verify step (nvidia-smi -L) or the shape's GPU count"
        )
    if spec.gpus == "all":
        return (("all",),)
    if spec.gpus == "one-per-gpu":
        return tuple((str(index),) for index in range(gpu_count))
    if beyond := spec.gpu_beyond(gpu_count):
        worker, index = beyond
        raise ClusterSpecError(
            f"gpus: worker {worker} is given GPU {index}, but the host has {gpu_count} "
            f"GPU(s) (indexes 0-{gpu_count - 1}); fix the index lists in `gpus`"
        )
    return tuple(tuple(str(index) for index in indexes) for indexes in spec.gpus)


def _cert_sans_patch(extra: tuple[str, ...]) -> str:
    sans = list(dict.fromkeys((*LOCAL_SANS, API_SERVER_ADDRESS_PLACEHOLDER, *extra)))
    patch = {"kind": "ClusterConfiguration", "apiServer": {"certSANs": sans}}
    return yaml_text.dump(patch, sort_keys=False)


def kind_cluster(spec: NvkindClusterSpec, gpu_count: int) -> KindCluster:
    """The kind config of `spec` on a host with `gpu_count` GPUs, as the typed model."""
    image = spec.node_image
    workers = []
    for devices in nvkind_layout(spec, gpu_count):
        labels = dict(spec.workerLabels)
        mounts = [m.kind() for m in spec.extraMounts]
        if devices:
            labels[GPU_PRESENT_LABEL] = "true"
            mounts += [
                KindMount(hostPath="/dev/null", containerPath=f"{GPU_DEVICE_DIR}/{device}")
                for device in devices
            ]
        workers.append(
            KindNode(
                role="worker",
                image=image,
                labels=dict(sorted(labels.items())) or None,
                extraMounts=tuple(mounts) or None,
            )
        )
    control_plane = KindNode(
        role="control-plane",
        image=image,
        kubeadmConfigPatches=(_cert_sans_patch(spec.certSANs),),
    )
    return KindCluster(
        kind="Cluster",
        apiVersion=KIND_API_VERSION,
        name=spec.name,
        nodes=(control_plane, *workers),
        networking=KindNetworking(
            apiServerAddress=spec.apiServerAddress, apiServerPort=spec.apiServerPort
        ),
    )


class _Dumper(yaml_text.SafeDumper):  # type: ignore[misc,valid-type]
    """Block style; multi-line strings (kubeadm patches) as literal blocks."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)

HEADER: Final = (
    "# kind config for nvkind, rendered by gpu-ci (components/cluster/kind_config.py).\n"
    f"# GPUs reach workers as /dev/null mounts under {GPU_DEVICE_DIR}/ (nvkind).\n"
    "# The host's address joins the API server certificate's SANs at deploy time.\n"
)


def render_kind_config(spec: NvkindClusterSpec, gpu_count: int) -> str:
    """The kind config YAML for nvkind: deterministic, and parseable as `KindCluster`."""
    data = kind_cluster(spec, gpu_count).model_dump(mode="json", exclude_none=True)
    text = HEADER + yaml_text.dump(data, dumper=_Dumper, sort_keys=False, width=4096)
    if "{{" in text:  # nvkind would read it as a Go template directive
        raise ClusterSpecError("the rendered kind config contains '{{'; remove it from the spec")
    return text
