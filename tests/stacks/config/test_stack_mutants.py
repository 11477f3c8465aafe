"""StackConfig's cross-key helpers, exactly (mutation-testing survivors)."""

from __future__ import annotations

from typing import Any

import pytest

from stacks.config import ConfigError, StackConfig, load_config, raw_from_flat
from stacks.config.stack import ARC_CLUSTER_STACK, PLATFORM_CLUSTER_STACK
from tests.components.arc.arc_helpers import arc_stack, gpu_pod, launcher
from tests.stacks.stack_helpers import flat

PLATFORM = {"service": "kind", "accelerator": "a10", "intent": "training", "platform": "kubeflow"}
UNREACHABLE = (
    "and the nvkind cluster's API server is reached at it: the nvkind-cluster step (its "
    "certificate and kubeconfig) takes an IPv4 address or a DNS name only, and would refuse "
    "it after the whole bootstrap; set gpu-ci:host.address to the host's IPv4 address or DNS "
    "name"
)


def load(values: dict[str, Any], secret: set[str] | None = None) -> StackConfig:
    return load_config(raw_from_flat(flat(values), secret or set()), "test")


def problems(values: dict[str, Any]) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load(values)
    return [str(p) for p in caught.value.problems]


def cluster_on_ssh(address: str) -> dict[str, Any]:
    return {
        "gpu-ci:capacity": "none",
        "gpu-ci:host": {"target": "ssh", "address": address, "user": "ci", "gpus": 1},
        "gpu-ci:cluster": {"name": "gpu-ci"},
    }


def test_a_cluster_on_an_ipv6_ssh_address_is_refused_at_the_address() -> None:
    assert problems(cluster_on_ssh("2001:db8::10")) == [
        f"gpu-ci:host.address: is an IPv6 address, {UNREACHABLE} [given: '2001:db8::10']"
    ]


def test_a_cluster_on_an_unreachable_ssh_address_is_refused_at_the_address() -> None:
    assert problems(cluster_on_ssh("0.0.0.0")) == [
        f"gpu-ci:host.address: is no address clients can reach, {UNREACHABLE} [given: '0.0.0.0']"
    ]


def test_a_cluster_on_a_reachable_ssh_address_loads() -> None:
    config = load(cluster_on_ssh("gpu1.example.org"))
    assert config.cluster is not None and config.cluster.name == "gpu-ci"


def test_a_platform_cluster_stack_alone_is_referenced() -> None:
    config = load({"gpu-ci:platform": {"clusterStack": "gpu-dev", **PLATFORM}})
    assert config.cluster_stacks() == {PLATFORM_CLUSTER_STACK: "gpu-dev"}
    assert config.referenced_stacks() == ["gpu-dev"]


def test_an_arc_cluster_stack_alone_is_referenced() -> None:
    values = arc_stack(launcher(), gpu_pod(), cluster={"clusterStack": "gpu-arc"})
    config = load(values, {"gpu-ci:arc"})
    assert config.cluster_stacks() == {ARC_CLUSTER_STACK: "gpu-arc"}
    assert config.referenced_stacks() == ["gpu-arc"]


def test_both_cluster_stacks_are_referenced_platform_first() -> None:
    values = arc_stack(launcher(), gpu_pod(), cluster={"clusterStack": "gpu-arc"})
    values["gpu-ci:platform"] = {"clusterStack": "gpu-dev", **PLATFORM}
    config = load(values, {"gpu-ci:arc"})
    assert list(config.cluster_stacks().items()) == [
        (PLATFORM_CLUSTER_STACK, "gpu-dev"),
        (ARC_CLUSTER_STACK, "gpu-arc"),
    ]
    assert config.referenced_stacks() == ["gpu-dev", "gpu-arc"]


def test_a_stack_on_its_own_cluster_references_none() -> None:
    values = {**cluster_on_ssh("gpu1.example.org"), "gpu-ci:platform": PLATFORM}
    config = load(values)
    assert config.cluster_stacks() == {}
    assert config.referenced_stacks() == []
