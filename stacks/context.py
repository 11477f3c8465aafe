"""Who is deploying, and what every layer's resources carry because of it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pulumi

from stacks.config.recipe import PROJECT_ROOT
from stacks.config.views import OciTarget
from stacks.outputs import Export

if TYPE_CHECKING:  # pulumi-kubernetes loads only when a stack reads a cluster
    from components.cluster.reference import ClusterReference


@dataclass(frozen=True)
class StackContext:
    """Who is deploying: the Pulumi project and stack names."""

    project: str
    stack: str
    root: Path = PROJECT_ROOT
    """The project's folder (Pulumi.yaml's): what relative paths in the stack file name."""


@dataclass
class StackOutputs:
    """Each layer's typed export (an Output of its contract model), by export name."""

    layers: dict[str, Export | dict[str, Any]] = field(default_factory=dict)

    def export(self) -> None:
        for name, value in self.layers.items():
            pulumi.export(name, value)


def tags(oci: OciTarget, ctx: StackContext) -> dict[str, str]:
    """Freeform tags every OCI resource carries: who owns it and which stack made it."""
    return {"gpu-ci-project": ctx.project, "gpu-ci-stack": ctx.stack, "gpu-ci-owner": oci.owner}


class ClusterReferenceSource(Protocol):
    """Where a layer gets the cluster another stack exports (`stacks.compose` makes them)."""

    def stack(self, key: str) -> str:
        """The stack `key` names (`gpu-ci:platform.clusterStack`, ...)."""
        ...

    def get(self, key: str) -> ClusterReference:
        """The reference for the stack `key` names."""
        ...
