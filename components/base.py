"""What every component shares: typed args and child options."""

from __future__ import annotations

from typing import Any

import pulumi
from pydantic import BaseModel, ConfigDict

from core.errors import GpuCiError


class InputError(GpuCiError, pulumi.RunError):
    """Bad input found only once a lookup answers (inside an apply).

    Being a `pulumi.RunError`, `pulumi up` prints just the message, not a traceback.
    """


PulumiInput = Any
"""A `pulumi.Input[T]`: a plain value or an Output resolved at deploy time."""

MANAGED_LABELS = {"app.kubernetes.io/managed-by": "gpu-ci"}
"""The labels on every Kubernetes object a gpu-ci component creates."""


class ComponentArgs(BaseModel):
    """Typed component arguments; values may be Pulumi Outputs."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)


def child(parent: pulumi.Resource, **kwargs: Any) -> pulumi.ResourceOptions:
    """Options for a component's child: parented, so it moves and deletes with it."""
    return pulumi.ResourceOptions(parent=parent, **kwargs)


def upstream(opts: pulumi.ResourceOptions | None) -> list[pulumi.Resource]:
    """What a component's `opts.depends_on` names, for the children that start its work.

    Every component takes what it waits for through `opts`, as a custom resource does; the
    engine makes dependents of a component wait for all its children, but not a
    component's children wait for what the component depends on, so each component hands
    this list to its first children itself."""
    if opts is None or opts.depends_on is None:
        return []
    found = opts.depends_on
    items = found if isinstance(found, list | tuple) else [found]
    return [r for r in items if isinstance(r, pulumi.Resource)]
