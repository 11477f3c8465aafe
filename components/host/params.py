"""Typed parameters of each host step, rendered as `readonly` shell variables.

Field names become upper-case shell names (`docker_user` -> `DOCKER_USER`). Only plain
values (str, int, bool, tuples of str) are allowed; secrets are refused by the renderer,
because a rendered script is stored in Pulumi state and hashed into triggers.
Absolute paths written by a step live under `root` (the target system's root, `""` on a
real host) so tests can run every script against a scratch directory.
"""

from __future__ import annotations

import enum
from typing import Final, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from components.host.pins import PINS, SHA256_PATTERN, Arch, Pins

REBOOT_REQUIRED_EXIT: Final = 75
"""Exit code of `nvidia-driver` when the driver is installed but REBOOT is false."""

_ABS_PATH = r"^/[^\x00]*[^/]$"
_HTTPS = r"^https://[^\s'\"]+$"
_PACKAGE = r"^[a-z0-9][a-z0-9.+-]+$"


class Step(enum.StrEnum):
    """The bootstrap steps, in the order a host runs them."""

    NVIDIA_DRIVER = "nvidia-driver"
    DOCKER = "docker"
    CONTAINER_TOOLKIT = "container-toolkit"
    TOOLKIT_CONFIG = "toolkit-config"
    INOTIFY = "inotify"
    TOOLS = "tools"
    VERIFY = "verify"


class StepParams(BaseModel):
    """Parameters every step takes: bounded retries for apt locks and downloads."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    retry_attempts: int = Field(6, ge=1, le=20)
    retry_base_seconds: int = Field(2, ge=0, le=60, description="backoff doubles from here")


class RootedParams(StepParams):
    """A step that writes files: they go under `root` (empty on a real host)."""

    root: str = Field("", pattern=r"^(/[^\x00]*[^/])?$")


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


PARAMS_BY_STEP: dict[Step, type[StepParams]] = {
    Step.NVIDIA_DRIVER: NvidiaDriverParams,
    Step.DOCKER: DockerParams,
    Step.CONTAINER_TOOLKIT: ContainerToolkitParams,
    Step.TOOLKIT_CONFIG: ToolkitConfigParams,
    Step.INOTIFY: InotifyParams,
    Step.TOOLS: ToolsParams,
    Step.VERIFY: VerifyParams,
}
