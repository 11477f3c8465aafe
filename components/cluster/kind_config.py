"""The kind `Cluster` config an nvkind GPU cluster is created from, as typed data.

nvkind (FIELD-NOTES §3) renders a Go template over values into a kind `Cluster`
(`kind.x-k8s.io/v1alpha4`) and gives a worker GPUs through extra mounts
`hostPath: /dev/null, containerPath: /var/run/nvidia-container-devices/<index|all>`, which
the host's NVIDIA runtime turns into device requests. Here the same config is rendered
from a typed `NvkindClusterSpec` in Python, so it can be checked (and golden-tested)
before any host exists; nvkind then receives it as a `--config-template` with no template
directives, which its template engine passes through unchanged.

Remote access: the API server listens on `apiServerAddress` (0.0.0.0 by default; the
network layer opens `apiPort` only to `apiSourceCidrs`), on `apiServerPort`, and a kubeadm
`ClusterConfiguration` patch adds the host's address to the serving certificate's SANs.
That address is known only at deploy time (a VM's public IP), so the rendered config
carries `API_SERVER_ADDRESS_PLACEHOLDER`, which the `nvkind-cluster` host step replaces
with `$API_SERVER_ADDRESS` (`bind_api_server_address` is the same substitution in Python).
"""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated, Any, Final, Literal, Self

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationError,
    field_validator,
    model_validator,
)

from components.pins import PINS
from core import yaml_text
from core.errors import GpuCiError

KIND_API_VERSION: Final = "kind.x-k8s.io/v1alpha4"
GPU_DEVICE_DIR: Final = "/var/run/nvidia-container-devices"
"""Where nvkind's mounts name the GPUs a worker gets (nvkind `getNvidiaVisibleDevices`)."""
GPU_PRESENT_LABEL: Final = "nvidia.com/gpu.present"
"""Set on every GPU worker: without it the device plugin alone schedules nothing
(nvkind#20)."""
API_SERVER_ADDRESS_PLACEHOLDER: Final = "__GPU_CI_API_SERVER_ADDRESS__"
"""Replaced at deploy time by the host's address (see the module docstring)."""
LOCAL_SANS: Final = ("localhost", "127.0.0.1")
"""Always in the API server certificate: kind's own SANs are replaced by the patch, and
the kubeconfig kept on the host talks to 127.0.0.1."""
DEFAULT_API_SERVER_PORT: Final = 6443

GpuIndex = Annotated[int, Field(ge=0, le=63)]
Propagation = Literal["None", "HostToContainer", "Bidirectional"]


class ClusterSpecError(GpuCiError, ValueError):
    """An nvkind cluster spec that cannot be rendered; the message names field and fix.

    Also a `ValueError`, so that inside a pydantic model (a stack config section) it
    becomes an ordinary validation problem at the right key.
    """


# --- kind's Cluster v1alpha4, the subset this project writes ----------------------------


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

    def gpu_devices(self) -> tuple[str, ...]:
        """The GPUs this node gets, read from its mounts exactly as nvkind reads them."""
        return tuple(
            mount.containerPath.removeprefix(GPU_DEVICE_DIR + "/")
            for mount in self.extraMounts or ()
            if mount.hostPath == "/dev/null"
            and mount.containerPath.rsplit("/", 1)[0] == GPU_DEVICE_DIR
        )


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

    @property
    def workers(self) -> tuple[KindNode, ...]:
        return tuple(node for node in self.nodes if node.role == "worker")

    def worker_gpu_devices(self) -> tuple[tuple[str, ...], ...]:
        """Per worker, in order, the GPU device names nvkind will inject."""
        return tuple(worker.gpu_devices() for worker in self.workers)


def parse_kind_config(text: str) -> KindCluster:
    """A kind config (YAML text) checked against the typed model."""
    return KindCluster.model_validate(yaml_text.load(text))


# --- node images per kind release ----------------------------------------------------------


