"""`stack_layers`, exactly: each layer's config as the stack sets it (mutation-testing
survivors of stacks/config/views.py)."""

from __future__ import annotations

from typing import Any

import pytest

from stacks.config import StackConfig, load_config, raw_from_flat
from stacks.config.views import stack_layers
from stacks.offline.plan import REPO
from stacks.offline.stack_file.read import read_stack_file
from tests.components.arc.arc_helpers import arc_stack
from tests.stacks.stack_helpers import COMPARTMENT, flat


def example(stack: str) -> StackConfig:
    file = read_stack_file(REPO, stack)
    return load_config(raw_from_flat(file.config, set(file.secret_keys)), stack)


def load_arc(values: dict[str, Any]) -> StackConfig:
    return load_config(raw_from_flat(flat(values), {"gpu-ci:arc"}), "test")


def test_the_vm_layer_gets_the_tenancy_and_the_host_layer_the_runner() -> None:
    cfg = example("dev")
    assert cfg.tenancyId is not None and cfg.runner is not None
    layers = stack_layers(cfg)
    assert layers.vm is not None and layers.vm.tenancy_id == cfg.tenancyId
    assert layers.host is not None and layers.host.runner is cfg.runner


def test_arc_on_an_existing_cluster_with_its_own_subnets_gets_no_network() -> None:
    cfg = load_arc(arc_stack())
    layers = stack_layers(cfg)
    assert layers.arc is not None and layers.arc.arc is cfg.arc
    assert layers.arc.oci is None and layers.arc.compartment_id == COMPARTMENT
    assert layers.arc.metrics is True  # observability's default: on with ARC


@pytest.mark.parametrize(("metrics", "expected"), [(True, True), (None, False), (False, False)])
def test_arc_metrics_are_the_controllers_own_where_it_sets_them(
    metrics: bool | None, expected: bool
) -> None:
    values = arc_stack(controller={} if metrics is None else {"metrics": metrics})
    values["gpu-ci:observability"] = {"enabled": False}
    layers = stack_layers(load_arc(values))
    assert layers.arc is not None and layers.arc.metrics is expected


@pytest.mark.parametrize(
    ("stack", "update", "key"),
    [
        ("dev", {"vm": None}, "vm"),  # the vm layer's own
        ("dev", {"capacity": "none", "vm": None}, "vm"),  # the oci-vm host's
        ("arc", {"arc": None}, "arc"),
    ],
)
def test_a_capacity_block_validation_requires_is_never_read_as_none(
    stack: str, update: dict[str, Any], key: str
) -> None:
    cfg = example(stack).model_copy(update=update)
    with pytest.raises(RuntimeError, match=f"^gpu-ci:{key} is unset where StackConfig requires"):
        stack_layers(cfg)
