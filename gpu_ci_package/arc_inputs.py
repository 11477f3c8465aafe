"""The input types of ArcRunnerScaleSets (`gpu-ci:arc`), plain and documented.

No `from __future__ import annotations`: the SDK's analyzer reads annotations as objects
(see `gpu_ci_package/inputs.py`). Scale sets are the config's `gpu-pod` kind only (each
runner a pod with GPUs); the `vm-launcher` kind and an OKE cluster created here stay with
the Python program (docs/multi-language.md).
"""

from typing import NotRequired, TypedDict


class TolerationInput(TypedDict):
    """A Kubernetes toleration."""

    key: NotRequired[str]
    """The taint key (unset with `Exists`: every taint)."""
    operator: NotRequired[str]
    """`Equal` (default) or `Exists`."""
    value: NotRequired[str]
    """The taint value, with `Equal`."""
    effect: NotRequired[str]
    """`NoSchedule`, `PreferNoSchedule` or `NoExecute` (unset: all)."""
    tolerationSeconds: NotRequired[int]
    """With `NoExecute`: how long the pod stays."""


class ResourceListInput(TypedDict):
    """CPU and memory quantities."""

    cpu: NotRequired[str]
    """CPU, a Kubernetes quantity (`100m`, `2`)."""
    memory: NotRequired[str]
    """Memory, a Kubernetes quantity (`128Mi`)."""


class ResourcesInput(TypedDict):
    """A container's requests and limits."""

    requests: NotRequired[ResourceListInput]
    """What the scheduler reserves."""
    limits: NotRequired[ResourceListInput]
    """The most it may use."""


class ArcControllerInput(TypedDict):
    """ARC's controller (the gha-runner-scale-set-controller chart)."""

    chartVersion: NotRequired[str]
    """The ARC charts' version (default: gpu-ci's pin)."""
    namespace: NotRequired[str]
    """The controller's namespace (default `arc-systems`)."""
    releaseName: NotRequired[str]
    """The controller's Helm release name (default `arc`)."""
    resources: NotRequired[ResourcesInput]
    """The controller pod's requests and limits."""
    metrics: NotRequired[bool]
    """Serve the controller's and listeners' metrics (default: with `metrics`)."""
    runnerMaxConcurrentReconciles: NotRequired[int]
    """Runners reconciled at once (default 10)."""
    nodeSelector: NotRequired[dict[str, str]]
    """Where the controller and listeners run."""
    tolerations: NotRequired[list[TolerationInput]]
    """Taints they tolerate."""


class ArcClusterInput(TypedDict):
    """The cluster ARC runs on: exactly one of `kubeconfig` and `clusterStack`."""

    kubeconfig: NotRequired[str]
    """An existing cluster's kubeconfig, a secret, known at preview."""
    clusterStack: NotRequired[str]
    """Another stack (`org/project/stack`) exporting `cluster` and `kubeconfig`."""


class WorkVolumeInput(TypedDict):
    """The runner's work volume (an ephemeral PVC)."""

    storageClassName: NotRequired[str]
    """Its storage class (default: the cluster's default)."""
    size: NotRequired[str]
    """Its size (default `20Gi`)."""


class GpuScaleSetInput(TypedDict):
    """A runner scale set whose runners are pods with GPUs."""

    name: str
    """The scale set's name: the label jobs use in `runs-on`."""
    githubConfigUrl: str
    """The organization, enterprise or repository URL it registers with."""
    maxRunners: int
    """The most runners at once."""
    runnerImage: str
    """The runner image, pinned by digest."""
    minRunners: NotRequired[int]
    """Runners kept idle (default 0)."""
    runnerGroup: NotRequired[str]
    """The runner group (default `Default`)."""
    labels: NotRequired[list[str]]
    """Extra labels."""
    gpus: NotRequired[int]
    """GPUs per runner pod (default 1)."""
    runtimeClassName: NotRequired[str]
    """The runner pod's runtime class (`nvidia` where the runtime is not the default)."""
    containerMode: NotRequired[str]
    """`kubernetes` (default: job containers as pods) or `dind`."""
    workVolume: NotRequired[WorkVolumeInput]
    """The work volume."""
    nodeSelector: NotRequired[dict[str, str]]
    """Where runner pods run."""
    tolerations: NotRequired[list[TolerationInput]]
    """Taints they tolerate (default: the `nvidia.com/gpu` taint)."""
    resources: NotRequired[ResourcesInput]
    """The runner container's requests and limits."""


class FailedRunnerCleanupInput(TypedDict):
    """A CronJob deleting Failed EphemeralRunners, which block scale-up."""

    schedule: NotRequired[str]
    """When it runs (five-field cron; default every 10 minutes)."""
    image: NotRequired[str]
    """The kubectl image it runs, pinned by digest (default: gpu-ci's pin)."""