class KindRelease(BaseModel):
    """The node images one kind release was published with."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: str = Field(pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$")
    default: str = Field(description="the Kubernetes version of kind's default node image")
    images: dict[str, str] = Field(
        description="Kubernetes version (vX.Y.Z) -> the image's sha256 digest (64 hex)"
    )
    source: str

    @property
    def minors(self) -> tuple[str, ...]:
        """`1.35`, `1.34`, ...: the Kubernetes minors this release builds images for."""
        return tuple(v.removeprefix("v").rsplit(".", 1)[0] for v in self.images)

    def image(self, kubernetes_version: str) -> str:
        return f"kindest/node:{kubernetes_version}@sha256:{self.images[kubernetes_version]}"


def _release(version: str, source: str, images: dict[str, str]) -> KindRelease:
    return KindRelease(version=version, default=next(iter(images)), images=images, source=source)


KIND_RELEASES: dict[str, KindRelease] = {
    r.version: r
    for r in (
        _release(
            "0.31.0",
            "kind v0.31.0 release notes, 'Images pre-built for this release' (the first is the "
            "default); the v1.35.0 digest is also quoted by many public kind pins",
            {
                "v1.35.0": "452d707d4862f52530247495d180205e029056831160e22870e37e3f6c1ac31f",
                "v1.34.3": "08497ee19eace7b4b5348db5c6a1591d7752b164530a36f855cb0f2bdcbadd48",
                "v1.33.7": "d26ef333bdb2cbe9862a0f7c3803ecc7b4303d8cea8e814b481b09949d353040",
                "v1.32.11": "5fc52d52a7b9574015299724bd68f183702956aa4a2116ae75a63cb574b35af8",
                "v1.31.14": "6f86cf509dbb42767b6e79debc3f2c32e4ee01386f0489b3b2be24b0a55aac2b",
            },
        ),
        _release(
            "0.30.0",
            "kind v0.30.0 release notes, 'Images pre-built for this release'",
            {
                "v1.34.0": "7416a61b42b1662ca6ca89f02028ac133a309a2a30ba309614e8ec94d976dc5a",
                "v1.33.4": "25a6018e48dfcaee478f4a59af81157a437f15e6e140bf103f85a2e7cd0cbbf2",
                "v1.32.8": "abd489f042d2b644e2d033f5c2d900bc707798d075e8186cb65e3f1367a9d5a1",
                "v1.31.12": "0f5cc49c5e73c0c2bb6e2df56e7df189240d83cf94edfa30946482eb08ec57d2",
            },
        ),
        _release(
            "0.29.0",
            "kind v0.29.0 release notes, 'Images pre-built for this release' (the Kubeflow GPU "
            "e2e's kindest/node:v1.33.1 is this release's default)",
            {
                "v1.33.1": "050072256b9a903bd914c0b2866828150cb229cea0efe5892e2b644d5dd3b34f",
                "v1.32.5": "e3b2327e3a5ab8c76f5ece68936e4cafaa82edf58486b769727ab0b3b97a5b0d",
                "v1.31.9": "b94a3a6c06198d17f59cca8c6f486236fa05e2fb359cbd75dabbfc348a10b211",
                "v1.30.13": "397209b3d947d154f6641f2d0ce8d473732bd91c87d9575ade99049aa33cd648",
            },
        ),
    )
}
"""kind release -> the node images published with it. kind's release notes: "You _must_ use
the @sha256 digest to guarantee an image built for this release"."""

_NODE_IMAGE = re.compile(
    r"^kindest/node:(?P<version>v(?P<major>0|[1-9][0-9]*)\.(?P<minor>0|[1-9][0-9]*)"
    r"\.(?:0|[1-9][0-9]*))(?:@(?P<digest>sha256:[0-9a-f]{64}))?$"
)


def kind_release(kind_version: str) -> KindRelease:
    """The node-image table of `kind_version` (`0.31.0`, with or without a leading v)."""
    version = kind_version.removeprefix("v")
    try:
        return KIND_RELEASES[version]
    except KeyError:
        raise ClusterSpecError(
            f"kindVersion {kind_version!r}: no node images are recorded for this kind "
            f"release (known: {', '.join(sorted(KIND_RELEASES))}); add its release notes' "
            "'Images pre-built for this release' to KIND_RELEASES in "
            "components/cluster/kind_config.py"
        ) from None


def default_node_image(kind_version: str = PINS.kind.version) -> str:
    """kind's default node image for `kind_version`, pinned by digest."""
    release = kind_release(kind_version)
    return release.image(release.default)


