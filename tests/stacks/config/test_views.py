"""`stack_layers`: which layers a stack runs, each with its config narrowed as validation
guarantees it (stacks/config/views.py)."""

from __future__ import annotations

from typing import Any

import pytest

from components.host.config.host import LocalHost, SshHost
from stacks.config import StackConfig, load_config, raw_from_flat
from stacks.config.views import VmHosts, stack_layers
from stacks.offline.plan import REPO
from stacks.offline.stack_file.read import read_stack_file
from tests.stacks.stack_helpers import flat, vm_stack


def example(stack: str) -> StackConfig:
    file = read_stack_file(REPO, stack)
    return load_config(raw_from_flat(file.config, set(file.secret_keys)), stack)


def load(values: dict[str, Any]) -> StackConfig:
    return load_config(raw_from_flat(flat(values), set()), "test")


def test_vm_capacity_hands_its_hosts_the_vms_and_its_layer_the_compartment() -> None:
    cfg = example("dev")
    layers = stack_layers(cfg)
    assert layers.vm is not None and layers.arc is None
    assert layers.vm.vm is cfg.vm and layers.vm.oci.compartment_id == cfg.compartmentId
    assert layers.vm.oci.owner == cfg.owner and layers.vm.oci.network is cfg.network
    assert layers.host is not None and isinstance(layers.host.target, VmHosts)
    assert layers.host.target.vm is cfg.vm and layers.host.host is cfg.host
    assert layers.cluster is not None and layers.cluster.spec is cfg.cluster
    assert layers.cluster.hosts is layers.host
    assert layers.platform is cfg.platform and layers.observability is cfg.observability


def test_arc_gets_a_network_only_where_it_creates_oci_resources() -> None:
    layers = stack_layers(example("arc"))
    assert layers.arc is not None and layers.vm is None and layers.host is None
    assert layers.arc.oci is not None  # OKE
    assert layers.arc.metrics is True  # observability's default: on with ARC


def test_other_hosts_are_their_own_target() -> None:
    workstation = stack_layers(example("workstation"))
    assert workstation.host is not None and isinstance(workstation.host.target, LocalHost)
    assert workstation.cluster is None and workstation.observability is None
    ssh = {"target": "ssh", "address": "gpu1.example.org", "user": "ci", "gpus": 1}
    layers = stack_layers(load({"gpu-ci:host": ssh}))
    assert layers.host is not None and isinstance(layers.host.target, SshHost)
    assert layers.host.host is layers.host.target and layers.host.runner is None


def test_a_platform_alone_runs_no_capacity_or_host() -> None:
    layers = stack_layers(example("apps-dev"))
    assert (layers.vm, layers.arc, layers.host, layers.cluster) == (None, None, None, None)
    assert layers.platform is not None and layers.observability is not None


@pytest.mark.parametrize("key", ["compartmentId", "owner"])
def test_a_key_validation_requires_is_never_read_as_none(key: str) -> None:
    """Only a validator letting it through could leave it unset: a bug, said as such."""
    cfg = load(vm_stack()).model_copy(update={key: None})
    with pytest.raises(RuntimeError, match=f"^gpu-ci:{key} is unset where StackConfig requires"):
        stack_layers(cfg)
