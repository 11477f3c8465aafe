"""The whole `gpu-ci:` config namespace of one stack.

Each field is one top-level key of `Pulumi.<stack>.yaml` (`gpu-ci:capacity`, `gpu-ci:vm`,
...). The stack's layers are chosen here: `capacity` picks how GPUs are provided (its keys
and their rules are `CapacityKeys`, capacity.py); the host, cluster and platform layers add
their own keys. Conditional requirements are field validators (fields are declared after
what they depend on) so that every problem in a config is reported in one pass, under its
own key. Each layer reads its part narrowed, with what validation guarantees in its types
(`stack_layers`, views.py).
"""

from __future__ import annotations

from pydantic import Field, ValidationInfo, field_validator

from components.cluster.api_server import kubeconfig_server
from components.cluster.cluster_config import NvkindClusterSpec
from components.cluster.errors import ClusterSpecError
from components.host.config.host import HostConfig
from components.host.config.runner import RunnerConfig
from components.observability.observability_config import ObservabilityConfig
from components.observability.queue_time_config import runner_repository
from components.oci.shapes import GPU_SHAPES
from components.platform.platform_config import PlatformConfig
from stacks.config.capacity import CapacityKeys
from stacks.config.gpu_layout import check_layout
from stacks.config.problems import KeyedError
from stacks.config.usage import Usage

NAMESPACE = "gpu-ci"
PLATFORM_CLUSTER_STACK = f"{NAMESPACE}:platform.clusterStack"
ARC_CLUSTER_STACK = f"{NAMESPACE}:arc.cluster.clusterStack"
"""The keys that read a cluster from another stack (`StackConfig.cluster_stacks`)."""


