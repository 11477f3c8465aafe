"""`gpu-ci:arc`: the ARC capacity, GitHub's Actions Runner Controller with GPU scale sets.

One controller (`gha-runner-scale-set-controller`) and a typed list of runner scale sets
(`gha-runner-scale-set`), on an existing cluster (a kubeconfig kept as a secret, or another
stack's `cluster`/`kubeconfig` exports) or on an enhanced OKE cluster created here with a
CPU node pool and an optional A10 node pool.

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
from typing import Annotated, Any, Literal, Self

from pydantic import (
    AfterValidator,
    Field,
    SecretStr,
    ValidationInfo,
    field_validator,
    model_validator,
)

from components.config_base import (
    CREDENTIAL_FILE,
    Cidr,
    ConfigModel,
    GithubUrl,
    Ocid,
    StackReferenceName,
    from_file,
)
from components.host.runner_config import RUNNER_LABEL, GithubAppConfig
from components.oci.shapes import GPU_SHAPES
from components.oci.vm_config import AD_NAME, SHAPE_NAME, AvailabilityDomain

ARC_CHARTS = "oci://ghcr.io/actions/actions-runner-controller-charts"
"""Where both ARC charts are published (FIELD-NOTES §2)."""
ARC_CHART_VERSION = "0.14.2"
"""gha-runner-scale-set(-controller) 0.14.2: the newest release (Chart.yaml of
actions/actions-runner-controller @ 2ee6b3b8, 2026-06-30; FIELD-NOTES §2 "latest 0.14.2")."""
CLEANUP_IMAGE = "docker.io/alpine/k8s:1.33.3"
"""kubectl plus a POSIX shell (the distroless registry.k8s.io/kubectl has no shell to filter
EphemeralRunners by phase). Pinned by tag; no digest could be confirmed offline."""
A10_SHAPES = tuple(name for name, shape in GPU_SHAPES.items() if shape.gpuModel == "A10")

_K8S_NAME = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")
_SCALE_SET_NAME = re.compile(r"^[a-z0-9]([a-z0-9-]{0,43}[a-z0-9])?$")
# Kubernetes' own rules (apimachinery's IsQualifiedName, IsValidLabelValue and
# IsDNS1123Subdomain), applied with fullmatch: a `$` anchor would let a trailing newline in.
_LABEL_NAME = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?")
_DNS_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS_SUBDOMAIN = re.compile(rf"{_DNS_LABEL}(\.{_DNS_LABEL})*")
_DNS_SUBDOMAIN_MAX = 253
_QUANTITY = re.compile(r"^[0-9]+(\.[0-9]+)?(m|k|Ki|M|Mi|G|Gi|T|Ti)?$")
_DIGEST_IMAGE = re.compile(r"^[a-z0-9][a-z0-9._/:-]*@sha256:[0-9a-f]{64}$")
_TAG = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$")
_TAGGED_IMAGE = re.compile(r"[a-z0-9][a-z0-9._/:-]*:[A-Za-z0-9_][A-Za-z0-9._-]*")
_REGION = re.compile(r"^[a-z]{2,}(-[a-z0-9]+)+-[0-9]+$")
_CRON = re.compile(r"[0-9*/,-]+( +[0-9*/,-]+){4}")  # five fields, spaces between
_PLACEHOLDER = "offline-placeholder:"


def _k8s_name(value: str) -> str:
    if not _K8S_NAME.fullmatch(value):
        raise ValueError(
            "not a Kubernetes name: lowercase letters, digits and '-', starting and ending "
            "with a letter or digit, at most 63 characters"
        )
    return value


K8sName = Annotated[str, AfterValidator(_k8s_name)]


def is_qualified_name(key: str) -> bool:
    """A Kubernetes label or taint key: an optional DNS-subdomain prefix (at most 253
    characters) and `/`, then a name of 1-63 characters."""
    prefix, slash, name = key.rpartition("/")
    if slash and (len(prefix) > _DNS_SUBDOMAIN_MAX or not _DNS_SUBDOMAIN.fullmatch(prefix)):
        return False
    return _LABEL_NAME.fullmatch(name) is not None


def is_label_value(value: str) -> bool:
    """A Kubernetes label or taint value: empty, or 1-63 characters as in a name."""
    return value == "" or _LABEL_NAME.fullmatch(value) is not None


def _labels(value: dict[str, str]) -> dict[str, str]:
    for key, label in value.items():
        if not is_qualified_name(key):
            raise ValueError(f"{key!r} is not a Kubernetes label key ([prefix/]name)")
        if not is_label_value(label):
            raise ValueError(f"{label!r} (for {key}) is not a Kubernetes label value")
    return value


NodeLabels = Annotated[dict[str, str], AfterValidator(_labels)]
"""Kubernetes labels, e.g. a node selector `{gpu-ci/pool: cpu}`."""


def _quantity(value: str) -> str:
    if not _QUANTITY.fullmatch(value):
        raise ValueError(f"{value!r} is not a Kubernetes quantity like 500m, 2 or 4Gi")
    return value


Quantity = Annotated[str, AfterValidator(_quantity)]


def _digest_image(value: str) -> str:
    if not _DIGEST_IMAGE.fullmatch(value):
        raise ValueError(
            "pin the image by digest (REGISTRY/REPO@sha256:<64 hex>): the launcher holds OCI "
            "credentials, so a moved tag must not change what runs"
        )
    return value


DigestImage = Annotated[str, AfterValidator(_digest_image)]


def _pinned_image(value: str) -> str:
    if _DIGEST_IMAGE.fullmatch(value):
        return value
    last = value.rsplit("/", 1)[-1]
    name, _, tag = last.partition(":")
    whole = _TAGGED_IMAGE.fullmatch(value)  # no space or line break anywhere in it
    if not name or not whole or not _TAG.fullmatch(tag) or tag == "latest":
        raise ValueError("pin the image by a version tag or a digest (not :latest, not untagged)")
    return value


PinnedImage = Annotated[str, AfterValidator(_pinned_image)]


def _secret_like(pattern: re.Pattern[str], what: str) -> Any:
    """A SecretStr check that accepts the offline plan's `secure:` placeholders."""

    def check(value: SecretStr) -> SecretStr:
        text = value.get_secret_value()
        if text.startswith(_PLACEHOLDER) or pattern.fullmatch(text):
            return value
        raise ValueError(f"not {what}")

    return AfterValidator(check)


