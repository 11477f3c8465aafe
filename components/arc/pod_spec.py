"""Where ARC's pods go and what their containers get, as PodSpec fields.

The config models (`components.arc.pod_config`) only validate; this is where a toleration or
a resource list becomes the dict a pod template carries, for every ARC component alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from components.arc.pod_config import Resources, Toleration

GPU = "nvidia.com/gpu"


def toleration_spec(toleration: Toleration) -> dict[str, Any]:
    """A PodSpec toleration: the keys config set, nothing defaulted."""
    return toleration.model_dump(exclude_none=True)


def resources_spec(resources: Resources) -> dict[str, Any]:
    """A container's `resources`: the requests and limits config set."""
    return resources.model_dump(exclude_none=True)


@dataclass(frozen=True)
class Placement:
    """Where pods go: a node selector and tolerations (empty: anywhere)."""

    node_selector: dict[str, str] = field(default_factory=dict)
    tolerations: list[dict[str, Any]] = field(default_factory=list)

    def pod_fields(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.node_selector:
            out["nodeSelector"] = dict(self.node_selector)
        if self.tolerations:
            out["tolerations"] = [dict(t) for t in self.tolerations]
        return out