def check_node_image(
    node_image: str, kind_version: str = PINS.kind.version, *, require_published: bool = False
) -> str:
    """`node_image` pinned by digest when its tag is one `kind_version` published.

    Fails when the image is not `kindest/node:vX.Y.Z[@sha256:...]`, when its Kubernetes
    minor is not one `kind_version` builds images for, or when its digest differs from
    the published one. With `require_published` (a stack's config), a tag without a
    digest must be one a kind release in KIND_RELEASES published: another would fail the
    pull at apply, after the whole host bootstrap.
    """
    release = kind_release(kind_version)
    match = _NODE_IMAGE.fullmatch(node_image)
    if match is None:
        raise ClusterSpecError(
            f"nodeImage {node_image!r} is not kindest/node:vX.Y.Z[@sha256:<64 hex>]; use "
            f"e.g. {default_node_image(kind_version)!r} (kind v{release.version}'s default)"
        )
    version, digest = match["version"], match["digest"]
    minor = f"{match['major']}.{match['minor']}"
    if minor not in release.minors:
        supported = ", ".join(f"kindest/node:{v}" for v in release.images)
        raise ClusterSpecError(
            f"nodeImage {node_image!r} is Kubernetes {minor}, which the pinned kind "
            f"v{release.version} publishes no node image for; use one of {supported} "
            "(with its digest), or pin a kind release that supports it"
        )
    if version not in release.images:
        known = any(version in other.images for other in KIND_RELEASES.values())
        if require_published and digest is None and not known:
            same = [v for v in release.images if v.rsplit(".", 1)[0] == f"v{minor}"]
            raise ClusterSpecError(
                f"nodeImage {node_image!r}: no kind release publishes {version}, so the "
                f"pull would fail; use {release.image(same[0])!r} (kind v{release.version}'s "
                f"Kubernetes {minor}), or pin an image you built by its digest "
                f"(kindest/node:{version}@sha256:<64 hex>)"
            )
        return node_image
    pinned = release.image(version)
    published = f"sha256:{release.images[version]}"
    if digest is not None and digest != published:
        raise ClusterSpecError(
            f"nodeImage {node_image!r}: kind v{release.version} published {version} as "
            f"{published}; use {pinned!r} (another digest is an image built for a different "
            "kind release)"
        )
    return pinned


# --- the typed spec ----------------------------------------------------------------------

_LABEL_NAME = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$")
_DNS_LABEL = r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"
_DNS_SUBDOMAIN = re.compile(rf"^{_DNS_LABEL}(\.{_DNS_LABEL})*$")
_HOSTNAME = re.compile(
    r"^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$"
)
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
            if not _is_address(san):
                raise ClusterSpecError(f"certSANs: {san!r} is neither an IP address nor a DNS name")
        return value

    @model_validator(mode="after")
    def _node_image(self) -> Self:
        image = self.nodeImage or default_node_image(self.kindVersion)
        check_node_image(image, self.kindVersion, require_published=True)
        return self

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
        match = _NODE_IMAGE.fullmatch(self.node_image)
        assert match is not None  # checked by the validator
        return match["version"]


def cluster_spec(data: dict[str, Any] | None = None, **values: Any) -> NvkindClusterSpec:
    """`NvkindClusterSpec` from `data`/`values`; any problem raises `ClusterSpecError`."""
    try:
        return NvkindClusterSpec.model_validate({**(data or {}), **values})
    except ValidationError as err:
        problems = []
        for error in err.errors(include_url=False):
            cause = error.get("ctx", {}).get("error")
            message = str(cause) if isinstance(cause, ClusterSpecError) else error["msg"]
            where = ".".join(str(part) for part in error["loc"])
            if where and not message.startswith(where.split(".")[0]):
                message = f"{where}: {message}"
            problems.append(message)
        raise ClusterSpecError("; ".join(problems)) from None


# --- layout and rendering ------------------------------------------------------------------


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
    for worker, indexes in enumerate(spec.gpus):
        for index in indexes:
            if index >= gpu_count:
                raise ClusterSpecError(
                    f"gpus: worker {worker} is given GPU {index}, but the host has {gpu_count} "
                    f"GPU(s) (indexes 0-{gpu_count - 1}); fix the index lists in `gpus`"
                )
    return tuple(tuple(str(index) for index in indexes) for indexes in spec.gpus)


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


# --- the deploy-time address -----------------------------------------------------------------


def _is_address(value: str) -> bool:
    """An IP address, or a DNS name (digits and dots alone must be a valid IPv4)."""
    try:
        ipaddress.ip_address(value)
    except ValueError:
        if re.fullmatch(r"[0-9.]+", value):
            return False
        return len(value) <= 253 and _HOSTNAME.fullmatch(value) is not None
    return True


def _check_api_address(address: str) -> None:
    if address in ("0.0.0.0", "") or not _is_address(address) or ":" in address:
        raise ClusterSpecError(
            f"API server address {address!r} is not an IPv4 address or DNS name clients can "
            "reach (the host's public IP, or 127.0.0.1 on the local machine)"
        )


def bind_api_server_address(config: str, address: str) -> str:
    """`config` with the placeholder SAN replaced by `address` (the nvkind-cluster step's
    substitution): dropped when `address` is already a local SAN."""
    _check_api_address(address)
    lines = []
    for line in config.splitlines(keepends=True):
        if API_SERVER_ADDRESS_PLACEHOLDER not in line:
            lines.append(line)
        elif address not in LOCAL_SANS:
            lines.append(line.replace(API_SERVER_ADDRESS_PLACEHOLDER, address))
    return "".join(lines)


def kubeconfig_server(address: str, port: int) -> str:
    """The API server URL a kubeconfig for a client elsewhere uses."""
    _check_api_address(address)
    return f"https://{address}:{port}"