class Toleration(ConfigModel):
    """A pod toleration, as in a PodSpec."""

    key: str | None = Field(None, description="the taint key (required with `Equal`)")
    operator: Literal["Exists", "Equal"] = Field(
        "Equal", description="`Equal`: the taint has `value`; `Exists`: any value"
    )
    value: str | None = Field(None, description="the taint value, with `Equal`")
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] | None = Field(
        None, description="default: every effect; the effect tolerated"
    )
    tolerationSeconds: int | None = Field(
        default=None, ge=0, description="`NoExecute`: how long the pod stays after the taint"
    )

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.operator == "Exists" and self.value is not None:
            raise ValueError("operator 'Exists' matches any value; remove value")
        if self.operator == "Equal" and self.key is None:
            raise ValueError("operator 'Equal' needs a key (or use operator 'Exists')")
        return self

    def to_k8s(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


def _taint_key(key: str) -> str:
    if not is_qualified_name(key):
        raise ValueError(
            f"{key!r} is not a Kubernetes taint key: an optional DNS-subdomain prefix and '/' "
            "(like nvidia.com/), then a name of 1-63 letters, digits, '-', '_' or '.' that "
            "starts and ends with a letter or digit"
        )
    return key


def _taint_value(value: str) -> str:
    if not is_label_value(value):
        raise ValueError(
            f"{value!r} is not a Kubernetes taint value: empty, or 1-63 letters, digits, "
            "'-', '_' or '.' that start and end with a letter or digit"
        )
    return value


class Taint(ConfigModel):
    """A node taint; pods need a matching toleration to run on the pool.

    Key, value and effect are checked exactly as Kubernetes checks a node's taints, so the
    GPU pool's init script (`--register-with-taints`) only ever carries such characters.
    """

    key: str = Field(description="the taint key, e.g. `nvidia.com/gpu`")
    value: str = Field("", description="the taint value")
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] = Field(
        "NoSchedule", description="what the taint does to pods without a toleration"
    )

    @field_validator("key")
    @classmethod
    def _key(cls, key: str) -> str:
        return _taint_key(key)

    @field_validator("value")
    @classmethod
    def _value(cls, value: str) -> str:
        return _taint_value(value)

    def toleration(self) -> Toleration:
        return Toleration(key=self.key, operator="Exists", effect=self.effect)

    def kubelet_flag(self) -> str:
        return f"{self.key}={self.value}:{self.effect}"


class ResourceList(ConfigModel):
    cpu: Quantity | None = Field(None, description="CPU, e.g. `500m` or `2`")
    memory: Quantity | None = Field(None, description="memory, e.g. `512Mi`")


