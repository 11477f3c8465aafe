"""`gpu-ci:platform`: the recipe whose components are deployed onto the cluster.

The recipe is resolved from this project's catalog (`recipes/catalog`), optionally layered
over other AICR-format catalogs (`catalogs`, like aicr's repeated `--data`). `set` changes
values or disables components as aicr's `--set comp:path=val` / `comp:enabled=false` do.
The cluster comes from this stack's `gpu-ci:cluster`, or from another stack of the project
that exports one (`clusterStack`): the usual split when previews must see a live cluster.
"""

from __future__ import annotations

from pydantic import Field, field_validator

from components.platform.overrides import PlatformError, PlatformOverrides
from stacks.config.base import ConfigModel, StackReferenceName

_CRITERION = r"^[a-z0-9][a-z0-9._-]*$"


class PlatformConfig(ConfigModel):
    """Which recipe, from which catalogs, with which changes, on which cluster."""

    service: str = Field("kind", pattern=_CRITERION)
    accelerator: str | None = Field(
        None, pattern=_CRITERION, description="default: the VM shape's GPU model, e.g. a10"
    )
    os: str | None = Field(None, pattern=_CRITERION, description="only if an overlay names one")
    intent: str = Field("training", pattern=_CRITERION)
    platform: str = Field("kubeflow", pattern=_CRITERION)
    catalogs: list[str] = Field(
        default_factory=list,
        description="catalog folders (relative to the project) this project's extends",
    )
    set: list[str] = Field(default_factory=list, description="aicr-style COMPONENT:PATH=VALUE")
    runtimeClassPatch: bool | None = Field(
        None,
        description="patch Trainer runtimes with runtimeClassName nvidia (default: on for "
        "kind clusters, whose nodes run GPU pods only under the nvidia RuntimeClass)",
    )
    deploymentChecks: bool = True
    clusterStack: StackReferenceName | None = Field(
        None, description="read the cluster from this stack's `cluster` export instead"
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
