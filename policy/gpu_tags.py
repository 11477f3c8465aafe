"""`gpu-instances-tagged`: every GPU instance and GPU node pool says whose it is.

The `gpu-ci-stack` and `gpu-ci-owner` freeform tags are how a GPU bill is traced to a
stack and to the team that pays for it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from policy.rule import Resource

INSTANCE = "oci:Core/instance:Instance"
NODE_POOL = "oci:ContainerEngine/nodePool:NodePool"
REQUIRED_TAGS = ("gpu-ci-stack", "gpu-ci-owner")
_GPU_SHAPE = re.compile(r"^(VM|BM)\.GPU")


def _missing_tags(tags: Any) -> list[str]:
    tags = tags if isinstance(tags, Mapping) else {}
    return [t for t in REQUIRED_TAGS if not tags.get(t) or tags.get(t) == "unset"]


def check_gpu_tags(resource: Resource, config: Mapping[str, Any]) -> list[str]:
    if resource.type == INSTANCE:
        shape, tags = resource.props.get("shape"), resource.props.get("freeformTags")
    elif resource.type == NODE_POOL:
        shape = resource.props.get("nodeShape")
        tags = (resource.props.get("nodeConfigDetails") or {}).get("freeformTags")
    else:
        return []
    if not isinstance(shape, str) or not _GPU_SHAPE.match(shape):
        return []
    missing = _missing_tags(tags)
    if not missing:
        return []
    where = "its nodes' freeformTags" if resource.type == NODE_POOL else "freeformTags"
    return [f"{resource.where()}: GPU shape {shape} lacks {', '.join(missing)} in {where}"]
