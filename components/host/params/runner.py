"""Parameters of the GitHub self-hosted runner steps, and the rules for runner names.

The stack's runner config calls the same `check_*` functions, so a bad value is refused at
config time with the message its parameter model would give.
"""

from __future__ import annotations

import base64
import re
from functools import cache
from importlib import resources
from typing import Annotated, Final, Self
from urllib.parse import urlsplit

from pydantic import Field, StringConstraints, field_validator, model_validator

from components.host.params.step import (
    ABS_PATH_PATTERN,
    HTTPS_URL_PATTERN,
    PACKAGE_PATTERN,
    PLAIN_PATH_PATTERN,
    USER_PATTERN,
    RootedParams,
)
from components.pins import PINS, SHA256_PATTERN, Arch, Pins

_GITHUB_NAME = r"^[A-Za-z0-9_.-]+$"
RUNNER_LABEL_PATTERN: Final = r"^[A-Za-z0-9._-]+$"
RUNNER_GROUP_PATTERN: Final = r"^[A-Za-z0-9._-][A-Za-z0-9 ._-]{0,99}$"
RUNNER_NAME_PATTERN: Final = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,54}$"
RUNNER_NAME_MAX: Final = 55
"""GitHub allows 64 characters; an ephemeral runner appends -<8 hex> per job."""
MAX_RUNNER_LABELS: Final = 100


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

    key_file: str = Field("/etc/gpu-ci/github-app/private-key.pem", pattern=ABS_PATH_PATTERN)
    key_owner: str = Field("root", pattern=USER_PATTERN)


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
    key_file: str = Field(
        GithubAppKeyParams.model_fields["key_file"].default, pattern=ABS_PATH_PATTERN
    )
    key_owner: str = Field(
        GithubAppKeyParams.model_fields["key_owner"].default,
        pattern=USER_PATTERN,
        description="who alone may read key_file (mode 0600): the minting service's user",
    )

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

    runner_url: str = Field(pattern=HTTPS_URL_PATTERN)
    runner_sha256: str = Field(pattern=SHA256_PATTERN)
    runner_version: str = Field(pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$")
    runner_name: str = Field(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,54}$",
        description="stable base name; ephemeral runners append -<8 hex> per job",
    )
    runner_labels: tuple[RunnerLabel, ...] = Field(min_length=1, max_length=100)
    runner_group: str = Field("Default", pattern=r"^[A-Za-z0-9._-][A-Za-z0-9 ._-]{0,99}$")
    ephemeral: bool = True
    runner_user: str = Field("gpu-ci-runner", pattern=USER_PATTERN)
    runner_home: str = Field("/opt/gpu-ci-runner", pattern=PLAIN_PATH_PATTERN)
    job_root: bool = Field(
        False,
        description=(
            "jobs get root: passwordless sudo AND the docker group (root-equivalent). Off: "
            "neither, and the unit adds NoNewPrivileges and a private /tmp"
        ),
    )
    service_name: str = Field("gpu-ci-runner", pattern=r"^[a-z0-9][a-z0-9_-]{0,63}$")
    statedir: str = Field("/var/lib/gpu-ci/runner", pattern=PLAIN_PATH_PATTERN)
    env_file: str = Field("/etc/gpu-ci/github-runner.env", pattern=PLAIN_PATH_PATTERN)
    loop_script: str = Field(
        "/usr/local/lib/gpu-ci/github-runner-loop.sh", pattern=PLAIN_PATH_PATTERN
    )
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
        if self.runner_user in ("root", self.key_owner):
            raise ValueError(
                f"runner_user {self.runner_user!r} may read the App key {self.key_file} "
                f"(owned by {self.key_owner!r}): jobs must run as a user of their own"
            )
        if self.runner_version not in self.runner_url:
            raise ValueError("runner_url does not name runner_version")
        for package in self.host_packages:
            if not re.fullmatch(PACKAGE_PATTERN, package):
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
    env_file: str = Field(
        GithubRunnerParams.model_fields["env_file"].default, pattern=PLAIN_PATH_PATTERN
    )
    loop_script: str = Field(
        GithubRunnerParams.model_fields["loop_script"].default, pattern=PLAIN_PATH_PATTERN
    )
    runner_home: str = Field(
        GithubRunnerParams.model_fields["runner_home"].default, pattern=PLAIN_PATH_PATTERN
    )
    statedir: str = Field(
        GithubRunnerParams.model_fields["statedir"].default, pattern=PLAIN_PATH_PATTERN
    )
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