class StackConfig(CapacityKeys):
    """Validated stack config. Build it with `stacks.config.load_config`."""

    host: HostConfig | None = Field(
        None,
        description="default: none (no host layer); where the bootstrap steps run, and what "
        "they install",
    )
    runner: RunnerConfig | None = Field(
        None, description="register each `oci-vm` or `ssh` host as a GitHub self-hosted runner"
    )
    cluster: NvkindClusterSpec | None = Field(
        None, description="an nvkind GPU cluster on the (one) host"
    )
    usage: Usage = Field(
        default_factory=Usage, description="the GPU CI load the monthly cost estimate prices"
    )
    platform: PlatformConfig | None = Field(
        None,
        description="the recipe deployed onto the cluster (this stack's, ARC's or another stack's)",
    )
    observability: ObservabilityConfig = Field(
        default_factory=ObservabilityConfig,
        description="GPU and job metrics, Prometheus and the GPU CI dashboard",
    )

    @field_validator("host")
    @classmethod
    def _host_matches_capacity(
        cls, host: HostConfig | None, info: ValidationInfo
    ) -> HostConfig | None:
        capacity = info.data.get("capacity")
        if host is None or capacity is None:
            return host
        if host.target == "oci-vm" and capacity != "vm":
            raise ValueError(
                "target 'oci-vm' bootstraps the VMs this stack creates, but gpu-ci:capacity "
                f"is {capacity!r}; set gpu-ci:capacity to 'vm', or use target 'ssh' or 'local'"
            )
        if host.target != "oci-vm" and capacity == "vm":
            raise ValueError(
                f"target {host.target!r} with gpu-ci:capacity 'vm': the VMs this stack "
                "creates are bootstrapped with target 'oci-vm'; put other hosts in a stack "
                "of their own"
            )
        return host

    @field_validator("runner")
    @classmethod
    def _runner_has_a_host(
        cls, runner: RunnerConfig | None, info: ValidationInfo
    ) -> RunnerConfig | None:
        if runner is None or "host" not in info.data:
            return runner
        host = info.data["host"]
        if host is None:
            raise ValueError(
                "a runner is installed on a bootstrapped host: set gpu-ci:host "
                "(target 'oci-vm' for this stack's VMs, or 'ssh')"
            )
        if host.target == "local":
            raise ValueError(
                "target 'local' is the machine running `pulumi up`, typically already a CI "
                "runner; register runners on 'oci-vm' or 'ssh' hosts"
            )
        if runner.labels is None and host.target != "oci-vm":
            raise ValueError(
                "labels are required for an 'ssh' host (they default to the VM shape's "
                "label, like oracle-vm-gpu-a10-1, only for 'oci-vm')"
            )
        return runner

    @field_validator("cluster")
    @classmethod
    def _cluster_on_one_host(
        cls, cluster: NvkindClusterSpec | None, info: ValidationInfo
    ) -> NvkindClusterSpec | None:
        if cluster is None or "host" not in info.data:
            return cluster
        host, vm, network = info.data["host"], info.data.get("vm"), info.data.get("network")
        if host is None:
            raise ValueError(
                "an nvkind cluster runs on a bootstrapped host: set gpu-ci:host "
                "(target 'oci-vm', 'ssh' or 'local')"
            )
        if host.target == "ssh":
            _api_server_address(host.address, cluster.apiServerPort)
        check_layout(cluster, host, vm)  # its GPUs against the host's (gpu_layout.py)
        if host.target == "oci-vm" and vm is not None and vm.count != 1:
            raise ValueError(
                f"an nvkind cluster lives on one host, but gpu-ci:vm.count is {vm.count}; "
                "use count 1 (or one stack per cluster)"
            )
        if host.target == "oci-vm" and network is not None:
            if not network.apiSourceCidrs:
                raise ValueError(
                    "the Kubernetes API of a cluster on a VM is reached through the NSG: list "
                    "the deployers' CIDRs in gpu-ci:network.apiSourceCidrs"
                )
            if network.apiPort != cluster.apiServerPort:
                raise ValueError(
                    f"apiServerPort {cluster.apiServerPort} differs from "
                    f"gpu-ci:network.apiPort {network.apiPort}, which the NSG opens; use one port"
                )
        return cluster

    @field_validator("platform")
    @classmethod
    def _platform_has_a_cluster(
        cls, platform: PlatformConfig | None, info: ValidationInfo
    ) -> PlatformConfig | None:
        if platform is None or "cluster" not in info.data:
            return platform
        cluster, arc = info.data["cluster"], info.data.get("arc")
        on_arc = arc is not None or info.data.get("capacity") == "arc"
        if cluster is None and platform.clusterStack is None and not on_arc:
            raise ValueError(
                "the platform needs a cluster: set gpu-ci:cluster (this stack creates one), "
                "gpu-ci:arc.cluster (ARC's), or gpu-ci:platform.clusterStack (read one from "
                "another stack)"
            )
        if cluster is not None and platform.clusterStack is not None:
            raise ValueError(
                "clusterStack reads the cluster from another stack, but this stack creates "
                "one (gpu-ci:cluster); remove one of them"
            )
        if platform.accelerator is None and "vm" in info.data and not on_arc:
            vm = info.data["vm"]
            shape = GPU_SHAPES.get(vm.shape) if vm is not None else None
            if shape is None:
                raise ValueError(
                    "accelerator is required unless a listed VM shape gives the GPU model "
                    "(e.g. accelerator: a10)"
                )
            platform = platform.model_copy(update={"accelerator": shape.gpuModel.lower()})
        if platform.accelerator is None and on_arc and platform.clusterStack is None:
            pool = arc.cluster.oke.gpuPool if arc is not None and arc.cluster.oke else None
            shape = GPU_SHAPES.get(pool.shape) if pool is not None else None
            if shape is None and arc is not None:
                raise ValueError(
                    "accelerator is required unless the OKE GPU pool's listed shape gives "
                    "the GPU model (gpu-ci:arc.cluster.oke.gpuPool.shape; e.g. accelerator: a10)"
                )
            if shape is not None:
                platform = platform.model_copy(update={"accelerator": shape.gpuModel.lower()})
        return platform

    @field_validator("observability")
    @classmethod
    def _observability_has_a_cluster(
        cls, obs: ObservabilityConfig, info: ValidationInfo
    ) -> ObservabilityConfig:
        if "platform" not in info.data or "arc" not in info.data:
            return obs  # invalid themselves: their own problems say so
        platform, arc = info.data["platform"], info.data["arc"]
        if obs.enabled and platform is None and arc is None:
            raise ValueError(
                "enabled, but this stack deploys nothing onto a cluster (no gpu-ci:platform, "
                "no gpu-ci:arc): the metrics are scraped where the GPU operator or ARC runs "
                "(a VM runner without a cluster runs no GPU exporter); set one, or enable "
                "observability in the stack that deploys onto the cluster"
            )
        _queue_time_has_runners(obs, arc, info)
        on = obs.enabled if obs.enabled is not None else (platform is not None or arc is not None)
        if on and arc is not None and arc.controller.metrics is False:
            raise ValueError(
                "on, but gpu-ci:arc.controller.metrics is false: the job metrics come from "
                "ARC's listeners, which serve them only where the controller's metrics are on; "
                "remove gpu-ci:arc.controller.metrics (it follows observability) or set "
                "gpu-ci:observability.enabled: false"
            )
        return obs

    @property
    def observability_on(self) -> bool:
        """Whether the stack deploys its metrics (default: when it deploys onto a cluster)."""
        if self.observability.enabled is not None:
            return self.observability.enabled
        return self.platform is not None or self.arc is not None

    def cluster_stacks(self) -> dict[str, str]:
        """The stack each set `clusterStack` key names, by its full key (platform first)."""
        stacks = {}
        if self.platform is not None and self.platform.clusterStack is not None:
            stacks[PLATFORM_CLUSTER_STACK] = self.platform.clusterStack
        if self.arc is not None and self.arc.cluster.clusterStack is not None:
            stacks[ARC_CLUSTER_STACK] = self.arc.cluster.clusterStack
        return stacks

    def referenced_stacks(self) -> list[str]:
        """Other stacks this stack reads through StackReferences: each once, in key order."""
        return list(dict.fromkeys(self.cluster_stacks().values()))


