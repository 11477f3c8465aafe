"""A wrong scale-set kind names the kinds allowed, a key's top-level key is what a secret is
known by, and a KeyedError is a plain ValueError of its message (mutation-testing
survivors of stacks/config/problems.py)."""

from __future__ import annotations

import pytest

from stacks.config import ConfigError, load_config, raw_from_flat
from stacks.config.problems import KeyedError, top_key
from tests.components.arc.arc_helpers import arc_stack, gpu_pod, launcher
from tests.stacks.stack_helpers import flat


def problems(values: dict[str, object], secret: set[str]) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_config(raw_from_flat(flat(values), secret), "s")
    return [str(p) for p in caught.value.problems]


def test_a_wrong_kind_in_a_list_of_scale_sets_names_every_kind() -> None:
    values = arc_stack(launcher(), gpu_pod(kind="gpu-pd"))
    assert problems(values, {"gpu-ci:arc"}) == [
        "gpu-ci:arc.scaleSets[1].kind: must be one of 'vm-launcher', 'gpu-pod' (did you mean "
        "'gpu-pod'?) [given: 'gpu-pd']"  # gpu-ci:arc is secret for its credentials only
    ]


def test_a_missing_kind_in_a_list_of_scale_sets_names_every_kind() -> None:
    values = arc_stack(gpu_pod(kind=None))
    assert problems(values, {"gpu-ci:arc"}) == [
        "gpu-ci:arc.scaleSets[0].kind: required key is missing; must be one of 'vm-launcher', "
        "'gpu-pod'"
    ]


@pytest.mark.parametrize(
    ("key", "top"),
    [
        ("gpu-ci:vm", "gpu-ci:vm"),
        ("gpu-ci:runner.labels[0]", "gpu-ci:runner"),
        ("gpu-ci:arc.scaleSets[0].placement.subnetId", "gpu-ci:arc"),
        ("gpu-ci:runner[0][1]", "gpu-ci:runner"),
        ("gpu-ci:host address", "gpu-ci:host address"),
    ],
)
def test_the_top_level_key_of_a_full_key(key: str, top: str) -> None:
    assert top_key(key) == top


def test_a_keyed_error_is_a_value_error_of_its_message() -> None:
    err = KeyedError("host.address", "not reachable from here", given="10.0.0.1")
    assert isinstance(err, ValueError)
    assert str(err) == "not reachable from here"
    assert (err.key, err.message, err.given) == (
        "host.address",
        "not reachable from here",
        "10.0.0.1",
    )
