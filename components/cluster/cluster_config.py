"""`gpu-ci:cluster`: the nvkind GPU cluster a stack asks for, checked before any host exists.

Name, node image, workers and their GPUs, labels, mounts and API access, as typed data that
`kind_config.render_kind_config` turns into the kind config nvkind is given.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from components.cluster.api_server import DEFAULT_API_SERVER_PORT, is_address
from components.cluster.errors import ClusterSpecError
from components.cluster.kind_types import (
    GPU_DEVICE_DIR,
    GPU_PRESENT_LABEL,
    KindMount,
    Propagation,
)
from components.cluster.node_images import (
    NODE_IMAGE_PATTERN,
    check_node_image,
    default_node_image,
)
from components.pins import PINS

GpuIndex = Annotated[int, Field(ge=0, le=63)]

_LABEL_NAME = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$")
_DNS_LABEL = r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"
_DNS_SUBDOMAIN = re.compile(rf"^{_DNS_LABEL}(\.{_DNS_LABEL})*$")
# kubelet may only set these kubernetes.io / k8s.io labels on its own node
# (NodeRestriction); kind passes worker labels to kubelet, so others fail the join.
_KUBELET_LABEL_PREFIXES = ("kubelet.kubernetes.io/", "node.kubernetes.io/")
_KUBELET_LABELS = (
    "kubernetes.io/hostname",
    "kubernetes.io/arch",
    "kubernetes.io/os",
    "topology.kubernetes.io/region",
    "topology.kubernetes.io/zone",
)


def _check_label(key: str, value: str) -> None:
    prefix, _, name = key.rpartition("/")
    if (
        len(key) > 316
        or not _LABEL_NAME.fullmatch(name)
        or (prefix and (len(prefix) > 253 or not _DNS_SUBDOMAIN.fullmatch(prefix)))
    ):
        raise ClusterSpecError(
            f"workerLabels: {key!r} is not a Kubernetes label key ([prefix/]name, name up to "
            "63 of [A-Za-z0-9._-] starting and ending alphanumeric, prefix a DNS subdomain)"
        )
    if value and not _LABEL_NAME.fullmatch(value):
        raise ClusterSpecError(
            f"workerLabels: {key}={value!r} is not a label value (up to 63 of [A-Za-z0-9._-], "
            "starting and ending alphanumeric, or empty)"
        )
    if key == GPU_PRESENT_LABEL:
        raise ClusterSpecError(
            f'workerLabels: {GPU_PRESENT_LABEL} is set to "true" on every GPU worker by '
            "gpu-ci (the device plugin needs it, nvkind#20); remove it from workerLabels"
        )
    restricted = prefix == "kubernetes.io" or prefix.endswith((".kubernetes.io", ".k8s.io"))
    restricted = restricted or prefix == "k8s.io"
    if restricted and key not in _KUBELET_LABELS and not key.startswith(_KUBELET_LABEL_PREFIXES):
        raise ClusterSpecError(
            f"workerLabels: {key!r} is in a kubernetes.io/k8s.io namespace that a kubelet may "
            "not set on its own node (the node would fail to join); use your own prefix, "
            "e.g. gpu-ci.io/<name>, or node.kubernetes.io/<name>"
        )


def _absolute(field: str, value: str) -> str:
    if not value.startswith("/") or "\x00" in value or "{{" in value or "\n" in value:
        raise ClusterSpecError(f"extraMounts: {field} {value!r} must be an absolute path")
    return value


class ExtraMount(BaseModel):
    """A host path every worker gets (datasets, caches); GPUs are never mounted this way."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    hostPath: str = Field(description="an absolute path on the host")
    containerPath: str = Field(description="where each worker sees it (absolute)")
    readOnly: bool = Field(False, description="mount it read-only")
    propagation: Propagation | None = Field(None, description="mount propagation")

    @model_validator(mode="after")
    def _paths(self) -> Self:
        _absolute("hostPath", self.hostPath)
        _absolute("containerPath", self.containerPath)
        for field, path in (("hostPath", self.hostPath), ("containerPath", self.containerPath)):
            if ".." in path.split("/"):
                raise ClusterSpecError(
                    f"extraMounts: {field} {path!r} has a '..' segment, so it is not the "
                    "directory it names; give the path without '..'"
                )
            if path.strip("/") == "":
                effect = (
                    "mount the host's whole filesystem into every node"
                    if field == "hostPath"
                    else "cover each node's own root filesystem"
                )
                raise ClusterSpecError(
                    f"extraMounts: {field} {path!r} would {effect}; mount one directory, "
                    "such as /data/datasets"
                )
        container = self.containerPath.rstrip("/")
        if container == GPU_DEVICE_DIR or container.startswith(GPU_DEVICE_DIR + "/"):
            raise ClusterSpecError(
                f"extraMounts: containerPath {self.containerPath!r} is where nvkind requests "
                "GPUs; assign GPUs with `gpus` instead"
            )
        return self

    def kind(self) -> KindMount:
        return KindMount(
            hostPath=self.hostPath,
            containerPath=self.containerPath,
            readOnly=True if self.readOnly else None,
            propagation=self.propagation,
        )


