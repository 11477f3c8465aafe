"""Each layer's part of the stack config, narrowed: what validation guarantees, as types.

`StackConfig` keeps its keys optional, as a stack file has them; its validators make sure of
each combination a layer relies on (`capacity: vm` has a compartment and an owner, an
`oci-vm` host has this stack's VMs, a runner or a cluster has a host). `stack_layers`
decides, once, which layers the stack runs (`stacks.compose.prepare`) and gives each its
config with those guarantees in the types, so that no layer narrows an optional key itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from components.arc.capacity_config import ArcConfig
from components.cluster.cluster_config import NvkindClusterSpec
from components.host.config.host import HostConfig, LocalHost, OciVmHost, SshHost
from components.host.config.runner import RunnerConfig
from components.observability.observability_config import ObservabilityConfig
from components.oci.network_config import NetworkConfig
from components.oci.vm_config import VmCapacityConfig
from components.platform.checks.gpu_count import GpuExpectation
from components.platform.platform_config import PlatformConfig
from stacks.config.gpu_layout import host_gpus
from stacks.config.stack import NAMESPACE, StackConfig

_T = TypeVar("_T")


@dataclass(frozen=True)
class OciTarget:
    """Where a layer's OCI resources go, and who pays for them (their `gpu-ci-owner` tag)."""

    compartment_id: str
    owner: str
    network: NetworkConfig


@dataclass(frozen=True)
class VmLayerConfig:
    """`capacity: vm`: the GPU VMs, in their network and compartment."""

    vm: VmCapacityConfig
    oci: OciTarget
    tenancy_id: str | None
    """Where the capacity reports that pick an AD are made (when several are listed)."""


@dataclass(frozen=True)
class ArcLayerConfig:
    """`capacity: arc`: ARC's controller, its cluster and the runner scale sets."""

    arc: ArcConfig
    oci: OciTarget | None
    """Where the network goes, when ARC needs one (OKE, or launched VMs without a subnet of
    their own), and the OKE cluster in it."""
    compartment_id: str | None
    """The compartment of launched VMs that name none of their own."""
    metrics: bool
    """Whether the controller and the listeners serve metrics (default: observability's)."""


@dataclass(frozen=True)
class VmHosts:
    """`host.target: oci-vm`: each VM of this stack's capacity layer, bootstrapped alike."""

    host: OciVmHost
    vm: VmCapacityConfig


HostTarget = VmHosts | SshHost | LocalHost
"""The machines the host layer bootstraps: this stack's VMs, one SSH host, or this one."""


@dataclass(frozen=True)
class HostLayerConfig:
    """`host`: the bootstrap of each machine, and the runner registered on it (if any)."""

    target: HostTarget
    runner: RunnerConfig | None

    @property
    def host(self) -> HostConfig:
        """The host config, as every target has it (versions, arch, cdi)."""
        return self.target.host if isinstance(self.target, VmHosts) else self.target


@dataclass(frozen=True)
class ClusterLayerConfig:
    """`cluster`: an nvkind cluster on the host layer's (one) host."""

    spec: NvkindClusterSpec
    hosts: HostLayerConfig

    @property
    def host_gpus(self) -> int | None:
        """The host's GPUs: the VM shape's or `host.gpus`; None when unknown."""
        target = self.hosts.target
        vm = target.vm if isinstance(target, VmHosts) else None
        return host_gpus(self.hosts.host, vm).count

    @property
    def expected_gpus(self) -> int | None:
        """The physical GPUs the cluster must advertise: `expectGpus`, else what the layout
        gives the host's GPUs; None when neither is known (the readiness wait's count)."""
        return self.spec.expected_gpus(self.host_gpus)

    @property
    def gpu_checks(self) -> GpuExpectation | None:
        """What the GPU checks verify (`components/platform/checks/gpu_count.py`): asked for with
        `expectGpus`, which validation held to the layout; None without it."""
        expect = self.spec.expectGpus
        if expect is None:
            return None
        per_worker = self.spec.most_per_worker(self.host_gpus)
        return GpuExpectation(expect, expect >= 2, per_worker if per_worker else expect)


@dataclass(frozen=True)
class StackLayers:
    """The layers a stack runs, each with its config; None where it has no such layer."""

    vm: VmLayerConfig | None = None
    arc: ArcLayerConfig | None = None
    host: HostLayerConfig | None = None
    cluster: ClusterLayerConfig | None = None
    platform: PlatformConfig | None = None
    observability: ObservabilityConfig | None = None
    """Set when the stack deploys its metrics (`StackConfig.observability_on`)."""


def stack_layers(cfg: StackConfig) -> StackLayers:
    """The layers `cfg` asks for: `capacity` picks VMs or ARC; a host layer when `host` is
    set, with the cluster on it when `cluster` is; the platform and its observability."""
    vm = arc = None
    if cfg.capacity == "vm":
        vm = VmLayerConfig(_validated(cfg.vm, "vm"), _oci_target(cfg), cfg.tenancyId)
    elif cfg.capacity == "arc":
        arc = _arc_layer(_validated(cfg.arc, "arc"), cfg)
    host = cluster = None
    if cfg.host is not None:
        host = HostLayerConfig(_host_target(cfg.host, cfg.vm), cfg.runner)
        if cfg.cluster is not None:
            cluster = ClusterLayerConfig(cfg.cluster, host)
    observability = cfg.observability if cfg.observability_on else None
    return StackLayers(vm, arc, host, cluster, cfg.platform, observability)


def _arc_layer(arc: ArcConfig, cfg: StackConfig) -> ArcLayerConfig:
    metrics = cfg.observability_on if arc.controller.metrics is None else arc.controller.metrics
    oci = _oci_target(cfg) if arc.needs_network else None
    return ArcLayerConfig(arc, oci, cfg.compartmentId, metrics)


def _host_target(host: HostConfig, vm: VmCapacityConfig | None) -> HostTarget:
    if isinstance(host, OciVmHost):  # validation: only with `capacity: vm`
        return VmHosts(host, _validated(vm, "vm"))
    return host


def _oci_target(cfg: StackConfig) -> OciTarget:
    """Validation requires both keys wherever a layer creates OCI resources."""
    compartment = _validated(cfg.compartmentId, "compartmentId")
    return OciTarget(compartment, _validated(cfg.owner, "owner"), cfg.network)


def _validated(value: _T | None, key: str) -> _T:
    """`value`, which StackConfig's validators require where this is called."""
    if value is None:  # only a validator that lets it through gets here: a bug, not input
        raise RuntimeError(f"{NAMESPACE}:{key} is unset where StackConfig requires it")
    return value
