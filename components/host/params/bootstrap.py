"""Parameters of the bootstrap steps that make a machine a GPU container host.

Driver, Docker, the NVIDIA container toolkit and its config, inotify limits, the pinned
tools (kind, kubectl, helm, nvkind) and the final verify, plus cloud-init and the SSH keys.
"""

from __future__ import annotations

from typing import Final, Literal, Self

from pydantic import Field, field_validator, model_validator

from components.host.params.ssh_keys import check_ssh_public_key
from components.host.params.step import (
    ABS_PATH_PATTERN,
    HTTPS_URL_PATTERN,
    PACKAGE_PATTERN,
    USER_PATTERN,
    RootedParams,
    StepParams,
    check_https_url,
)
from components.pins import PINS, SHA256_PATTERN, Arch, Pins

REBOOT_REQUIRED_EXIT: Final = 75
"""Exit code of `nvidia-driver` when the driver is installed but REBOOT is false."""


class CloudInitParams(StepParams):
    """Wait for first-boot cloud-init on a VM this stack created (growpart, users...)."""


class AuthorizedKeysParams(RootedParams):
    """Deliver `keys` to ~`user`/.ssh/authorized_keys, in a block gpu-ci manages.

    Instead of the instance metadata (`ssh_authorized_keys`), which OCI can only change by
    replacing the VM. Lines outside the `# BEGIN/END gpu-ci managed keys` block are kept,
    except plain lines of a key gpu-ci manages (in `keys`, or in the block before: cloud-init's
    copy of the metadata's keys), so that a key taken out of `keys` is revoked.
    """

    user: str = Field(pattern=USER_PATTERN)
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
    driver_package: str = Field(PINS.driver_package, pattern=PACKAGE_PATTERN)
    reboot: bool = Field(True, description="False on the local machine: exit 75 instead")
    reboot_delay_seconds: int = Field(5, ge=1, le=600)
    reboot_required_exit: Literal[75] = REBOOT_REQUIRED_EXIT


class DockerParams(RootedParams):
    docker_repo_url: str = Field(
        "https://download.docker.com/linux/ubuntu", pattern=HTTPS_URL_PATTERN
    )
    docker_packages: tuple[str, ...] = (
        "docker-ce",
        "docker-ce-cli",
        "containerd.io",
        "docker-buildx-plugin",
        "docker-compose-plugin",
    )
    docker_user: str = Field("", pattern=r"^([a-z_][a-z0-9_-]{0,31})?$")


class ContainerToolkitParams(RootedParams):
    toolkit_repo_url: str = Field(
        "https://nvidia.github.io/libnvidia-container", pattern=HTTPS_URL_PATTERN
    )
    toolkit_version: str = Field(PINS.toolkit_version, pattern=r"^[0-9][0-9A-Za-z.~+-]*$")
    toolkit_packages: tuple[str, ...] = (
        "nvidia-container-toolkit",
        "nvidia-container-toolkit-base",
        "libnvidia-container-tools",
        "libnvidia-container1",
    )


class ToolkitConfigParams(RootedParams):
    toolkit_config: str = Field(
        "/etc/nvidia-container-runtime/config.toml", pattern=ABS_PATH_PATTERN
    )
    docker_daemon_json: str = Field("/etc/docker/daemon.json", pattern=ABS_PATH_PATTERN)
    cdi_enabled: bool = False
    statedir: str = Field(
        "/var/lib/gpu-ci/toolkit-config",
        pattern=ABS_PATH_PATTERN,
        description="holds the marker of a Docker restart still owed after a failed one",
    )


class InotifyParams(RootedParams):
    sysctl_file: str = Field("/etc/sysctl.d/99-gpu-ci-inotify.conf", pattern=ABS_PATH_PATTERN)
    max_user_watches: int = Field(524288, ge=8192)
    # nvkind's own GPU CI uses 8192; kind needs at least 512 for a few nodes.
    max_user_instances: int = Field(8192, ge=512)


class ToolsParams(RootedParams):
    """Flat per-tool URL + digest; build from the pins with `ToolsParams.from_pins`."""

    bindir: str = Field("/usr/local/bin", pattern=ABS_PATH_PATTERN)
    statedir: str = Field("/var/lib/gpu-ci/tools", pattern=ABS_PATH_PATTERN)
    kind_url: str = Field(pattern=HTTPS_URL_PATTERN)
    kind_sha256: str = Field(pattern=SHA256_PATTERN)
    kubectl_url: str = Field(pattern=HTTPS_URL_PATTERN)
    kubectl_sha256: str = Field(pattern=SHA256_PATTERN)
    helm_url: str = Field(pattern=HTTPS_URL_PATTERN)
    helm_sha256: str = Field(pattern=SHA256_PATTERN)
    helm_archive_member: str = Field(pattern=r"^[A-Za-z0-9._/-]+$")
    nvkind_source: Literal["binary", "go"]
    nvkind_url: str = Field("", pattern=f"({HTTPS_URL_PATTERN})|^$")
    nvkind_sha256: str = Field("", pattern=f"({SHA256_PATTERN})|^$")
    nvkind_module: str = Field("github.com/NVIDIA/nvkind/cmd/nvkind", pattern=r"^[\w./-]+$")
    nvkind_commit: str = Field("", pattern=r"^([0-9a-f]{7,40})?$")
    go_url: str = Field("", pattern=f"({HTTPS_URL_PATTERN})|^$")
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
