"""Typed stack config: the `gpu-ci:` namespace of `Pulumi.<stack>.yaml`, composed from the
config model beside each component (`components/*/..._config.py`)."""

from stacks.config.loader import ConfigError, RawConfig, load_config, raw_from_flat
from stacks.config.stack import NAMESPACE, StackConfig

__all__ = ["NAMESPACE", "ConfigError", "RawConfig", "StackConfig", "load_config", "raw_from_flat"]
