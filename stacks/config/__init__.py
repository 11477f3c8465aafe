"""Typed stack config: the `gpu-ci:` namespace of `Pulumi.<stack>.yaml`."""

from stacks.config.host import HostConfig, LocalHost, OciVmHost, SshHost
from stacks.config.loader import (
    ConfigError,
    RawConfig,
    load_config,
    raw_from_flat,
    runtime_raw_config,
)
from stacks.config.network import NetworkConfig
from stacks.config.runner import RunnerConfig
from stacks.config.stack import NAMESPACE, StackConfig
from stacks.config.vm import ImageConfig, VmCapacityConfig

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
