"""`gpu-ci:platform`: the recipe whose components are deployed onto the cluster.

The recipe is resolved from this project's catalog (`recipes/catalog`), optionally layered
over other AICR-format catalogs (`catalogs`, like aicr's repeated `--data`). `set` changes
values or disables components as aicr's `--set comp:path=val` / `comp:enabled=false` do.
The cluster comes from this stack's `gpu-ci:cluster`, or from another stack of the project
that exports one (`clusterStack`): the usual split when previews must see a live cluster.
"""

from __future__ import annotations

from pydantic import Field, field_validator

from components.config_base import ConfigModel, StackReferenceName
from components.platform.releases.overrides import PlatformError, PlatformOverrides

_CRITERION = r"^[a-z0-9][a-z0-9._-]*$"


class PlatformConfig(ConfigModel):
    """Which recipe, from which catalogs, with which changes, on which cluster."""

    service: str = Field(
        "kind", pattern=_CRITERION, description="recipe criterion: `kind`, `oke`, ..."
    )
    accelerator: str | None = Field(
        None,
        pattern=_CRITERION,
        description="default: the VM shape's GPU, e.g. `a10` (required without a listed "
        "shape); recipe criterion",
    )
    os: str | None = Field(
        None, pattern=_CRITERION, description="recipe criterion, where an overlay names an OS"
    )
    intent: str = Field("training", pattern=_CRITERION, description="recipe criterion")
    platform: str = Field("kubeflow", pattern=_CRITERION, description="recipe criterion")
    catalogs: list[str] = Field(
        default_factory=list,
        description="AICR-format catalog folders (relative to the project) the project's "
        "catalog extends, like aicr `--data`",
    )
    set: list[str] = Field(
        default_factory=list,
        description="aicr-style `COMPONENT:PATH=VALUE` or `COMPONENT:enabled=false`",
    )
    runtimeClassPatch: bool | None = Field(
        None,
        description="default: on for `service: kind`; patch every Trainer runtime with "
        "`runtimeClassName: nvidia` and a memory-backed `/dev/shm`",
    )
    deploymentChecks: bool = Field(
        True,
        description="after deploying, run each component's health check, the recipe's AICR "
        "validators that apply and a GPU smoke Job, as Jobs (`docs/validation.md`)",
    )
    clusterStack: StackReferenceName | None = Field(
        None,
        description="deploy onto the cluster this stack exports (`cluster`, `kubeconfig`) "
        "instead of `gpu-ci:cluster`",
    )

    @field_validator("set")
    @classmethod
    def _parses(cls, value: list[str]) -> list[str]:
        try:
            PlatformOverrides.parse(value)
        except PlatformError as err:
            raise ValueError(str(err)) from None
        return value

    @property
    def overrides(self) -> PlatformOverrides:
        return PlatformOverrides.parse(self.set)
