"""The input types of gpu-ci's multi-language package: plain, documented, schema-expressible.

No `from __future__ import annotations` here: the SDK's analyzer reads each annotation as
the object it is, not as text (pulumi/sdk/python/lib/pulumi/provider/experimental/
analyzer.py @ v3.272.0, `inspect.get_annotations`). Each type is a TypedDict, because
`construct` hands a component its inputs as a plain dict (component.py `map_inputs`), so a
Python program and a TypeScript one give the component the same thing. Each field is named
as its key in a stack file (`gpu-ci:host.target` is the `host` input's `target`): the
config models validate them (`stacks.config.StackConfig`), and a problem names them so.
A config model's union is split into plain fields (every host target's fields in one
type; the model refuses those its target does not take) or, where its members are values
the schema cannot type, given as `Any` with the values it takes described.
"""

from typing import Any, NotRequired, TypedDict


class ToolPinInput(TypedDict):
    """A host tool at a version, with the SHA-256 of its download."""

    version: str
    """The tool's version, as its release names it."""
    sha256: str
    """The SHA-256 of the download for the host's architecture."""


class NvkindPinInput(TypedDict):
    """The nvkind commit the host builds, or a prebuilt binary of it."""

    commit: NotRequired[str]
    """The nvkind commit (default: the one gpu-ci pins)."""
    commitDate: NotRequired[str]
    """The commit's date, YYYY-MM-DD (it picks the Go toolchain)."""
    binaryUrl: NotRequired[str]
    """A prebuilt nvkind binary to download instead of building it."""
    binarySha256: NotRequired[str]
    """The SHA-256 of `binaryUrl` (required with it)."""


class HostVersionsInput(TypedDict):
    """What the host installs, where it differs from gpu-ci's pins."""

    driverBranch: NotRequired[str]
    """The NVIDIA driver branch (default `570-server`)."""
    toolkit: NotRequired[str]
    """The NVIDIA container toolkit's package version (default `1.17.8-1`)."""
    nvkind: NotRequired[NvkindPinInput]
    """The nvkind build."""
    kind: NotRequired[ToolPinInput]
    """kind, where it differs from the pin."""
    kubectl: NotRequired[ToolPinInput]
    """kubectl, where it differs from the pin."""
    helm: NotRequired[ToolPinInput]
    """helm, where it differs from the pin."""


class SshProxyInput(TypedDict):
    """A jump host the SSH connection goes through."""

    address: str
    """The jump host's address."""
    user: str
    """The user on the jump host."""
    port: NotRequired[int]
    """Its SSH port (default 22)."""
    privateKey: NotRequired[str]
    """The SSH private key for the jump host; pass it as a secret."""
    hostKey: NotRequired[str]
    """The jump host's public host key, pinned."""


class HostInput(TypedDict):
    """Where the bootstrap steps run, and what they install (the config's `gpu-ci:host`)."""

    target: str
    """`oci-vm` (the VMs this component creates: give `vm`), `ssh` (one machine over SSH)
    or `local` (the machine running `pulumi up`)."""
    arch: NotRequired[str]
    """`amd64` (default) or `arm64`."""
    cdi: NotRequired[bool]
    """Inject GPUs with CDI specs instead of the legacy runtime hook (default false)."""
    versions: NotRequired[HostVersionsInput]
    """Versions that differ from gpu-ci's pins."""
    dockerUser: NotRequired[str]
    """A user added to the docker group."""
    user: NotRequired[str]
    """The SSH user (`oci-vm`: default `ubuntu`; `ssh`: required)."""
    privateKey: NotRequired[str]
    """The SSH private key (`oci-vm`, `ssh`); pass it as a secret."""
    reboot: NotRequired[bool]
    """Reboot after a driver install when the host needs it (default true)."""
    address: NotRequired[str]
    """`ssh`: the host's IPv4 address or DNS name."""
    port: NotRequired[int]
    """`ssh`: its SSH port (default 22)."""
    hostKey: NotRequired[str]
    """`ssh`: the host's public host key, pinned (unset: any key is accepted, with a
    warning)."""
    proxy: NotRequired[SshProxyInput]
    """`ssh`: a jump host."""
    gpus: NotRequired[int]
    """`ssh`, `local`: the GPUs on the host (an `oci-vm` host's come from its shape)."""


class GithubAppInput(TypedDict):
    """The GitHub App that registers runners and mints their tokens."""

    appId: int
    """The App's id."""
    installationId: int
    """The App installation's id."""
    privateKey: str
    """The App's private key (PEM); pass it as a secret."""


class RunnerInput(TypedDict):
    """Register each host as a GitHub Actions self-hosted runner (`gpu-ci:runner`)."""

    url: str
    """The organization, enterprise or repository URL runners register with."""
    githubApp: GithubAppInput
    """The GitHub App the runner service mints its just-in-time configs with."""
    labels: NotRequired[list[str]]
    """The runner's labels (default for `oci-vm`: the VM shape's label)."""
    group: NotRequired[str]
    """The runner group (default `Default`)."""
    ephemeral: NotRequired[bool]
    """One job per registration (default true)."""