class Resources(ConfigModel):
    """Container requests and limits."""

    requests: ResourceList | None = Field(None, description="what the container is given")
    limits: ResourceList | None = Field(None, description="the most it may use")

    def to_k8s(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


class ControllerConfig(ConfigModel):
    """The gha-runner-scale-set-controller release."""

    chartVersion: str = Field(
        ARC_CHART_VERSION,
        pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$",
        description="the version of both ARC charts (controller and scale sets)",
    )
    namespace: K8sName = Field("arc-systems", description="the controller's namespace")
    releaseName: K8sName = Field("arc", description="the controller's Helm release")
    resources: Resources = Field(
        default_factory=lambda: Resources(
            requests=ResourceList(cpu="100m", memory="128Mi"),
            limits=ResourceList(memory="512Mi"),
        ),
        description="the controller's requests and limits",
    )
    metrics: bool = Field(False, description="serve controller and listener metrics on :8080")
    runnerMaxConcurrentReconciles: int = Field(
        10, ge=1, le=100, description="EphemeralRunner reconciles in parallel (chart: 2)"
    )
    nodeSelector: NodeLabels | None = Field(
        None,
        description="default: the OKE CPU pool's labels (none elsewhere); where the "
        "controller, the listeners and the cleanup job run",
    )
    tolerations: list[Toleration] | None = Field(
        None, description="default: for the OKE CPU pool's taints (none elsewhere); theirs"
    )


_POOL_LABELS = "the nodes' labels (placement selects pools by them)"
_POOL_TAINTS = "the nodes' taints (pods need a toleration)"


class OkePool(ConfigModel):
    """One managed node pool."""

    shape: str = Field(description="the nodes' shape")
    size: int = Field(ge=0, le=100, description="how many nodes")
    ocpus: float | None = Field(
        default=None, gt=0, description="OCPUs per node: Flex shapes only, which need it"
    )
    memoryGbs: float | None = Field(
        default=None, gt=0, description="memory per node in GB: Flex shapes only, which need it"
    )
    bootVolumeSizeGbs: int = Field(100, ge=50, le=32768, description="boot volume in GB")
    labels: NodeLabels = Field(default_factory=dict, description=_POOL_LABELS)
    taints: list[Taint] = Field(default_factory=list, description=_POOL_TAINTS)
    imageId: Ocid | None = Field(
        None, description="default: the newest OKE image for the Kubernetes version; an OCID"
    )
    availabilityDomains: list[AvailabilityDomain] = Field(
        default_factory=lambda: list[int | str]([0]),
        min_length=1,
        description="the ADs nodes go in (indexes or names)",
    )

    @model_validator(mode="after")
    def _flex(self) -> Self:
        flex = self.shape.endswith(".Flex")
        given = self.ocpus is not None or self.memoryGbs is not None
        if flex and (self.ocpus is None or self.memoryGbs is None):
            raise ValueError(f"{self.shape} is a Flex shape: give ocpus and memoryGbs")
        if not flex and given:
            raise ValueError(f"{self.shape} is a fixed shape: remove ocpus and memoryGbs")
        return self


class OkeCpuPool(OkePool):
    """Controller, listeners and VM launchers run here."""

    shape: str = Field(
        "VM.Standard.E5.Flex", pattern=SHAPE_NAME.pattern, description="the nodes' shape"
    )
    size: int = Field(2, ge=1, le=100, description="how many nodes")
    labels: NodeLabels = Field(
        default_factory=lambda: {"gpu-ci/pool": "cpu"}, description=_POOL_LABELS
    )

    @model_validator(mode="before")
    @classmethod
    def _flex_defaults(cls, data: Any) -> Any:
        """A Flex shape (the default one included) gets 2 OCPUs and 16 GB unless given."""
        if isinstance(data, dict) and str(data.get("shape", "VM.Standard.E5.Flex")).endswith(
            ".Flex"
        ):
            return {"ocpus": 2, "memoryGbs": 16, **data}
        return data


class OkeGpuPool(OkePool):
    """A10 nodes for gpu-pod scale sets; the recipe engine's OKE overlay (oke-a10) deploys
    the GPU operator onto them (OKE's GPU images carry the driver)."""

    shape: str = Field("VM.GPU.A10.1", description=f"an A10 shape: {', '.join(A10_SHAPES)}")
    size: int = Field(1, ge=0, le=100, description="how many nodes")
    bootVolumeSizeGbs: int = Field(200, ge=50, le=32768, description="boot volume in GB")
    labels: NodeLabels = Field(
        default_factory=lambda: {"gpu-ci/pool": "gpu", "nvidia.com/gpu.present": "true"},
        description=_POOL_LABELS,
    )
    taints: list[Taint] = Field(
        default_factory=lambda: [Taint(key="nvidia.com/gpu", value="present")],
        description=_POOL_TAINTS,
    )

    @field_validator("shape")
    @classmethod
    def _a10(cls, shape: str) -> str:
        if shape not in A10_SHAPES:
            raise ValueError(f"the GPU pool takes an A10 shape: {', '.join(A10_SHAPES)}")
        return shape


class OkeConfig(ConfigModel):
    """An enhanced OKE cluster in gpu-ci:network's VCN and subnet (endpoint, nodes and load
    balancers share the subnet; the API endpoint is reachable from
    gpu-ci:network.apiSourceCidrs)."""

    name: str | None = Field(
        None,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,254}$",
        description="default: `PROJECT-STACK`; the cluster's name",
    )
    kubernetesVersion: str = Field(
        pattern=r"^v1\.[0-9]+\.[0-9]+$", description="the cluster's Kubernetes, `v1.X.Y`"
    )
    publicEndpoint: bool = Field(
        True, description="a public API endpoint (open to `network.apiSourceCidrs` only)"
    )
    podsCidr: Cidr = Field("10.244.0.0/16", description="the pods' network")
    servicesCidr: Cidr = Field("10.96.0.0/16", description="the services' network")
    cpuPool: OkeCpuPool = Field(
        default_factory=OkeCpuPool,
        description="CPU nodes: the controller, listeners and VM launchers",
    )
    gpuPool: OkeGpuPool | None = Field(
        None, description="required for `gpu-pod` scale sets; A10 nodes for them"
    )


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


