"""`gpu-ci:host`: where the bootstrap steps run and which versions they install.

One of three targets, chosen by `target`:
- `oci-vm`: every VM this stack creates (needs `gpu-ci:capacity: vm`), over SSH;
- `ssh`: an existing host, with a pinned host key and an optional bastion;
- `local`: the machine running `pulumi up` (an ephemeral CI VM or a GPU workstation).

Versions default to `components/host/pins.py`; a stack may override them here, and the
combination is checked against the compatibility model before anything registers.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import re
from typing import Annotated, Literal, Self

from pydantic import (
    AfterValidator,
    Field,
    SecretStr,
    StrictInt,
    ValidationInfo,
    field_validator,
    model_validator,
)

from components.host.compat import Combination, NvkindCommit, check
from components.host.pins import PINS, SHA256_PATTERN, Arch
from stacks.config.base import ConfigModel, from_file

_HOSTNAME = re.compile(
    r"^(([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*"
    r"|[0-9a-fA-F:.]+)$"
)
_HOST_KEY = re.compile(
    r"^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(256|384|521)) [A-Za-z0-9+/]+={0,3}$"
)
_USER = r"^[a-z_][a-z0-9_-]{0,31}$"


def _address(value: str) -> str:
    if not _HOSTNAME.fullmatch(value):
        raise ValueError(f"{value!r} is not a host name or IP address")
    # Hex digits, colons and dots pass the pattern; only real addresses may (`:::`, 1.2.3).
    version = 6 if ":" in value else 4 if re.fullmatch(r"[0-9.]+", value) else None
    if version is not None:
        try:
            ipaddress.ip_address(value)
        except ValueError:
            raise ValueError(
                f"not a valid IPv{version} address (nor a host name); give the host's "
                "address as ssh takes it, e.g. 192.0.2.10, 2001:db8::10 or gpu1.example.org"
            ) from None
    if len(value) > 253:
        raise ValueError(f"{value[:40]!r}... is longer than a host name can be (253)")
    return value


def _host_key(value: str) -> str:
    key = " ".join(value.split()[:2])  # drop a trailing comment, as known_hosts does
    if "\n" in value or "\r" in value or not _HOST_KEY.fullmatch(key):
        raise ValueError(
            "not an SSH host public key ('ssh-ed25519 AAAA...'); read it on the host with "
            "`cat /etc/ssh/ssh_host_ed25519_key.pub`, or with `ssh-keyscan -t ed25519 HOST` "
            "over a network you trust"
        )
    return key


Address = Annotated[str, AfterValidator(_address)]
HostKey = Annotated[str, AfterValidator(_host_key)]


def _private_key(value: SecretStr | None) -> SecretStr | None:
    # Offline plans read `secure:` values as placeholders; only real text is checked.
    text = "" if value is None else value.get_secret_value()
    if value is None or "PRIVATE KEY" in text or text.startswith("offline-placeholder:"):
        return value
    raise ValueError(
        "not a PEM/OpenSSH private key (-----BEGIN ... PRIVATE KEY-----); set it with "
        "`pulumi config set --secret --path <key> < ~/.ssh/id_ed25519`"
    )


PrivateKey = Annotated[
    SecretStr | None, AfterValidator(_private_key), from_file("~/.ssh/id_ed25519")
]


class ToolPin(ConfigModel):
    """Another tool version than the pinned one, with its published SHA-256 for the host's
    `arch`."""

    version: str = Field(pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$")
    sha256: str = Field(pattern=SHA256_PATTERN)


class NvkindConfig(ConfigModel):
    """nvkind has no releases: a commit (built with the pinned Go) or a prebuilt binary.

    `commitDate` orders commits for the compatibility rules; with `binaryUrl` it is the
    date of the commit the binary was built from.
    """

    commit: str = Field(PINS.nvkind.commit, pattern=r"^[0-9a-f]{7,40}$")
    commitDate: dt.date = PINS.nvkind.commit_date
    binaryUrl: str | None = Field(None, pattern=r"^https://\S+$")
    binarySha256: str | None = Field(None, pattern=SHA256_PATTERN)

    @model_validator(mode="after")
    def _binary_complete(self) -> Self:
        if (self.binaryUrl is None) != (self.binarySha256 is None):
            raise ValueError("binaryUrl and binarySha256 go together (a download is verified)")
        return self

    @model_validator(mode="after")
    def _date_with_commit(self) -> Self:
        if "commit" in self.model_fields_set and "commitDate" not in self.model_fields_set:
            raise ValueError(
                "commitDate is required with commit: the compatibility rules order nvkind "
                "commits by date (see `git show -s --format=%cs COMMIT`)"
            )
        return self


class HostVersions(ConfigModel):
    """What the bootstrap installs; every field defaults to the project's pins."""

    driverBranch: str = Field(
        PINS.driver_branch, pattern=r"^[0-9]{3}(-server|-open|-server-open)?$"
    )
    toolkit: str = Field(
        PINS.toolkit_version, pattern=r"^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.~+]+)?$"
    )
    nvkind: NvkindConfig = Field(default_factory=NvkindConfig)
    kind: ToolPin | None = None
    kubectl: ToolPin | None = None
    helm: ToolPin | None = None


