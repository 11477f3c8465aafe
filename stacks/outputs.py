"""Typed stack outputs: what a stack exports, one object per layer.

Other stacks read these through StackReferences, so each object carries a contract
version that changes whenever a field changes meaning.
"""

from __future__ import annotations

from typing import Any, Literal

import pulumi
from pydantic import BaseModel, ConfigDict


class VmCapacityOutputs(BaseModel):
    """Export `capacity` of a stack whose gpu-ci:capacity is `vm`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    contractVersion: Literal[1] = 1
    kind: Literal["vm"] = "vm"
    shape: str
    instanceIds: list[str]
    publicIps: list[str | None]
    privateIps: list[str]
    subnetId: str
    nsgId: str


def _typed(model: type[BaseModel], static: dict[str, Any], dynamic: dict[str, Any]) -> Any:
    """An Output of the model's dict once all dynamic fields resolve (validated then)."""
    keys = list(dynamic)

    def build(values: list[Any]) -> dict[str, Any]:
        return model.model_validate({**static, **dict(zip(keys, values, strict=True))}).model_dump()

    return pulumi.Output.all(*dynamic.values()).apply(build)


def vm_capacity_outputs(
    *,
    shape: str,
    instance_ids: list[Any],
    public_ips: list[Any],
    private_ips: list[Any],
    subnet_id: Any,
    nsg_id: Any,
) -> Any:
    return _typed(
        VmCapacityOutputs,
        {"shape": shape},
        {
            "instanceIds": pulumi.Output.all(*instance_ids),
            "publicIps": pulumi.Output.all(*public_ips),
            "privateIps": pulumi.Output.all(*private_ips),
            "subnetId": subnet_id,
            "nsgId": nsg_id,
        },
    )
