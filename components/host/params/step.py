"""The host steps by name, and the parameter model every step's parameters extend.

Field names become upper-case shell names (`docker_user` -> `DOCKER_USER`), rendered as
`readonly` variables by `components/host/render.py`. Only plain values (str, int, bool,
tuples of str) are allowed; secrets are refused by the renderer, because a rendered script
is stored in Pulumi state and hashed into triggers. Absolute paths written by a step live
under `root` (the target system's root, `""` on a real host) so tests can run every script
against a scratch directory.
"""

from __future__ import annotations

import enum
import re
from typing import Final

from pydantic import BaseModel, ConfigDict, Field

ABS_PATH_PATTERN: Final = r"^/[^\x00]*[^/]$"
HTTPS_URL_PATTERN: Final = r"^https://[^\s'\"]+$"
PACKAGE_PATTERN: Final = r"^[a-z0-9][a-z0-9.+-]+$"
USER_PATTERN: Final = r"^[a-z_][a-z0-9_-]{0,31}$"
PLAIN_PATH_PATTERN: Final = r"^(/[A-Za-z0-9._-]+)+$"
"""A path written into a systemd unit or a command line: no spaces or quoting needed."""


class Step(enum.StrEnum):
    """Every host step; its value names its script, `scripts/<value>.sh`.

    Grouped by what they serve (bootstrap, GitHub runner, nvkind cluster), which is not
    the order they run in: `chain.bootstrap_steps` orders cloud-init (oci-vm only) to
    verify, and authorized-keys runs beside that chain; `*-remove` and `*-delete` run only
    when their resource is deleted; cluster-ready runs after the platform layer.
    """

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


def check_https_url(url: str) -> str:
    """`url` if it is an https:// URL a script can hold as is: no space, quote or break."""
    if not re.fullmatch(HTTPS_URL_PATTERN, url):
        raise ValueError(
            "not an https:// URL without spaces, quotes or line breaks (it is written into "
            "a host script); give the download's plain https:// URL"
        )
    return url
