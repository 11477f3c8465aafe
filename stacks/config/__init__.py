"""Typed stack config: the `gpu-ci:` namespace of `Pulumi.<stack>.yaml`."""

from components.host.host_config import HostConfig, LocalHost, OciVmHost, SshHost
from components.host.runner_config import RunnerConfig
from components.oci.network_config import NetworkConfig
from components.oci.vm_config import ImageConfig, VmCapacityConfig
from stacks.config.loader import (
    ConfigError,
    RawConfig,
    load_config,
    raw_from_flat,
    runtime_raw_config,
)
from stacks.config.stack import NAMESPACE, StackConfig

__all__ = [
    "NAMESPACE",
    "ConfigError",
    "HostConfig",
    "ImageConfig",
    "LocalHost",
    "NetworkConfig",
    "OciVmHost",
    "RawConfig",
    "RunnerConfig",
    "SshHost",
    "StackConfig",
    "VmCapacityConfig",
    "load_config",
    "raw_from_flat",
    "runtime_raw_config",
]