def _queue_time_has_runners(obs: ObservabilityConfig, arc: object, info: ValidationInfo) -> None:
    """The queue-time exporter reads GitHub with the runners' App: ARC's scale sets', else the
    VM runners' (gpu-ci:runner), whose installation must reach repositories: an enterprise's
    does not (GitHub docs, `apps/using-github-apps/installing-a-github-app-on-your-enterprise`:
    no organization or repository permissions). A runner key that is invalid itself says so
    on its own."""
    if arc is not None or "runner" not in info.data:
        return
    runner: RunnerConfig | None = info.data["runner"]
    queue = obs.queueTime
    if queue.enabled and runner is None:
        raise ValueError(
            "queueTime.enabled, but this stack runs no ARC (gpu-ci:arc) and registers no VM "
            "runner (gpu-ci:runner): the queue-time exporter reads GitHub with their GitHub "
            "App; remove queueTime.enabled or deploy it from the stack with the runners"
        )
    if queue.enabled and runner is not None and runner.scope == "enterprise":
        raise ValueError(
            f"queueTime.enabled, but the VM runners register at {runner.url}, an enterprise: "
            "their GitHub App's installation there reaches no repository's workflow runs "
            "(GitHub grants an enterprise installation enterprise permissions only); remove "
            "queueTime.enabled"
        )
    repository = runner_repository(runner.url) if runner is not None else None
    if runner is None or repository is None or queue.enabled is False:
        return
    listed = [r for r in queue.repositories if r.casefold() != repository.casefold()]
    if listed:
        raise ValueError(
            f"queueTime.repositories lists {listed}, but the VM runners register at "
            f"{runner.url} and take only its jobs; remove queueTime.repositories (it is "
            f"{repository} already)"
        )


def _api_server_address(address: str, port: int) -> None:
    """The rule the nvkind-cluster step applies to the address clients reach the cluster
    at (here `gpu-ci:host.address`), checked before anything registers."""
    try:
        kubeconfig_server(address, port)
    except ClusterSpecError:
        what = "an IPv6 address" if ":" in address else "no address clients can reach"
        raise KeyedError(
            "host.address",
            f"is {what}, and the nvkind cluster's API server is reached at it: the "
            "nvkind-cluster step (its certificate and kubeconfig) takes an IPv4 address or "
            "a DNS name only, and would refuse it after the whole bootstrap; set "
            "gpu-ci:host.address to the host's IPv4 address or DNS name",
            address,
        ) from None