class ImageInput(TypedDict):
    """The VM image: an id, or the newest image matching the OS filter."""

    id: NotRequired[str]
    """An image OCID, pinned."""
    operatingSystem: NotRequired[str]
    """The OS to filter on (default `Canonical Ubuntu`)."""
    operatingSystemVersion: NotRequired[str]
    """Its version (default `24.04`)."""


class VmInput(TypedDict):
    """The GPU VMs on OCI a host of target `oci-vm` bootstraps (`gpu-ci:vm`)."""

    shape: NotRequired[str]
    """The GPU shape (default `VM.GPU.A10.1`)."""
    allowUnlistedShape: NotRequired[bool]
    """Accept a shape gpu-ci has no data about (default false)."""
    count: NotRequired[int]
    """How many VMs (default 1)."""
    availabilityDomains: NotRequired[list[Any]]
    """Candidate availability domains, each an index (0, 1, 2) or a name like
    `Uocm:PHX-AD-1`; the first with room is used."""
    image: NotRequired[ImageInput]
    """The image."""
    bootVolumeSizeGbs: NotRequired[int]
    """The boot volume's size (default 512)."""
    assignPublicIp: NotRequired[bool]
    """Give each VM a public IP (default true)."""
    sshAuthorizedKeys: NotRequired[list[str]]
    """OpenSSH public keys allowed to log in."""


class NetworkInput(TypedDict):
    """The VCN, subnet and NSG rules of the VMs (`gpu-ci:network`)."""

    vcnCidr: NotRequired[str]
    """The VCN's CIDR (default `10.0.0.0/16`)."""
    subnetCidr: NotRequired[str]
    """The subnet's CIDR (default `10.0.1.0/24`)."""
    existingSubnetId: NotRequired[str]
    """Use this subnet instead of creating a network."""
    sshSourceCidrs: NotRequired[list[str]]
    """CIDRs allowed to reach SSH."""
    apiSourceCidrs: NotRequired[list[str]]
    """CIDRs allowed to reach the Kubernetes API."""
    apiPort: NotRequired[int]
    """The Kubernetes API port the NSG opens (default 6443)."""
    allowWorldIngress: NotRequired[bool]
    """Allow 0.0.0.0/0 in the CIDR lists (default false)."""
    dnsLabel: NotRequired[str]
    """The VCN's DNS label (default `gpuci`)."""


class ExtraMountInput(TypedDict):
    """A host path mounted into every kind node."""

    hostPath: str
    """The path on the host."""
    containerPath: str
    """The path in the node."""
    readOnly: NotRequired[bool]
    """Mount read-only (default false)."""
    propagation: NotRequired[str]
    """`None`, `HostToContainer` or `Bidirectional`."""


class ClusterInput(TypedDict):
    """The nvkind cluster on the host (`gpu-ci:cluster`)."""

    name: NotRequired[str]
    """The kind cluster's name (default `gpu-ci`)."""
    nodeImage: NotRequired[str]
    """The kind node image (default: the one pinned for `kindVersion`)."""
    kindVersion: NotRequired[str]
    """The kind release (default `0.31.0`)."""
    gpus: NotRequired[Any]
    """`all` (one worker with every GPU, the default), `one-per-gpu`, or a list of GPU
    index lists, one per worker (`[[0], [1]]`)."""
    expectGpus: NotRequired[int]
    """The GPUs the cluster must advertise; also turns on the GPU count and NCCL checks."""
    workerLabels: NotRequired[dict[str, str]]
    """Labels on every worker node."""
    extraMounts: NotRequired[list[ExtraMountInput]]
    """Host paths mounted into the nodes."""
    apiServerAddress: NotRequired[str]
    """`0.0.0.0` (default: reachable from the deployer) or `127.0.0.1`."""
    apiServerPort: NotRequired[int]
    """The API server's port (default 6443)."""
    certSANs: NotRequired[list[str]]
    """Extra names in the API server's certificate."""


class PlatformInput(TypedDict):
    """The recipe deployed onto the cluster (`gpu-ci:platform`): criteria, or catalogs."""

    service: NotRequired[str]
    """The recipe criterion `service` (default `kind`)."""
    accelerator: NotRequired[str]
    """The GPU model criterion (`a10`, `h100`, ...; default: the VM shape's)."""
    os: NotRequired[str]
    """The OS criterion."""
    intent: NotRequired[str]
    """`training` (default) or `inference`."""
    platform: NotRequired[str]
    """The platform criterion (default `kubeflow`)."""
    catalogs: NotRequired[list[str]]
    """Recipe catalog folders read before gpu-ci's own (AICR's format)."""
    set: NotRequired[list[str]]
    """Overrides, `component:path=value`, each checked against the pinned chart's values."""
    runtimeClassPatch: NotRequired[bool]
    """Patch the Trainer runtimes with `runtimeClassName: nvidia` (default: when needed)."""
    deploymentChecks: NotRequired[bool]
    """Run the health checks after deploying (default true)."""
    clusterStack: NotRequired[str]
    """Another stack (`org/project/stack`) exporting the cluster to deploy onto."""