class HostBase(ConfigModel):
    """What every target shares. `cdi` precedes `versions`: the compat check reads it."""

    arch: Arch = Field("amd64", description="the host's CPU architecture (downloads)")
    cdi: bool = Field(False, description="nvidia-ctk CDI mode (on for toolkit >= 1.18 setups)")
    versions: HostVersions = Field(default_factory=HostVersions)
    dockerUser: str | None = Field(None, pattern=_USER)

    @field_validator("versions")
    @classmethod
    def _compatible(cls, versions: HostVersions, info: ValidationInfo) -> HostVersions:
        report = check(combination(versions, cdi=bool(info.data.get("cdi"))))
        if not report.ok:
            raise ValueError(
                "known-bad combination: " + " ".join(str(finding) for finding in report.errors)
            )
        return versions


def combination(versions: HostVersions, *, cdi: bool) -> Combination:
    """The host part of the compatibility model's input."""
    return Combination(
        driver_branch=versions.driverBranch,
        toolkit_version=versions.toolkit,
        cdi_enabled=cdi,
        nvkind=NvkindCommit(sha=versions.nvkind.commit, date=versions.nvkind.commitDate),
    )


class OciVmHost(HostBase):
    """Each VM of `gpu-ci:vm`, reached at its public IP once cloud-init has finished."""

    target: Literal["oci-vm"]
    user: str = Field("ubuntu", pattern=_USER)
    privateKey: PrivateKey = Field(
        None, description="matches a key in gpu-ci:vm.sshAuthorizedKeys; None: ssh-agent"
    )
    reboot: bool = True


class SshProxy(ConfigModel):
    """A bastion the connection goes through."""

    address: Address
    port: StrictInt = Field(22, ge=1, le=65535)
    user: str = Field(pattern=_USER)
    privateKey: PrivateKey = None
    hostKey: HostKey | None = None


class SshHost(HostBase):
    """An existing GPU host."""

    target: Literal["ssh"]
    gpus: StrictInt | None = Field(None, ge=1, le=64, description="GPUs on the host, when known")
    address: Address
    port: StrictInt = Field(22, ge=1, le=65535)
    user: str = Field(pattern=_USER)
    privateKey: PrivateKey = Field(None, description="None: use the ssh-agent")
    hostKey: HostKey | None = Field(
        None, description="pinned; without it the first connection trusts any key"
    )
    proxy: SshProxy | None = None
    reboot: bool = True

    @field_validator("reboot")
    @classmethod
    def _reboot_reachable(cls, reboot: bool, info: ValidationInfo) -> bool:
        if reboot and info.data.get("proxy") is not None:
            raise ValueError(
                "a reboot cannot be awaited through a proxy (the wait probes the SSH port "
                "directly); set reboot: false (a driver install then stops and asks for a "
                "manual reboot) or install the driver beforehand"
            )
        return reboot


class LocalHost(HostBase):
    """The machine running `pulumi up`; it is never rebooted by the program."""

    target: Literal["local"]
    gpus: StrictInt | None = Field(None, ge=1, le=64, description="GPUs on the host, when known")


HostConfig = Annotated[OciVmHost | SshHost | LocalHost, Field(discriminator="target")]
HOST_TARGETS = ("oci-vm", "ssh", "local")
