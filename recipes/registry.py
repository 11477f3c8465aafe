"""The component registry (`registry.yaml`): per-component defaults recipes may omit.

The resolver fills a component's empty source, chart, version and namespace from here.
The scheduling and validation blocks are carried for deployers; the resolver does not read
them, but they are typed so that a misspelt key is still an error.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from recipes.model import ApiVersion


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class HelmDefaults(_Strict):
    """Defaults for a Helm component (`defaultChart` may carry a repo prefix)."""

    defaultRepository: str = ""
    defaultChart: str = ""
    defaultVersion: str = ""
    defaultNamespace: str = ""


class KustomizeDefaults(_Strict):
    """Defaults for a Kustomize component."""

    defaultSource: str = ""
    defaultPath: str = ""
    defaultTag: str = ""


class ManifestDefaults(_Strict):
    """Defaults for a manifest-only component."""

    defaultNamespace: str = ""


class HealthCheck(_Strict):
    """Where the component's Chainsaw health assertions live."""

    assertFile: str = ""


class SchedulingPaths(_Strict):
    """Values paths where node selectors, tolerations or taints are injected."""

    nodeSelectorPaths: list[str] = Field(default_factory=list)
    tolerationPaths: list[str] = Field(default_factory=list)
    taintStrPaths: list[str] = Field(default_factory=list)


class NodeScheduling(_Strict):
    """Scheduling injection points for system and accelerated nodes."""

    system: SchedulingPaths | None = None
    accelerated: SchedulingPaths | None = None
    nodeCountPaths: list[str] = Field(default_factory=list)


class WorkloadScheduling(_Strict):
    """Values paths for workload selectors."""

    workloadSelectorPaths: list[str] = Field(default_factory=list)


class PodScheduling(_Strict):
    """Pod-level scheduling injection points."""

    workload: WorkloadScheduling | None = None


class ComponentValidation(_Strict):
    """A bundle-time check the registry attaches to a component."""

    function: str
    severity: Literal["error", "warning"]
    conditions: dict[str, list[str]] = Field(default_factory=dict)
    message: str = ""


class ComponentConfig(_Strict):
    """One registry entry."""

    name: str = Field(min_length=1)
    displayName: str = ""
    valueOverrideKeys: list[str] = Field(default_factory=list)
    healthCheck: HealthCheck | None = None
    helm: HelmDefaults | None = None
    kustomize: KustomizeDefaults | None = None
    manifest: ManifestDefaults | None = None
    nodeScheduling: NodeScheduling | None = None
    podScheduling: PodScheduling | None = None
    validations: list[ComponentValidation] = Field(default_factory=list)

    def default_type(self) -> Literal["Helm", "Kustomize", ""]:
        """The deployment type a ref gets when it names none."""
        if self.kustomize is not None and self.helm is None:
            return "Kustomize"
        return "Helm"


class ComponentRegistry(_Strict):
    """`registry.yaml`."""

    kind: Literal["ComponentRegistry"]
    apiVersion: ApiVersion
    components: list[ComponentConfig] = Field(default_factory=list)
