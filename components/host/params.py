"""Typed parameters of each host step, rendered as `readonly` shell variables.

Field names become upper-case shell names (`docker_user` -> `DOCKER_USER`). Only plain
values (str, int, bool, tuples of str) are allowed; secrets are refused by the renderer,
because a rendered script is stored in Pulumi state and hashed into triggers.
Absolute paths written by a step live under `root` (the target system's root, `""` on a
real host) so tests can run every script against a scratch directory.
"""

from __future__ import annotations

import base64
import enum
import re
from functools import cache
from importlib import resources
from typing import Annotated, Final, Literal, Self
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

from components.pins import PINS, SHA256_PATTERN, Arch, Pins

REBOOT_REQUIRED_EXIT: Final = 75
"""Exit code of `nvidia-driver` when the driver is installed but REBOOT is false."""

_ABS_PATH = r"^/[^\x00]*[^/]$"
_HTTPS = r"^https://[^\s'\"]+$"
_PACKAGE = r"^[a-z0-9][a-z0-9.+-]+$"
_USER = r"^[a-z_][a-z0-9_-]{0,31}$"
# Paths written into a systemd unit or a command line: no spaces or quoting needed.
_PLAIN_PATH = r"^(/[A-Za-z0-9._-]+)+$"
_GITHUB_NAME = r"^[A-Za-z0-9_.-]+$"
RUNNER_LABEL_PATTERN: Final = r"^[A-Za-z0-9._-]+$"
RUNNER_GROUP_PATTERN: Final = r"^[A-Za-z0-9._-][A-Za-z0-9 ._-]{0,99}$"
RUNNER_NAME_PATTERN: Final = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,54}$"
RUNNER_NAME_MAX: Final = 55
"""GitHub allows 64 characters; an ephemeral runner appends -<8 hex> per job."""
MAX_RUNNER_LABELS: Final = 100

# --- the rules for values a stack's config feeds into these models ------------------------
# Each raises ValueError with the fix; the config models call the same functions, so a bad
# value is refused at config time with the message its parameter model would give.


def check_https_url(url: str) -> str:
    """`url` if it is an https:// URL a script can hold as is: no space, quote or break."""
    if not re.fullmatch(_HTTPS, url):
        raise ValueError(
            "not an https:// URL without spaces, quotes or line breaks (it is written into "
            "a host script); give the download's plain https:// URL"
        )
    return url


def check_runner_group(group: str) -> str:
    """`group` if a runner can join it as written into its config on the host."""
    if not re.fullmatch(RUNNER_GROUP_PATTERN, group):
        raise ValueError(
            "a runner group name here is 1 to 100 letters, digits, spaces, '.', '_' or '-', "
            "not starting with a space (it is written into the runner's config on the host); "
            "use the group's name without quotes, `$`, `(` or line breaks, or 'Default'"
        )
    return group


