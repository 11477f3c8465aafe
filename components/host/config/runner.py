"""`gpu-ci:runner`: register each host as a GitHub Actions self-hosted runner.

The runner authenticates as a GitHub App: the host mints a short-lived installation
token and a just-in-time runner config before every job, so no registration token ever
passes through config, state or logs. Only the App's private key travels, as a secret.

That key outlives every job and sits on the host, root-only. So root for jobs is opt-in
(`jobRoot`: sudo and the docker group, which is root too), and with it the stack is
refused unless `allowJobsToReadAppKey` says, for private repositories, that every job may
take the key; a persistent runner's own credential is readable by its jobs, so
`ephemeral: false` needs `allowJobsToReadRunnerCredential` (docs/security.md#threat-model).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, SecretStr, StrictInt, ValidationInfo, field_validator

from components.config_base import CREDENTIAL_FILE, ConfigModel, GithubUrl
from components.host.params.runner import check_runner_group, check_runner_labels

# A GitHub runner label (also an ARC scale set name, which is its label).
RUNNER_LABEL = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"

RunnerScope = Literal["repository", "organization", "enterprise"]


class GithubAppConfig(ConfigModel):
    """The GitHub App installed on the repository, organization or enterprise."""

    appId: StrictInt = Field(ge=1, description="the GitHub App's ID")
    installationId: StrictInt = Field(ge=1, description="its installation's ID")
    privateKey: SecretStr = Field(
        description="the App's PEM private key (`pulumi config set --secret --path KEY < key.pem`)",
        json_schema_extra={CREDENTIAL_FILE: "key.pem"},
    )

    @field_validator("privateKey")
    @classmethod
    def _pem(cls, value: SecretStr) -> SecretStr:
        text = value.get_secret_value()
        if "PRIVATE KEY" not in text and not text.startswith("offline-placeholder:"):
            raise ValueError(
                "not a PEM private key (-----BEGIN RSA PRIVATE KEY-----); download it from "
                "the App's settings page and set it with --secret"
            )
        return value


class RunnerConfig(ConfigModel):
    """Where the runners register, and how jobs find them."""

    url: GithubUrl = Field(
        description="where the runners register: `https://github.com/ORG[/REPO]` or "
        "`https://github.com/enterprises/NAME`"
    )
    labels: list[str] | None = Field(
        None,
        description="default: from the VM shape, e.g. `oracle-vm-gpu-a10-1` (required for "
        "`ssh` hosts); the labels jobs select with `runs-on`",
    )
    group: str = Field(
        "Default",
        min_length=1,
        max_length=100,
        description="the runner group (organizations and enterprises; repositories: "
        "`Default`); give it only the repositories that use it (docs/security.md#threat-model)",
    )
    ephemeral: bool = Field(True, description="one job per runner, then a fresh one")
    jobRoot: bool = Field(
        False,
        description="`true`: jobs get root on the host: passwordless sudo and the docker "
        "group (as root as sudo), which the gpu-cluster action needs; then they can read the "
        "App key too, so it needs `allowJobsToReadAppKey`. `false`: neither (an earlier grant "
        "is taken back), no setuid, a private /tmp",
    )
    allowJobsToReadAppKey: bool = Field(
        False,
        validate_default=True,
        description="`true` with `jobRoot`: accept that any job can take the App key from "
        "the host and act as the App until the key is revoked. Only where every job is "
        "trusted (private repositories); public ones: ARC's `vm-launcher` kind",
    )
    allowJobsToReadRunnerCredential: bool = Field(
        False,
        validate_default=True,
        description="`true` with `ephemeral: false`: accept that any job can copy the "
        "persistent runner's own credential and take its later jobs (private repositories "
        "only)",
    )
    githubApp: GithubAppConfig = Field(
        description="the GitHub App the hosts mint just-in-time runner configs with"
    )

    @field_validator("labels")
    @classmethod
    def _labels(cls, labels: list[str] | None) -> list[str] | None:
        if labels is None:
            return None
        if not labels:
            raise ValueError("an empty list; omit labels to derive them from the shape")
        check_runner_labels(labels)  # the runner step's rule (count, characters)
        bad = [label for label in labels if not re.fullmatch(RUNNER_LABEL, label)]
        if bad:
            raise ValueError(f"labels may hold letters, digits, '.', '_' and '-': {bad}")
        if len(set(labels)) != len(labels):
            raise ValueError(f"{labels} lists a label twice")
        return labels

    @field_validator("group")
    @classmethod
    def _group_text(cls, group: str) -> str:
        return check_runner_group(group)  # the runner step's rule, checked before anything

    @field_validator("url")
    @classmethod
    def _names_an_enterprise(cls, url: str) -> str:
        if url.removeprefix("https://github.com/") == "enterprises":
            raise ValueError(
                "https://github.com/enterprises names no enterprise: use "
                "https://github.com/enterprises/NAME (the enterprise's slug), or "
                "https://github.com/ORG for an organization"
            )
        return url

    @field_validator("allowJobsToReadAppKey")
    @classmethod
    def _app_key_reachable(cls, allow: bool, info: ValidationInfo) -> bool:
        """Root on a host that holds the App key lets every job take it: refused unless
        acknowledged (GitHub: self-hosted runners for private repositories only)."""
        root = info.data.get("jobRoot")
        if root and not allow:
            raise ValueError(
                "required with jobRoot: true, which gives every job root on the host (sudo "
                "and the docker group), and root reads the GitHub App key there, which "
                "registers and removes runners until it is revoked. For jobs that need root "
                "use ARC's vm-launcher kind (gpu-ci:arc.scaleSets[].kind: vm-launcher: a fresh "
                "VM per job, the key off it), else jobRoot: false; only where every job is "
                "trusted (private repositories) set allowJobsToReadAppKey: true"
            )
        if allow and root is False:
            raise ValueError(
                "true, but jobRoot is false: no job can read the App key; remove "
                "allowJobsToReadAppKey"
            )
        return allow

    @field_validator("allowJobsToReadRunnerCredential")
    @classmethod
    def _runner_credential_reachable(cls, allow: bool, info: ValidationInfo) -> bool:
        """A persistent runner's jobs run as the user holding its credential."""
        ephemeral = info.data.get("ephemeral")
        if ephemeral is False and not allow:
            raise ValueError(
                "required with ephemeral: false, which keeps one runner registered for good "
                "while its jobs run as the user holding its credential (.credentials_rsaparams): "
                "any job can copy it and take later jobs, their secrets included. Use "
                "ephemeral: true (the default); only where every job is trusted (private "
                "repositories) set allowJobsToReadRunnerCredential: true"
            )
        if allow and ephemeral:
            raise ValueError(
                "true, but the runner is ephemeral (its credential ends with its one job); "
                "remove allowJobsToReadRunnerCredential"
            )
        return allow

    @property
    def scope(self) -> RunnerScope:
        path = self.url.removeprefix("https://github.com/")
        if path.startswith("enterprises/"):
            return "enterprise"
        return "repository" if "/" in path else "organization"

    @field_validator("group")
    @classmethod
    def _group_for_scope(cls, group: str, info: ValidationInfo) -> str:
        url = info.data.get("url")
        path = (url or "").removeprefix("https://github.com/")
        if "/" in path and not path.startswith("enterprises/") and group != "Default":
            raise ValueError(
                "repository runners can only join the 'Default' group; register at the "
                "organization (https://github.com/ORG) to use runner groups"
            )
        return group