class LaunchPlacement(ConfigModel):
    """Where the launcher creates VMs first."""

    region: str = Field(pattern=_REGION.pattern, description="an OCI region, e.g. `us-ashburn-1`")
    availabilityDomain: str = Field(
        pattern=AD_NAME.pattern, description="an AD name, e.g. `Uocm:US-ASHBURN-AD-1`"
    )
    subnetId: Ocid | None = Field(
        None, description="default: the subnet of this stack's `network` (and its NSG); a subnet"
    )


class FallbackPlacement(ConfigModel):
    """Where the launcher retries when the first region/AD is out of capacity."""

    region: str = Field(pattern=_REGION.pattern, description="the region to retry in")
    availabilityDomain: str = Field(pattern=AD_NAME.pattern, description="its AD name")
    subnetId: Ocid = Field(description="a subnet there")


class VmImageSelection(ConfigModel):
    """Which VM image the launcher boots: the newest image of its image family for `arch`
    (gha-cloudrunner: `ubuntu-24.04-<arch>-gha-image`, `rc-` prefixed for `ci`)."""

    arch: Literal["amd64", "arm64"] = Field("amd64", description="the image's architecture")
    runningEnvironment: Literal["production", "ci"] = Field(
        "production", description="`production`: released images; `ci`: `rc-` candidates"
    )


_OCID_TEXT = re.compile(r"ocid1\.[a-z0-9]+\.[a-z0-9-]+\.[a-z0-9-]*(\.[A-Za-z0-9_-]+)+")
_FINGERPRINT = re.compile(r"^([0-9a-f]{2}:){15}[0-9a-f]{2}$")
_PEM = re.compile(r"(?s).*PRIVATE KEY.*")  # fullmatch: anywhere in the text


class OciApiCredentials(ConfigModel):
    """An OCI API key of the user the launcher acts as; every field is stored as a secret
    (pulumi config set --secret --path gpu-ci:arc.scaleSets[0].ociCredentials.privateKey
    < oci_api_key.pem)."""

    user: Annotated[SecretStr, _secret_like(_OCID_TEXT, "a user OCID (ocid1.user...)")] = Field(
        description="the user's OCID"
    )
    tenancy: Annotated[SecretStr, _secret_like(_OCID_TEXT, "a tenancy OCID (ocid1.tenancy...)")] = (
        Field(description="the tenancy's OCID")
    )
    fingerprint: Annotated[
        SecretStr, _secret_like(_FINGERPRINT, "an API key fingerprint (aa:bb:...:ff)")
    ] = Field(description="the API key's fingerprint")
    privateKey: Annotated[
        SecretStr, _secret_like(_PEM, "a PEM private key"), from_file("oci_api_key.pem")
    ] = Field(description="the API key (PEM)")
    region: Annotated[SecretStr, _secret_like(_REGION, "an OCI region like us-ashburn-1")] = Field(
        description="the region its API calls go to"
    )


class WorkVolume(ConfigModel):
    """The runner's work volume in kubernetes container mode (an ephemeral PVC that the
    runner pod and its job pods share)."""

    storageClassName: str | None = Field(
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


class FailedRunnerCleanup(ConfigModel):
    """A CronJob deleting EphemeralRunners whose phase is Failed (they block scale-up)."""

    schedule: str = Field("*/10 * * * *", description="when it runs (five-field cron)")
    image: PinnedImage = Field(CLEANUP_IMAGE, description="kubectl with a shell, by tag or digest")

    @field_validator("schedule")
    @classmethod
    def _cron(cls, schedule: str) -> str:
        if not _CRON.fullmatch(schedule):
            raise ValueError("not a five-field cron schedule like '*/10 * * * *'")
        return schedule


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
