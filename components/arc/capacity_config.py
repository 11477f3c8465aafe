"""`gpu-ci:arc`: the ARC capacity, GitHub's Actions Runner Controller with GPU scale sets.

One controller (`gha-runner-scale-set-controller`) and a typed list of runner scale sets
(`gha-runner-scale-set`), on an existing cluster (a kubeconfig kept as a secret, or another
stack's `cluster`/`kubeconfig` exports) or on an enhanced OKE cluster created here with a
CPU node pool and an optional A10 node pool.

This module composes the ARC components' own configs (controller, scale sets, OKE, cleanup)
and holds the checks that span them; each component's config sits beside it.
"""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import Field, SecretStr, ValidationInfo, field_validator, model_validator

from components.arc.cleanup_config import FailedRunnerCleanup
from components.arc.controller_config import ControllerConfig
from components.arc.k8s_types import K8sName
from components.arc.oke_config import OkeConfig
from components.arc.scale_set_config import ScaleSet, VmLauncherScaleSet
from components.config_base import CREDENTIAL_FILE, ConfigModel, StackReferenceName
from components.host.config.runner import GithubAppConfig


class ArcClusterConfig(ConfigModel):
    """Exactly one of: an existing cluster's kubeconfig (a secret), another stack of this
    project exporting `cluster` and `kubeconfig`, or an OKE cluster created here."""

    kubeconfig: SecretStr | None = Field(
        None,
        description="an existing cluster's kubeconfig (`pulumi config set --secret --path "
        "gpu-ci:arc.cluster.kubeconfig < FILE`)",
        json_schema_extra={CREDENTIAL_FILE: "kubeconfig"},
    )
    clusterStack: StackReferenceName | None = Field(
        None, description="a stack of this project exporting `cluster` and `kubeconfig`"
    )
    oke: OkeConfig | None = Field(
        None, description="an enhanced OKE cluster created here, in `network`'s subnet"
    )

    @model_validator(mode="after")
    def _exactly_one(self) -> Self:
        given = [k for k in ("kubeconfig", "clusterStack", "oke") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(
                "give exactly one of kubeconfig (an existing cluster), clusterStack (a stack "
                f"that exports cluster and kubeconfig) or oke (create one); given: "
                f"{', '.join(given) or 'none'}"
            )
        return self

    @property
    def source(self) -> Literal["kubeconfig", "clusterStack", "oke"]:
        if self.oke is not None:
            return "oke"
        return "clusterStack" if self.clusterStack is not None else "kubeconfig"


class ArcConfig(ConfigModel):
    """The controller, the cluster, the GitHub App and the runner scale sets."""

    controller: ControllerConfig = Field(
        default_factory=ControllerConfig, description="the gha-runner-scale-set-controller"
    )
    runnersNamespace: K8sName = Field(
        "arc-runners", description="the scale sets' namespace, with their secrets"
    )
    cluster: ArcClusterConfig = Field(
        description="exactly one of `kubeconfig`, `clusterStack` or `oke`: where ARC runs"
    )
    githubApp: GithubAppConfig | None = Field(
        None, description="required without `existingSecret`; the App the runners register with"
    )
    existingSecret: K8sName | None = Field(
        None,
        description="required without `githubApp`; a Secret in `runnersNamespace` with "
        "`github_app_id`, `github_app_installation_id` and `github_app_private_key`",
    )
    scaleSets: list[ScaleSet] = Field(min_length=1, description="the runner scale sets (1 or more)")
    failedRunnerCleanup: FailedRunnerCleanup | None = Field(
        None, description="a CronJob deleting Failed EphemeralRunners, which block scale-up"
    )

    @field_validator("existingSecret")
    @classmethod
    def _one_credential(cls, secret: str | None, info: ValidationInfo) -> str | None:
        if "githubApp" not in info.data:  # githubApp is invalid itself
            return secret
        app = info.data["githubApp"]
        if (secret is None) == (app is None):
            raise ValueError(
                "give exactly one of githubApp (the App's id, installation id and private key, "
                "as secrets) or existingSecret (a Secret already in the runners namespace)"
            )
        return secret

    @field_validator("scaleSets")
    @classmethod
    def _scale_sets(cls, scale_sets: list[Any], info: ValidationInfo) -> list[Any]:
        names = [s.name for s in scale_sets]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"scale set names are labels and must be unique: {twice}")
        cluster = info.data.get("cluster")
        oke = cluster.oke if cluster is not None else None
        if oke is not None and oke.gpuPool is None:
            pods = [s.name for s in scale_sets if s.kind == "gpu-pod"]
            if pods:
                raise ValueError(
                    f"gpu-pod scale sets {pods} need GPU nodes: add "
                    "gpu-ci:arc.cluster.oke.gpuPool (A10 shapes)"
                )
        return scale_sets

    @property
    def launchers(self) -> list[VmLauncherScaleSet]:
        return [s for s in self.scaleSets if isinstance(s, VmLauncherScaleSet)]

    @property
    def needs_network(self) -> bool:
        """Whether this stack creates gpu-ci:network (for OKE or for launched VMs)."""
        return self.cluster.oke is not None or any(
            s.placement.subnetId is None for s in self.launchers
        )

    @property
    def needs_compartment(self) -> bool:
        """Whether anything falls back to gpu-ci:compartmentId."""
        return self.needs_network or any(s.compartmentId is None for s in self.launchers)
