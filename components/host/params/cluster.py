"""Parameters of the host steps that create, read, await and delete an nvkind cluster."""

from __future__ import annotations

from typing import Final, Self

from pydantic import Field, model_validator

from components.host.params.step import PLAIN_PATH_PATTERN, RootedParams

API_SERVER_ADDRESS_PLACEHOLDER: Final = "__GPU_CI_API_SERVER_ADDRESS__"
"""In a rendered kind config: the SAN nvkind-cluster replaces with $API_SERVER_ADDRESS
(the same constant as components.cluster.api_server's)."""

_CLUSTER_NAME = r"^[a-z0-9]([a-z0-9.-]{0,47}[a-z0-9])?$"
_NODE_IMAGE = r"^kindest/node:v[0-9]+\.[0-9]+\.[0-9]+(@sha256:[0-9a-f]{64})?$"


class _ClusterPaths(RootedParams):
    """Where a cluster's state lives: `statedir/<cluster_name>/` and its kubeconfig."""

    cluster_name: str = Field(pattern=_CLUSTER_NAME)
    statedir: str = Field("/var/lib/gpu-ci/nvkind", pattern=PLAIN_PATH_PATTERN)
    kubeconfig_path: str = Field(
        "",
        pattern=f"({PLAIN_PATH_PATTERN})|^$",
        description="where nvkind writes the admin kubeconfig; empty: statedir/NAME/kubeconfig",
    )
    use_sudo: bool = Field(True, description="run kind/nvkind as root (Docker needs it)")

    @model_validator(mode="before")
    @classmethod
    def _default_kubeconfig(cls, data: object) -> object:
        if isinstance(data, dict) and not data.get("kubeconfig_path") and data.get("cluster_name"):
            statedir = data.get("statedir") or cls.model_fields["statedir"].default
            data = {**data, "kubeconfig_path": f"{statedir}/{data['cluster_name']}/kubeconfig"}
        return data

    @classmethod
    def _of(cls, cluster: _ClusterPaths, *extra: str, **values: object) -> Self:
        """This step's parameters for exactly the cluster `cluster` describes: its retry
        settings, root, name, state folder, kubeconfig and sudo, plus `extra` fields."""
        fields = [*_CLUSTER_FIELDS, *extra]
        return cls.model_validate({**{f: getattr(cluster, f) for f in fields}, **values})


_CLUSTER_FIELDS = (
    "retry_attempts",
    "retry_base_seconds",
    "root",
    "cluster_name",
    "statedir",
    "kubeconfig_path",
    "use_sudo",
)


class NvkindClusterParams(_ClusterPaths):
    """Create (or adopt) the nvkind cluster described by `kind_config`.

    `kind_config` is `components.cluster.kind_config.render_kind_config`'s output. The
    host's address is read at run time from $API_SERVER_ADDRESS; the kubeconfig comes
    back (base64) in the result line only, so the caller marks stdout secret.
    """

    kind_config: str = Field(min_length=1)
    node_image: str = Field(pattern=_NODE_IMAGE)
    api_server_port: int = Field(6443, ge=1, le=65535)
    expected_gpus: int = Field(0, ge=0, description="0 accepts any non-zero count")

    @model_validator(mode="after")
    def _config_matches(self) -> Self:
        config = self.kind_config
        if "{{" in config:
            raise ValueError("kind_config contains '{{', which nvkind reads as a template")
        if config.count(API_SERVER_ADDRESS_PLACEHOLDER) != 1:
            raise ValueError(
                f"kind_config must name {API_SERVER_ADDRESS_PLACEHOLDER} once (a certSAN); "
                "render it with components.cluster.kind_config.render_kind_config"
            )
        lines = config.splitlines()
        if f"name: {self.cluster_name}" not in lines:
            raise ValueError(f"kind_config does not name cluster {self.cluster_name!r}")
        if f"  apiServerPort: {self.api_server_port}" not in lines:
            raise ValueError(f"kind_config does not set apiServerPort {self.api_server_port}")
        if f"  image: {self.node_image}" not in lines:
            raise ValueError(f"kind_config's nodes do not run {self.node_image}")
        return self


class NvkindClusterDeleteParams(_ClusterPaths):
    """Delete the cluster (`kind delete cluster`) and its state; a missing one is fine."""

    @classmethod
    def for_cluster(cls, cluster: _ClusterPaths, **values: object) -> NvkindClusterDeleteParams:
        """The deletion of exactly what `cluster` created."""
        return cls._of(cluster, **values)


class ClusterKubeconfigParams(_ClusterPaths):
    """Return the cluster's kubeconfig (base64, in the result line), read from the host.

    Changes nothing: its parameters are only the cluster's identity (name, paths, port),
    so its script changes with the cluster (or lib.sh), not with the nvkind-cluster step's
    routine re-runs, and the Kubernetes provider built on its output stays known at
    preview. The server is https://$API_SERVER_ADDRESS:`api_server_port`; the caller
    marks stdout secret.
    """

    api_server_port: int = Field(6443, ge=1, le=65535)

    @classmethod
    def for_cluster(cls, cluster: NvkindClusterParams, **values: object) -> ClusterKubeconfigParams:
        """The kubeconfig of exactly the cluster `cluster` created."""
        return cls._of(cluster, "api_server_port", **values)


class ClusterReadyParams(RootedParams):
    """Wait until every node is Ready and `expected_gpus` nvidia.com/gpu are allocatable.

    Runs after the platform layer installed the GPU operator or device plugin; on timeout
    it fails naming what is missing (nodes not Ready, no device-plugin pod, counts).
    """

    kubeconfig_path: str = Field(pattern=PLAIN_PATH_PATTERN, description="nvkind-cluster's")
    expected_gpus: int = Field(1, ge=1)
    timeout_seconds: int = Field(600, ge=1, le=7200)
    poll_seconds: int = Field(10, ge=1, le=600)
    use_sudo: bool = Field(True, description="read the root-owned kubeconfig as root")

    @classmethod
    def for_cluster(cls, cluster: _ClusterPaths, **values: object) -> ClusterReadyParams:
        """The wait for the cluster `cluster` created, through its on-host kubeconfig."""
        fields = ["retry_attempts", "retry_base_seconds", "root", "kubeconfig_path", "use_sudo"]
        return cls.model_validate({**{f: getattr(cluster, f) for f in fields}, **values})