GpuAssignment = Literal["all", "one-per-gpu"] | tuple[tuple[GpuIndex, ...], ...]


class NvkindClusterSpec(BaseModel):
    """One nvkind GPU cluster: name, node image, workers and their GPUs, API access.

    `gpus`:
      * `"all"` (nvkind's default): one worker that gets every GPU of the host;
      * `"one-per-gpu"`: one worker per host GPU (nvkind's one-worker-per-gpu example);
      * a list of GPU index lists, one per worker (nvkind's explicit-gpus-per-worker
        example): `[[0], [1, 2, 3]]`; an empty list is a CPU-only worker.
    `nodeImage` defaults to the pinned kind's default image; a tag the kind release
    published is completed with its digest (`node_image`).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)

    name: str = Field(
        "gpu-ci",
        description="the kind cluster; its nodes are `<name>-control-plane`, `<name>-worker[N]`",
    )
    nodeImage: str | None = Field(
        None,
        description="default: the pinned kind's default, by digest; "
        "`kindest/node:vX.Y.Z[@sha256:...]` of a minor that kind publishes",
    )
    kindVersion: str = Field(
        PINS.kind.version,
        description="the kind release whose node images `nodeImage` comes from (keep it the "
        "host's kind)",
    )
    gpus: GpuAssignment = Field(
        "all",
        description="`all`: one worker with every GPU; `one-per-gpu`: a worker each; or a "
        "list of GPU indexes per worker, `[[0], [1, 2]]`",
    )
    expectGpus: int | None = Field(
        None,
        ge=1,
        le=64,
        description="default: the GPUs `gpus` gives the workers (from the VM shape or "
        "`host.gpus`), waited for; set, the physical GPUs the cluster must advertise as "
        "`nvidia.com/gpu`, checked after deploying; 2+: also an NCCL all-reduce, and no "
        "time-slicing",
    )
    workerLabels: dict[str, str] = Field(
        default_factory=dict,
        description="every worker's node labels (GPU workers also get "
        '`nvidia.com/gpu.present: "true"`)',
    )
    extraMounts: tuple[ExtraMount, ...] = Field(
        (), description="host paths every worker gets (datasets, caches; never GPUs)"
    )
    apiServerAddress: Literal["0.0.0.0", "127.0.0.1"] = Field(
        "0.0.0.0",
        description="where the API server listens on the host (`127.0.0.1`: local clients only)",
    )
    apiServerPort: int = Field(
        DEFAULT_API_SERVER_PORT,
        ge=1,
        le=65535,
        description="the API server's port (on `oci-vm`: `network.apiPort`)",
    )
    certSANs: tuple[str, ...] = Field(
        (),
        description="extra names/IPs for the API server certificate (the host's address "
        "is added at deploy time)",
    )

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if len(value) > 49 or not re.fullmatch(r"[a-z0-9]([a-z0-9.-]*[a-z0-9])?", value):
            raise ClusterSpecError(
                f"name {value!r} is not a kind cluster name: use up to 49 of [a-z0-9.-], "
                "starting and ending alphanumeric (node names append -control-plane)"
            )
        return value

    @field_validator("gpus", mode="before")
    @classmethod
    def _gpus_shape(cls, value: object) -> object:
        if value in ("all", "one-per-gpu"):
            return value
        workers = value if isinstance(value, list | tuple) else None
        if workers is None or not all(
            isinstance(w, list | tuple)
            and all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i <= 63 for i in w)
            for w in workers
        ):
            raise ClusterSpecError(
                f'gpus: {value!r} is not "all" (one worker, every GPU), "one-per-gpu" or a '
                "list of GPU index lists, one per worker, such as [[0], [1, 2]] (indexes 0-63)"
            )
        return value

    @field_validator("gpus")
    @classmethod
    def _gpus(cls, value: GpuAssignment) -> GpuAssignment:
        if isinstance(value, str):
            return value
        if not value:
            raise ClusterSpecError(
                'gpus: an empty worker list gives no workers; use "all", "one-per-gpu" or a '
                "list of GPU index lists such as [[0], [1, 2]]"
            )
        owner: dict[int, int] = {}
        for worker, indexes in enumerate(value):
            for index in indexes:
                if index in owner:
                    where = (
                        f"twice to worker {worker}"
                        if owner[index] == worker
                        else f"to workers {owner[index]} and {worker}"
                    )
                    raise ClusterSpecError(
                        f"gpus: GPU {index} is assigned {where}; give each GPU to one worker"
                    )
                owner[index] = worker
        if not owner:
            raise ClusterSpecError(
                "gpus: no worker has a GPU; give at least one worker a GPU index list"
            )
        return value

    @field_validator("workerLabels")
    @classmethod
    def _labels(cls, value: dict[str, str]) -> dict[str, str]:
        for key, label in value.items():
            _check_label(key, label)
        return value

    @field_validator("certSANs")
    @classmethod
    def _sans(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for san in value:
            if not is_address(san):
                raise ClusterSpecError(f"certSANs: {san!r} is neither an IP address nor a DNS name")
        return value

    @model_validator(mode="after")
    def _node_image(self) -> Self:
        image = self.nodeImage or default_node_image(self.kindVersion)
        check_node_image(image, self.kindVersion, require_published=True)
        return self

    def layout_gpus(self, host_gpus: int | None) -> int | None:
        """The GPUs `gpus` gives the workers of a host with `host_gpus` (None: unknown):
        every one for `all` and `one-per-gpu`, the listed indexes otherwise."""
        if isinstance(self.gpus, str):
            return host_gpus
        return sum(len(worker) for worker in self.gpus)

    def expected_gpus(self, host_gpus: int | None) -> int | None:
        """The physical GPUs the cluster must advertise: `expectGpus`, else the layout's
        (None when neither is known: any non-zero count then)."""
        return self.expectGpus if self.expectGpus is not None else self.layout_gpus(host_gpus)

    def most_per_worker(self, host_gpus: int | None) -> int | None:
        """The most GPUs one worker gets (what one pod can ask for); None when unknown."""
        if self.gpus == "one-per-gpu":
            return 1
        if self.gpus == "all":
            return host_gpus
        return max(len(worker) for worker in self.gpus)

    def gpu_beyond(self, host_gpus: int) -> tuple[int, int] | None:
        """(worker, index) of the first listed GPU a host with `host_gpus` does not have."""
        if isinstance(self.gpus, str):
            return None
        return next(
            ((w, i) for w, indexes in enumerate(self.gpus) for i in indexes if i >= host_gpus),
            None,
        )

    @property
    def node_image(self) -> str:
        """The node image to run, pinned by digest when kind published its tag."""
        return check_node_image(
            self.nodeImage or default_node_image(self.kindVersion),
            self.kindVersion,
            require_published=True,
        )

    @property
    def kubernetes_version(self) -> str:
        """`v1.35.0`: the Kubernetes version the node image runs."""
        match = NODE_IMAGE_PATTERN.fullmatch(self.node_image)
        assert match is not None  # checked by the validator
        return match["version"]
