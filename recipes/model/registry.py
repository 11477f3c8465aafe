"""The component registry (`registry.yaml`): per-component defaults recipes may omit.

The resolver fills a component's empty type, source, chart, version, namespace, tag, path
and manifestFiles from here (AICR's `ApplyRegistryDefaults`) and inlines the content of
`healthCheck.assertFile` as the component's `healthCheckAsserts`. The scheduling,
storage-class, validation and bundler flags are carried for deployers; the resolver does
not read them. AICR decodes the registry leniently, so a key the format does not define is
a warning (`recipes.catalogs.documents`), not an error.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


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


class HealthCheck(_Strict):
    """Where the component's Chainsaw health assertions live."""

    assertFile: str = ""


class SchedulingPaths(_Strict):
    """Values paths where node selectors, tolerations or taints are injected."""

    nodeSelectorPaths: list[str] = Field(default_factory=list)
    tolerationPaths: list[str] = Field(default_factory=list)
    taintPaths: list[str] = Field(default_factory=list)
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
    """A bundle-time check the registry attaches to a component (`severity` is free text)."""

    function: str
    severity: str = ""
    conditions: dict[str, list[str]] = Field(default_factory=dict)
    message: str = ""


class _ConfigFields(_Strict):
    """A registry entry as `aicr.nvidia.com/v1alpha1` defines it."""

    name: str = Field(min_length=1)
    displayName: str = ""
    valueOverrideKeys: list[str] = Field(default_factory=list)
    healthCheck: HealthCheck = Field(default_factory=HealthCheck)
    helm: HelmDefaults = Field(default_factory=HelmDefaults)
    kustomize: KustomizeDefaults = Field(default_factory=KustomizeDefaults)
    nodeScheduling: NodeScheduling | None = None
    podScheduling: PodScheduling | None = None
    validations: list[ComponentValidation] = Field(default_factory=list)

    def default_type(self) -> Literal["Helm", "Kustomize"]:
        """AICR's `GetType`: Kustomize when a default source is set, else Helm."""
        return "Kustomize" if self.kustomize.defaultSource else "Helm"


class ComponentConfigV1Alpha1(_ConfigFields):
    """`aicr.nvidia.com/v1alpha1` registry entry."""


class ComponentConfig(_ConfigFields):
    """One registry entry (the `aicr.run` formats' fields)."""

    storageClassPaths: list[str] = Field(default_factory=list)
    sharedStorageClassPaths: list[str] = Field(default_factory=list)
    manifestFiles: list[str] = Field(default_factory=list)
    gkeCriticalPriority: bool = False
    hasSelfRefCRDs: bool = False
    ownsCRDs: bool = False
    manifestsUseChartCRDs: bool = False


class _RegistryHeader(_Strict):
    kind: Literal["ComponentRegistry"]
    apiVersion: str


class ComponentRegistryV1Alpha1(_RegistryHeader):
    components: list[ComponentConfigV1Alpha1] = Field(default_factory=list)


class ComponentRegistry(_RegistryHeader):
    """`registry.yaml`."""

    components: list[ComponentConfig] = Field(default_factory=list)
