"""`shared_replicas` reads a device plugin config as k8s-device-plugin v0.20.0 does
(api/config/v1: config.go through sigs.k8s.io/yaml and encoding/json, sharing.go,
replicas.go, resources.go); the YAML-level cases are test_gpu_sharing.py's."""

from __future__ import annotations

from typing import Any

import pytest

from components.platform.releases.device_plugin_config import field, shared_replicas

GPU = "nvidia.com/gpu"


def sharing(**strategies: Any) -> dict[str, Any]:
    return {"version": "v1", "sharing": strategies}


def resources(*entries: Any) -> dict[str, Any]:
    return {"resources": list(entries)}


def test_a_field_is_matched_case_insensitively_the_last_sorted_key_winning() -> None:
    """encoding/json: a later key overwrites; sigs.k8s.io/yaml sorts the keys first."""
    assert field({"Sharing": 1, "SHARING": 2, "sharing": 3}, "sharing") == 3
    assert field({"SHARING": 2, "Sharing": 1}, "sharing") == 1
    assert field({"TIMESLICING": 4}, "timeSlicing") == 4


def test_a_field_that_is_absent_or_not_in_an_object_is_none() -> None:
    assert field({"other": 1}, "sharing") is None
    assert field({}, "sharing") is None
    assert field(["sharing"], "sharing") is None
    assert field(None, "sharing") is None
    assert field({1: "x", "sharing": 2}, "sharing") == 2  # a non-string key matches no field


def test_each_strategy_that_shares_the_resource_is_reported() -> None:
    config = sharing(
        timeSlicing=resources({"name": GPU, "replicas": 4}),
        mps=resources({"name": "gpu", "replicas": 2}),
    )
    assert shared_replicas(config, GPU) == {"timeSlicing": 4, "mps": 2}


def test_the_largest_replica_count_of_a_strategy_is_reported() -> None:
    config = sharing(
        timeSlicing=resources(
            {"name": GPU, "replicas": 3},
            {"name": GPU, "replicas": 8},
            {"name": GPU, "replicas": 5},
        )
    )
    assert shared_replicas(config, GPU) == {"timeSlicing": 8}


def test_two_replicas_is_the_least_that_shares() -> None:
    """replicas.go: `replicas` must be at least 2."""
    assert shared_replicas(sharing(mps=resources({"name": GPU, "replicas": 2})), GPU) == {"mps": 2}
    assert shared_replicas(sharing(mps=resources({"name": GPU, "replicas": 1})), GPU) == {}


def test_other_resources_and_bad_entries_are_skipped_not_fatal() -> None:
    config = sharing(
        timeSlicing=resources(
            "gpu",
            {"replicas": 4},
            {"name": 7, "replicas": 4},
            {"name": "nvidia.com/mig-1g.10gb", "replicas": 4},
            {"name": GPU, "replicas": 6},
        )
    )
    assert shared_replicas(config, GPU) == {"timeSlicing": 6}
    assert shared_replicas(config, "nvidia.com/mig-1g.10gb") == {"timeSlicing": 4}


@pytest.mark.parametrize(
    "config",
    [
        None,
        {"version": "v1"},
        sharing(timeSlicing=None),
        sharing(timeSlicing=["resources"]),
        sharing(timeSlicing={"resources": {"name": GPU, "replicas": 4}}),
        {"sharing": [{"timeSlicing": resources({"name": GPU, "replicas": 4})}]},
    ],
    ids=["no-config", "no-sharing", "null-strategy", "list-strategy", "map-resources", "list"],
)
def test_a_config_without_a_sharing_list_shares_nothing(config: Any) -> None:
    assert shared_replicas(config, GPU) == {}
