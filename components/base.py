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


class ComponentArgs(BaseModel):
    """Typed component arguments; values may be Pulumi Outputs."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)


def child(parent: pulumi.Resource, **kwargs: Any) -> pulumi.ResourceOptions:
    """Options for a component's child: parented, so it moves and deletes with it."""
    return pulumi.ResourceOptions(parent=parent, **kwargs)
