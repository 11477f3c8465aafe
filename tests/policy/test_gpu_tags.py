"""`gpu-instances-tagged` on GPU instances and GPU node pools, message by message."""

from __future__ import annotations

from typing import Any

import pytest

from policy.gpu_tags import INSTANCE, NODE_POOL, check_gpu_tags
from policy.rule import Resource

TAGS = {"gpu-ci-stack": "dev", "gpu-ci-owner": "ml-team"}


def instance(shape: Any, tags: Any) -> Resource:
    return Resource(INSTANCE, "vm", {"shape": shape, "freeformTags": tags})


def node_pool(shape: Any, tags: Any) -> Resource:
    return Resource(
        NODE_POOL, "pool", {"nodeShape": shape, "nodeConfigDetails": {"freeformTags": tags}}
    )


def test_a_tagged_gpu_instance_and_node_pool_pass() -> None:
    assert check_gpu_tags(instance("VM.GPU.A10.1", TAGS), {}) == []
    assert check_gpu_tags(node_pool("BM.GPU.H100.8", TAGS), {}) == []


def test_an_untagged_gpu_instance_is_named_with_what_it_lacks() -> None:
    assert check_gpu_tags(instance("VM.GPU.A10.1", {"gpu-ci-stack": "dev"}), {}) == [
        f"vm ({INSTANCE}): GPU shape VM.GPU.A10.1 lacks gpu-ci-owner in freeformTags"
    ]


def test_an_untagged_gpu_node_pool_is_named_with_its_nodes_tags() -> None:
    assert check_gpu_tags(node_pool("BM.GPU.H100.8", None), {}) == [
        f"pool ({NODE_POOL}): GPU shape BM.GPU.H100.8 lacks gpu-ci-stack, gpu-ci-owner in "
        "its nodes' freeformTags"
    ]


@pytest.mark.parametrize("tags", [{**TAGS, "gpu-ci-owner": "unset"}, {**TAGS, "gpu-ci-owner": ""}])
def test_an_unset_or_empty_owner_is_missing(tags: dict[str, str]) -> None:
    (message,) = check_gpu_tags(node_pool("VM.GPU.A10.1", tags), {})
    assert message.endswith("lacks gpu-ci-owner in its nodes' freeformTags")


def test_tags_that_are_no_mapping_count_as_none() -> None:
    (message,) = check_gpu_tags(instance("VM.GPU.A10.1", ["gpu-ci-stack", "gpu-ci-owner"]), {})
    assert "lacks gpu-ci-stack, gpu-ci-owner" in message


@pytest.mark.parametrize("shape", ["VM.Standard.E5.Flex", None, 3, "XVM.GPU.A10.1"])
def test_other_shapes_and_types_are_not_judged(shape: Any) -> None:
    assert check_gpu_tags(instance(shape, {}), {}) == []
    assert check_gpu_tags(node_pool(shape, {}), {}) == []
    other = Resource("oci:Core/vcn:Vcn", "vcn", {"shape": "VM.GPU.A10.1"})
    assert check_gpu_tags(other, {}) == []
