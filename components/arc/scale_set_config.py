"""`gpu-ci:arc.scaleSets[]`: what `ArcRunnerScaleSet` (components/arc/scale_set.py) takes.

Two kinds of scale set:
- `vm-launcher`: the runner pod is a small launcher that creates a throwaway OCI GPU VM,
  runs the job there with the JIT config ARC injects, and deletes the VM (how CNCF runs
  `oracle-vm-gpu-a10-1`/`-2`); the pod needs no GPU, only OCI API credentials;
- `gpu-pod`: the runner pod (or, in kubernetes container mode, the job pod) gets
  `nvidia.com/gpu` on a GPU node pool.

A scale set's `name` is its runner label (`runs-on: oracle-vm-gpu-a10-1`), its Helm release
and its AutoscalingRunnerSet, so it must be a valid runner label and Kubernetes name.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field, ValidationInfo, field_validator

from components.arc.k8s_types import (
    DigestImage,
    K8sName,
    NodeLabels,
    PinnedImage,
    Quantity,
    StorageClassName,
)
from components.arc.launcher_config import (
    FallbackPlacement,
    LaunchPlacement,
    OciApiCredentials,
    VmImageSelection,
)
from components.arc.pod_config import Resources, Toleration
from components.config_base import ConfigModel, GithubUrl, Ocid
from components.host.config.runner import RUNNER_LABEL
from components.host.params.runner import check_runner_group
from components.oci.vm_config import SHAPE_NAME

_SCALE_SET_NAME = re.compile(r"^[a-z0-9]([a-z0-9-]{0,43}[a-z0-9])?$")


class WorkVolume(ConfigModel):
    """The runner's work volume in kubernetes container mode (an ephemeral PVC that the
    runner pod and its job pods share)."""

    storageClassName: StorageClassName | None = Field(
        None, description="default: the cluster's default; its storage class"
    )
    size: Quantity = Field("20Gi", description="its size")


class ScaleSetBase(ConfigModel):
    """What every runner scale set has."""

    name: str = Field(
        description="the runner label jobs use (`runs-on`), also its Helm release's name"
    )
    githubConfigUrl: GithubUrl = Field(
        description="where its runners register: `https://github.com/ORG[/REPO]` or "
        "`https://github.com/enterprises/NAME`"
    )
    runnerGroup: str = Field(
        "Default",
        min_length=1,
        max_length=100,
        description="the runner group (organizations and enterprises)",
    )
    minRunners: int = Field(0, ge=0, le=1000, description="idle runners kept (0: scale to zero)")
    maxRunners: int = Field(ge=0, le=1000, description="the most runners, at least `minRunners`")
    labels: list[str] = Field(
        default_factory=list, description="labels besides the name (scaleSetLabels)"
    )
    nodeSelector: NodeLabels | None = Field(
        None,
        description="default: the OKE pool its pods need (GPU for `gpu-pod`, else CPU); where "
        "its runner pods run",
    )
    tolerations: list[Toleration] | None = Field(
        None,
        description="default: for that OKE pool's taints (elsewhere `gpu-pod` sets tolerate "
        "`nvidia.com/gpu`); its runner pods' tolerations",
    )
    resources: Resources | None = Field(None, description="the runner container's resources")

    @field_validator("name")
    @classmethod
    def _label_and_k8s_name(cls, name: str) -> str:
        if not re.fullmatch(RUNNER_LABEL, name) or not _SCALE_SET_NAME.fullmatch(name):
            raise ValueError(
                "not a valid runner label for a scale set: the name is the label jobs use "
                "(runs-on), the Helm release and the AutoscalingRunnerSet, so it takes "
                "lowercase letters, digits and '-', starts and ends with a letter or digit, "
                "and has at most 45 characters (e.g. oracle-vm-gpu-a10-1)"
            )
        return name

    @field_validator("runnerGroup")
    @classmethod
    def _group_text(cls, group: str) -> str:
        return check_runner_group(group)  # the one rule: the host runner's `group` has it too

    @field_validator("runnerGroup")
    @classmethod
    def _group_for_scope(cls, group: str, info: ValidationInfo) -> str:
        path = str(info.data.get("githubConfigUrl") or "").removeprefix("https://github.com/")
        if "/" in path and not path.startswith("enterprises/") and group != "Default":
            raise ValueError(
                "repository runners can only join the 'Default' group; use an organization "
                "or enterprise githubConfigUrl for runner groups"
            )
        return group

    @field_validator("maxRunners")
    @classmethod
    def _at_least_min(cls, value: int, info: ValidationInfo) -> int:
        low = info.data.get("minRunners")
        if low is not None and value < low:
            raise ValueError(
                f"must be at least minRunners ({low}): ARC keeps minRunners idle runners and "
                "scales up to maxRunners (minRunners: 0 scales to zero)"
            )
        return value

    @field_validator("labels")
    @classmethod
    def _extra_labels(cls, labels: list[str], info: ValidationInfo) -> list[str]:
        bad = [label for label in labels if not re.fullmatch(RUNNER_LABEL, label)]
        if bad:
            raise ValueError(f"labels may hold letters, digits, '.', '_' and '-': {bad}")
        if len(set(labels)) != len(labels) or info.data.get("name") in labels:
            raise ValueError(f"{labels} repeats a label (the name is a label already)")
        return labels


class VmLauncherScaleSet(ScaleSetBase):
    """Runner pods that each launch a throwaway OCI GPU VM and run the job on it."""

    kind: Literal["vm-launcher"] = Field(
        description="a small launcher pod per job creates a throwaway GPU VM and runs the job there"
    )
    launcherImage: DigestImage = Field(description="the launcher's image, by digest")
    shapes: list[str] = Field(
        default_factory=list,
        description="required: at least one; the VM shapes, tried in order on capacity errors",
    )
    placement: LaunchPlacement = Field(description="where VMs are launched first")
    fallback: FallbackPlacement | None = Field(
        None, description="where to retry when `placement` is out of capacity"
    )
    bootVolumeSizeGbs: int = Field(400, ge=50, le=32768, description="each VM's boot volume, GB")
    preemptible: bool = Field(False, description="preemptible VMs (cheaper; may be reclaimed)")
    compartmentId: Ocid | None = Field(
        None, description="default: `compartmentId`; the VMs' compartment"
    )
    vmImage: VmImageSelection = Field(
        default_factory=VmImageSelection,
        description="the image family the VMs boot (`ubuntu-24.04-<arch>-gha-image`)",
    )
    ociCredentials: OciApiCredentials = Field(
        description="the OCI API key the launcher acts with (each field a secret)"
    )
    extraArgs: list[str] = Field(
        default_factory=list, description="more launcher flags, e.g. `--shape-ocpus=8`"
    )

    @field_validator("shapes")
    @classmethod
    def _shapes(cls, shapes: list[str]) -> list[str]:
        if not shapes:
            raise ValueError(
                "a vm-launcher needs at least one VM shape to launch, tried in order on "
                "capacity errors (e.g. [VM.GPU.A10.1, VM.GPU.A10.2])"
            )
        bad = [s for s in shapes if not SHAPE_NAME.fullmatch(s)]
        if bad:
            raise ValueError(f"not OCI shape names (like VM.GPU.A10.1): {bad}")
        if len(set(shapes)) != len(shapes):
            raise ValueError(f"{shapes} lists a shape twice")
        return shapes


class GpuPodScaleSet(ScaleSetBase):
    """Runner pods (or job pods, in kubernetes mode) with GPUs on a GPU node pool."""

    kind: Literal["gpu-pod"] = Field(
        description="the runner pod (or, in `kubernetes` mode, the job pod) gets GPUs"
    )
    runnerImage: PinnedImage = Field(
        description="by version tag or digest, e.g. `ghcr.io/actions/actions-runner:2.328.0`"
    )
    gpus: int = Field(1, ge=1, le=8, description="the `nvidia.com/gpu` limit per job")
    runtimeClassName: K8sName | None = Field(
        None, description="e.g. `nvidia` on kind; OKE GPU nodes need none"
    )
    containerMode: Literal["dind", "kubernetes"] = Field(
        "kubernetes",
        description="`kubernetes`: each job runs in its own pod, which gets the GPU through "
        "a container-hook template; `dind`: steps run in the runner pod, which gets the GPU",
    )
    workVolume: WorkVolume = Field(
        default_factory=WorkVolume, description="`kubernetes` mode: the runner's work volume"
    )


ScaleSet = Annotated[VmLauncherScaleSet | GpuPodScaleSet, Field(discriminator="kind")]