def check_runner_labels(labels: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """`labels` if GitHub takes them: 1 to 100, each of letters, digits, '.', '_', '-'."""
    if not 1 <= len(labels) <= MAX_RUNNER_LABELS:
        raise ValueError(
            f"{len(labels)} labels: a runner takes 1 to {MAX_RUNNER_LABELS} labels; "
            "list only those jobs select runners by"
        )
    for index, label in enumerate(labels):
        if not isinstance(label, str) or len(label) > 100:
            raise ValueError(f"label {index} is not a label of up to 100 characters")
        if not re.fullmatch(RUNNER_LABEL_PATTERN, label):
            raise ValueError(
                f"label {index} ({label!r}) may hold only letters, digits, '.', '_' and '-'; "
                "remove the line break, space or other character"
            )
    return tuple(labels)


def check_runner_name(name: str) -> str:
    """`name` if GitHub takes it as a runner's base name (ephemeral ones get -<8 hex>)."""
    if not re.fullmatch(RUNNER_NAME_PATTERN, name):
        raise ValueError(
            f"runner name {name!r} ({len(name)} characters) is not 1 to {RUNNER_NAME_MAX} "
            "letters, digits, '.', '_' or '-' starting with a letter or digit (GitHub allows "
            "64, and an ephemeral runner appends -<8 hex> per job)"
        )
    return name


class Step(enum.StrEnum):
    """The bootstrap steps, in the order a host runs them."""

    CLOUD_INIT = "cloud-init"
    AUTHORIZED_KEYS = "authorized-keys"
    NVIDIA_DRIVER = "nvidia-driver"
    DOCKER = "docker"
    CONTAINER_TOOLKIT = "container-toolkit"
    TOOLKIT_CONFIG = "toolkit-config"
    INOTIFY = "inotify"
    TOOLS = "tools"
    VERIFY = "verify"
    GITHUB_APP_KEY = "github-app-key"
    GITHUB_RUNNER = "github-runner"
    GITHUB_RUNNER_REMOVE = "github-runner-remove"
    NVKIND_CLUSTER = "nvkind-cluster"
    CLUSTER_KUBECONFIG = "cluster-kubeconfig"
    CLUSTER_READY = "cluster-ready"
    NVKIND_CLUSTER_DELETE = "nvkind-cluster-delete"


class StepParams(BaseModel):
    """Parameters every step takes: bounded retries for apt locks and downloads."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    retry_attempts: int = Field(6, ge=1, le=20)
    retry_base_seconds: int = Field(2, ge=0, le=60, description="backoff doubles from here")


class RootedParams(StepParams):
    """A step that writes files: they go under `root` (empty on a real host)."""

    root: str = Field("", pattern=r"^(/[^\x00]*[^/])?$")


class CloudInitParams(StepParams):
    """Wait for first-boot cloud-init on a VM this stack created (growpart, users...)."""


SSH_KEY_TYPES: Final = (
    "ssh-ed25519",
    "ssh-rsa",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "sk-ssh-ed25519@openssh.com",
    "sk-ecdsa-sha2-nistp256@openssh.com",
)
"""The OpenSSH public key types `AuthorizedKeysParams.keys` accepts."""

_SSH_KEY_BODY = re.compile(r"[A-Za-z0-9+/]+={0,2}")


def _is_control(char: str) -> bool:
    """A character no key line may hold: C0/C1 controls but tab, and Unicode line breaks."""
    return (char != "\t" and (char < " " or "\x7f" <= char <= "\x9f")) or char in "\u2028\u2029"


def check_ssh_public_key(key: str, label: str = "key") -> str:
    """`key` if it is one OpenSSH public key line `TYPE BASE64 [COMMENT]`, else ValueError.

    The body must decode to a key blob of TYPE (its first field names the type), so a
    truncated paste or a type that does not match its body is caught before any host
    sees it. An options prefix (`command="..." ssh-ed25519 ...`) is refused.
    """
    if any(c in key for c in "\n\r\x00"):
        raise ValueError(f"{label} contains a line break or NUL: give one key line per entry")
    control = next((c for c in key if _is_control(c)), None)
    if control is not None:
        raise ValueError(
            f"{label} contains the control character {control!r} (a vertical tab, form feed "
            "or other line separator, often from a paste): remove it; a key line is "
            "printable text"
        )
    key_type, _, rest = key.partition(" ")
    if key_type not in SSH_KEY_TYPES:
        raise ValueError(
            f"{label} does not start with an OpenSSH public key type "
            f"({', '.join(SSH_KEY_TYPES)}): it starts with {key_type[:40]!r}"
        )
    body = rest.partition(" ")[0]
    if not _SSH_KEY_BODY.fullmatch(body) or len(body) % 4:
        raise ValueError(f"{label}: the {key_type} key's body is not base64")
    blob = base64.b64decode(body)
    size = int.from_bytes(blob[:4], "big")
    if len(blob) < 4 + size or blob[4 : 4 + size] != key_type.encode():
        raise ValueError(
            f"{label}: the base64 body is not a {key_type} key (truncated, or another type)"
        )
    return key


class AuthorizedKeysParams(RootedParams):
    """Deliver `keys` to ~`user`/.ssh/authorized_keys, in a block gpu-ci manages.

    Instead of the instance metadata (`ssh_authorized_keys`), which OCI can only change by
    replacing the VM. Lines outside the `# BEGIN/END gpu-ci managed keys` block are kept.
    """

    user: str = Field(pattern=_USER)
    keys: tuple[str, ...]

    @field_validator("keys")
    @classmethod
    def _public_key_lines(cls, keys: tuple[str, ...]) -> tuple[str, ...]:
        if not keys:
            raise ValueError("keys is empty: give at least one OpenSSH public key line")
        seen: dict[str, int] = {}
        for i, key in enumerate(keys):
            check_ssh_public_key(key, f"keys[{i}]")
            blob = key.split(" ", 2)[1]
            if blob in seen:
                raise ValueError(f"keys[{i}] is the same key as keys[{seen[blob]}]")
            seen[blob] = i
        return keys


class NvidiaDriverParams(StepParams):
    driver_package: str = Field(PINS.driver_package, pattern=_PACKAGE)
    reboot: bool = Field(True, description="False on the local machine: exit 75 instead")
    reboot_delay_seconds: int = Field(5, ge=1, le=600)
    reboot_required_exit: Literal[75] = REBOOT_REQUIRED_EXIT


class DockerParams(RootedParams):
    docker_repo_url: str = Field("https://download.docker.com/linux/ubuntu", pattern=_HTTPS)
    docker_packages: tuple[str, ...] = (
        "docker-ce",
        "docker-ce-cli",
        "containerd.io",
        "docker-buildx-plugin",
        "docker-compose-plugin",
    )
    docker_user: str = Field("", pattern=r"^([a-z_][a-z0-9_-]{0,31})?$")


class ContainerToolkitParams(RootedParams):
    toolkit_repo_url: str = Field("https://nvidia.github.io/libnvidia-container", pattern=_HTTPS)
    toolkit_version: str = Field(PINS.toolkit_version, pattern=r"^[0-9][0-9A-Za-z.~+-]*$")
    toolkit_packages: tuple[str, ...] = (
        "nvidia-container-toolkit",
        "nvidia-container-toolkit-base",
        "libnvidia-container-tools",
        "libnvidia-container1",
    )


class ToolkitConfigParams(RootedParams):
    toolkit_config: str = Field("/etc/nvidia-container-runtime/config.toml", pattern=_ABS_PATH)
    docker_daemon_json: str = Field("/etc/docker/daemon.json", pattern=_ABS_PATH)
    cdi_enabled: bool = False
    statedir: str = Field(
        "/var/lib/gpu-ci/toolkit-config",
        pattern=_ABS_PATH,
        description="holds the marker of a Docker restart still owed after a failed one",
    )


class InotifyParams(RootedParams):
    sysctl_file: str = Field("/etc/sysctl.d/99-gpu-ci-inotify.conf", pattern=_ABS_PATH)
    max_user_watches: int = Field(524288, ge=8192)
    # nvkind's own GPU CI uses 8192; kind needs at least 512 for a few nodes.
    max_user_instances: int = Field(8192, ge=512)


class ToolsParams(RootedParams):
    """Flat per-tool URL + digest; build from the pins with `ToolsParams.from_pins`."""

    bindir: str = Field("/usr/local/bin", pattern=_ABS_PATH)
    statedir: str = Field("/var/lib/gpu-ci/tools", pattern=_ABS_PATH)
    kind_url: str = Field(pattern=_HTTPS)
    kind_sha256: str = Field(pattern=SHA256_PATTERN)
    kubectl_url: str = Field(pattern=_HTTPS)
    kubectl_sha256: str = Field(pattern=SHA256_PATTERN)
    helm_url: str = Field(pattern=_HTTPS)
    helm_sha256: str = Field(pattern=SHA256_PATTERN)
    helm_archive_member: str = Field(pattern=r"^[A-Za-z0-9._/-]+$")
    nvkind_source: Literal["binary", "go"]
    nvkind_url: str = Field("", pattern=f"({_HTTPS})|^$")
    nvkind_sha256: str = Field("", pattern=f"({SHA256_PATTERN})|^$")
    nvkind_module: str = Field("github.com/NVIDIA/nvkind/cmd/nvkind", pattern=r"^[\w./-]+$")
    nvkind_commit: str = Field("", pattern=r"^([0-9a-f]{7,40})?$")
    go_url: str = Field("", pattern=f"({_HTTPS})|^$")
    go_sha256: str = Field("", pattern=f"({SHA256_PATTERN})|^$")

    @field_validator("kind_url", "kubectl_url", "helm_url", "nvkind_url", "go_url", mode="before")
    @classmethod
    def _plain_urls(cls, url: object) -> object:
        if isinstance(url, str) and url:
            check_https_url(url)
        return url

    @model_validator(mode="after")
    def _nvkind_source_complete(self) -> Self:
        if self.nvkind_source == "binary" and not (self.nvkind_url and self.nvkind_sha256):
            raise ValueError("nvkind_source=binary needs nvkind_url and nvkind_sha256")
        if self.nvkind_source == "go" and not (
            self.nvkind_commit and self.go_url and self.go_sha256
        ):
            raise ValueError("nvkind_source=go needs nvkind_commit, go_url and go_sha256")
        return self

    @classmethod
    def from_pins(
        cls,
        pins: Pins = PINS,
        arch: Arch = "amd64",
        *,
        nvkind_binary: tuple[str, str] | None = None,
        **overrides: object,
    ) -> ToolsParams:
        """Parameters for `arch`; `nvkind_binary=(url, sha256)` skips the Go build."""
        nvkind: dict[str, object]
        if nvkind_binary is not None:
            nvkind = {
                "nvkind_source": "binary",
                "nvkind_url": nvkind_binary[0],
                "nvkind_sha256": nvkind_binary[1],
            }
        else:
            nvkind = {
                "nvkind_source": "go",
                "nvkind_module": pins.nvkind.module,
                "nvkind_commit": pins.nvkind.commit,
                "go_url": pins.go.url(arch),
                "go_sha256": pins.go.checksum(arch),
            }
        values: dict[str, object] = {
            "kind_url": pins.kind.url(arch),
            "kind_sha256": pins.kind.checksum(arch),
            "kubectl_url": pins.kubectl.url(arch),
            "kubectl_sha256": pins.kubectl.checksum(arch),
            "helm_url": pins.helm.url(arch),
            "helm_sha256": pins.helm.checksum(arch),
            "helm_archive_member": f"linux-{arch}/helm",
            **nvkind,
            **overrides,
        }
        return cls.model_validate(values)


class VerifyParams(StepParams):
    verify_image: str = Field("ubuntu:24.04", pattern=r"^[\w.:/@-]+$")
    expected_gpus: int = Field(0, ge=0, description="0 accepts any non-zero count")


# --- GitHub self-hosted runner ------------------------------------------------------


def github_scope(github_url: str) -> str:
    """The REST API path of the runner scope `github_url` names.

    `https://github.com/ORG/REPO` -> `repos/ORG/REPO`, `https://github.com/ORG` ->
    `orgs/ORG`, `https://github.com/enterprises/ENT` -> `enterprises/ENT` (any host, so
    GitHub Enterprise Server URLs work too).
    """
    parts = urlsplit(github_url)
    names = [name for name in parts.path.split("/") if name]
    if (
        parts.scheme != "https"
        or not parts.hostname
        or parts.query
        or parts.fragment
        or parts.username
        or parts.password
        or not 1 <= len(names) <= 2
        or not all(re.fullmatch(_GITHUB_NAME, name) for name in names)
    ):
        raise ValueError(
            f"github_url {github_url!r} is not https://HOST/ORG, https://HOST/ORG/REPO "
            "or https://HOST/enterprises/ENTERPRISE"
        )
    if len(names) == 1:
        return f"orgs/{names[0]}"
    if names[0] == "enterprises":
        return f"enterprises/{names[1]}"
    return f"repos/{names[0]}/{names[1]}"


def shape_runner_label(shape: str, provider: str = "oracle") -> str:
    """The default runner label of a cloud shape: `VM.GPU.A10.1` -> `oracle-vm-gpu-a10-1`.

    The CNCF ARC GPU runners are named (and targeted) this way (FIELD-NOTES §2).
    """
    slug = re.sub(r"[^a-z0-9]+", "-", f"{provider}-{shape}".lower()).strip("-")
    if not re.fullmatch(r"[a-z0-9]+-[a-z0-9][a-z0-9-]*", slug):
        raise ValueError(f"shape {shape!r} gives no usable runner label")
    return slug


@cache
def github_runner_loop_source() -> str:
    """The text of `scripts/github-runner-loop.sh`, installed by the github-runner step."""
    source = resources.files("components.host").joinpath("scripts", "github-runner-loop.sh")
    return source.read_text()


RunnerLabel = Annotated[str, StringConstraints(pattern=RUNNER_LABEL_PATTERN, max_length=100)]


class GithubAppKeyParams(RootedParams):
    """Write the GitHub App private key, read from the step's stdin, to `key_file`.

    The key itself is never a parameter: the rendered script runs as `bash -c <script>`
    with the PEM on stdin. Its directory is created 0700 when missing; the file is 0600.
    """

    key_file: str = Field("/etc/gpu-ci/github-app/private-key.pem", pattern=_ABS_PATH)
    key_owner: str = Field("root", pattern=_USER)


class GithubAppParams(RootedParams):
    """Where runners register, and the GitHub App that mints their tokens on the host."""

    github_url: str = Field(description="https://github.com/ORG[/REPO] or .../enterprises/ENT")
    github_api_url: str = Field("https://api.github.com", pattern=r"^https://[^\s'\"]+[^/]$")
    github_scope: str = Field(
        "",
        pattern=r"^(repos/[^/]+/[^/]+|orgs/[^/]+|enterprises/[^/]+)$",
        description="derived from github_url by `github_scope`; never set by hand",
    )
    app_id: int = Field(ge=1)
    installation_id: int = Field(ge=1)
    key_file: str = Field(GithubAppKeyParams.model_fields["key_file"].default, pattern=_ABS_PATH)

    @model_validator(mode="before")
    @classmethod
    def _derive_scope(cls, data: object) -> object:
        if isinstance(data, dict) and isinstance(data.get("github_url"), str):
            derived = github_scope(data["github_url"])
            if data.get("github_scope") not in (None, "", derived):
                raise ValueError(
                    f"github_scope {data['github_scope']!r} does not match github_url "
                    f"(which names {derived!r})"
                )
            data = {**data, "github_scope": derived}
        return data


class GithubRunnerParams(GithubAppParams):
    """Install the pinned runner and a systemd service that registers it with GitHub.

    Ephemeral (the default): every service start mints a just-in-time config for one job;
    systemd's `Restart=always` starts the next. The loop script reads its parameters from
    `env_file` (0644, no secrets); build this with `GithubRunnerParams.from_pins`.
    """

    runner_url: str = Field(pattern=_HTTPS)
    runner_sha256: str = Field(pattern=SHA256_PATTERN)
    runner_version: str = Field(pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$")
    runner_name: str = Field(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,54}$",
        description="stable base name; ephemeral runners append -<8 hex> per job",
    )
    runner_labels: tuple[RunnerLabel, ...] = Field(min_length=1, max_length=100)
    runner_group: str = Field("Default", pattern=r"^[A-Za-z0-9._-][A-Za-z0-9 ._-]{0,99}$")
    ephemeral: bool = True
    runner_user: str = Field("gpu-ci-runner", pattern=_USER)
    runner_home: str = Field("/opt/gpu-ci-runner", pattern=_PLAIN_PATH)
    runner_sudo: bool = Field(True, description="passwordless sudo: jobs restart docker, nvkind")
    service_name: str = Field("gpu-ci-runner", pattern=r"^[a-z0-9][a-z0-9_-]{0,63}$")
    statedir: str = Field("/var/lib/gpu-ci/runner", pattern=_PLAIN_PATH)
    env_file: str = Field("/etc/gpu-ci/github-runner.env", pattern=_PLAIN_PATH)
    loop_script: str = Field("/usr/local/lib/gpu-ci/github-runner-loop.sh", pattern=_PLAIN_PATH)
    host_packages: tuple[str, ...] = ("jq", "openssl", "curl")
    loop_source_b64: str = Field(
        default_factory=lambda: base64.b64encode(github_runner_loop_source().encode()).decode(),
        pattern=r"^[A-Za-z0-9+/]*={0,2}$",
        description=(
            "scripts/github-runner-loop.sh in base64 (shell-safe as is); a field so the "
            "step's script, and its hash, follow the loop script"
        ),
    )

    @field_validator("runner_name", mode="before")
    @classmethod
    def _runner_name(cls, name: object) -> object:
        return check_runner_name(name) if isinstance(name, str) else name

    @field_validator("runner_labels", mode="before")
    @classmethod
    def _runner_labels(cls, labels: object) -> object:
        return check_runner_labels(labels) if isinstance(labels, tuple | list) else labels

    @field_validator("runner_group", mode="before")
    @classmethod
    def _runner_group(cls, group: object) -> object:
        return check_runner_group(group) if isinstance(group, str) else group

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if len(set(self.runner_labels)) != len(self.runner_labels):
            raise ValueError("runner_labels has duplicates")
        if self.github_scope.startswith("repos/") and self.runner_group != "Default":
            raise ValueError(
                f"runner_group {self.runner_group!r}: repository runners can only join the "
                "Default group (runner groups belong to organizations and enterprises)"
            )
        if self.runner_version not in self.runner_url:
            raise ValueError("runner_url does not name runner_version")
        for package in self.host_packages:
            if not re.fullmatch(_PACKAGE, package):
                raise ValueError(f"host_packages: {package!r} is not a package name")
        return self

    @classmethod
    def from_pins(
        cls, pins: Pins = PINS, arch: Arch = "amd64", **values: object
    ) -> GithubRunnerParams:
        """The pinned runner tarball for `arch`, plus `values` (github_url, app_id, ...)."""
        pinned: dict[str, object] = {
            "runner_url": pins.runner.url(arch),
            "runner_sha256": pins.runner.checksum(arch),
            "runner_version": pins.runner.version,
        }
        return cls.model_validate({**pinned, **values})


class GithubRunnerRemoveParams(RootedParams):
    """Undo github-runner on destroy: stop, deregister, remove files. Idempotent."""

    service_name: str = GithubRunnerParams.model_fields["service_name"].default
    env_file: str = Field(GithubRunnerParams.model_fields["env_file"].default, pattern=_PLAIN_PATH)
    loop_script: str = Field(
        GithubRunnerParams.model_fields["loop_script"].default, pattern=_PLAIN_PATH
    )
    runner_home: str = Field(
        GithubRunnerParams.model_fields["runner_home"].default, pattern=_PLAIN_PATH
    )
    statedir: str = Field(GithubRunnerParams.model_fields["statedir"].default, pattern=_PLAIN_PATH)
    purge: bool = Field(True, description="also delete runner_home and statedir")

    @classmethod
    def for_runner(cls, runner: GithubRunnerParams, **values: object) -> GithubRunnerRemoveParams:
        """The removal of exactly what `runner` installed."""
        fields = [
            "retry_attempts",
            "retry_base_seconds",
            "root",
            "service_name",
            "env_file",
            "loop_script",
            "runner_home",
            "statedir",
        ]
        return cls.model_validate({**{f: getattr(runner, f) for f in fields}, **values})


# --- the nvkind GPU cluster ---------------------------------------------------------------

API_SERVER_ADDRESS_PLACEHOLDER: Final = "__GPU_CI_API_SERVER_ADDRESS__"
"""In a rendered kind config: the SAN nvkind-cluster replaces with $API_SERVER_ADDRESS
(the same constant as components.cluster.kind_config's)."""

_CLUSTER_NAME = r"^[a-z0-9]([a-z0-9.-]{0,47}[a-z0-9])?$"
_NODE_IMAGE = r"^kindest/node:v[0-9]+\.[0-9]+\.[0-9]+(@sha256:[0-9a-f]{64})?$"


class _ClusterPaths(RootedParams):
    """Where a cluster's state lives: `statedir/<cluster_name>/` and its kubeconfig."""

    cluster_name: str = Field(pattern=_CLUSTER_NAME)
    statedir: str = Field("/var/lib/gpu-ci/nvkind", pattern=_PLAIN_PATH)
    kubeconfig_path: str = Field(
        "",
        pattern=f"({_PLAIN_PATH})|^$",
        description="where nvkind writes the admin kubeconfig; empty: statedir/NAME/kubeconfig",
    )
    use_sudo: bool = Field(True, description="run kind/nvkind as root (Docker needs it)")

    @model_validator(mode="before")
    @classmethod
    def _default_kubeconfig(cls, data: object) -> object:
        if isinstance(data, dict) and not data.get("kubeconfig_path") and data.get("cluster_name"):
            statedir = data.get("statedir") or cls.model_fields["statedir"].default
            data = {**data, "kubeconfig_path": f"{statedir}/{data['cluster_name']}/kubeconfig"}
        return data

    @classmethod
    def _of(cls, cluster: _ClusterPaths, *extra: str, **values: object) -> Self:
        """This step's parameters for exactly the cluster `cluster` describes: its retry
        settings, root, name, state folder, kubeconfig and sudo, plus `extra` fields."""
        fields = [*_CLUSTER_FIELDS, *extra]
        return cls.model_validate({**{f: getattr(cluster, f) for f in fields}, **values})


_CLUSTER_FIELDS = (
    "retry_attempts",
    "retry_base_seconds",
    "root",
    "cluster_name",
    "statedir",
    "kubeconfig_path",
    "use_sudo",
)


class NvkindClusterParams(_ClusterPaths):
    """Create (or adopt) the nvkind cluster described by `kind_config`.

    `kind_config` is `components.cluster.kind_config.render_kind_config`'s output. The
    host's address is read at run time from $API_SERVER_ADDRESS; the kubeconfig comes
    back (base64) in the result line only, so the caller marks stdout secret.
    """

    kind_config: str = Field(min_length=1)
    node_image: str = Field(pattern=_NODE_IMAGE)
    api_server_port: int = Field(6443, ge=1, le=65535)
    expected_gpus: int = Field(0, ge=0, description="0 accepts any non-zero count")

    @model_validator(mode="after")
    def _config_matches(self) -> Self:
        config = self.kind_config
        if "{{" in config:
            raise ValueError("kind_config contains '{{', which nvkind reads as a template")
        if config.count(API_SERVER_ADDRESS_PLACEHOLDER) != 1:
            raise ValueError(
                f"kind_config must name {API_SERVER_ADDRESS_PLACEHOLDER} once (a certSAN); "
                "render it with components.cluster.kind_config.render_kind_config"
            )
        lines = config.splitlines()
        if f"name: {self.cluster_name}" not in lines:
            raise ValueError(f"kind_config does not name cluster {self.cluster_name!r}")
        if f"  apiServerPort: {self.api_server_port}" not in lines:
            raise ValueError(f"kind_config does not set apiServerPort {self.api_server_port}")
        if f"  image: {self.node_image}" not in lines:
            raise ValueError(f"kind_config's nodes do not run {self.node_image}")
        return self


class NvkindClusterDeleteParams(_ClusterPaths):
    """Delete the cluster (`kind delete cluster`) and its state; a missing one is fine."""

    @classmethod
    def for_cluster(cls, cluster: _ClusterPaths, **values: object) -> NvkindClusterDeleteParams:
        """The deletion of exactly what `cluster` created."""
        return cls._of(cluster, **values)


class ClusterKubeconfigParams(_ClusterPaths):
    """Return the cluster's kubeconfig (base64, in the result line), read from the host.

    Changes nothing: its parameters are only the cluster's identity (name, paths, port),
    so its script changes with the cluster (or lib.sh), not with the nvkind-cluster step's
    routine re-runs, and the Kubernetes provider built on its output stays known at
    preview. The server is https://$API_SERVER_ADDRESS:`api_server_port`; the caller
    marks stdout secret.
    """

    api_server_port: int = Field(6443, ge=1, le=65535)

    @classmethod
    def for_cluster(cls, cluster: NvkindClusterParams, **values: object) -> ClusterKubeconfigParams:
        """The kubeconfig of exactly the cluster `cluster` created."""
        return cls._of(cluster, "api_server_port", **values)


class ClusterReadyParams(RootedParams):
    """Wait until every node is Ready and `expected_gpus` nvidia.com/gpu are allocatable.

    Runs after the platform layer installed the GPU operator or device plugin; on timeout
    it fails naming what is missing (nodes not Ready, no device-plugin pod, counts).
    """

    kubeconfig_path: str = Field(pattern=_PLAIN_PATH, description="nvkind-cluster's")
    expected_gpus: int = Field(1, ge=1)
    timeout_seconds: int = Field(600, ge=1, le=7200)
    poll_seconds: int = Field(10, ge=1, le=600)
    use_sudo: bool = Field(True, description="read the root-owned kubeconfig as root")

    @classmethod
    def for_cluster(cls, cluster: _ClusterPaths, **values: object) -> ClusterReadyParams:
        """The wait for the cluster `cluster` created, through its on-host kubeconfig."""
        fields = ["retry_attempts", "retry_base_seconds", "root", "kubeconfig_path", "use_sudo"]
        return cls.model_validate({**{f: getattr(cluster, f) for f in fields}, **values})


PARAMS_BY_STEP: dict[Step, type[StepParams]] = {
    Step.CLOUD_INIT: CloudInitParams,
    Step.AUTHORIZED_KEYS: AuthorizedKeysParams,
    Step.NVIDIA_DRIVER: NvidiaDriverParams,
    Step.DOCKER: DockerParams,
    Step.CONTAINER_TOOLKIT: ContainerToolkitParams,
    Step.TOOLKIT_CONFIG: ToolkitConfigParams,
    Step.INOTIFY: InotifyParams,
    Step.TOOLS: ToolsParams,
    Step.VERIFY: VerifyParams,
    Step.GITHUB_APP_KEY: GithubAppKeyParams,
    Step.GITHUB_RUNNER: GithubRunnerParams,
    Step.GITHUB_RUNNER_REMOVE: GithubRunnerRemoveParams,
    Step.NVKIND_CLUSTER: NvkindClusterParams,
    Step.CLUSTER_KUBECONFIG: ClusterKubeconfigParams,
    Step.CLUSTER_READY: ClusterReadyParams,
    Step.NVKIND_CLUSTER_DELETE: NvkindClusterDeleteParams,
}
