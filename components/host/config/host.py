"""`gpu-ci:host`: where the bootstrap steps run, and how they are reached.

One of three targets, chosen by `target`:
- `oci-vm`: every VM this stack creates (needs `gpu-ci:capacity: vm`), over SSH;
- `ssh`: an existing host, with a pinned host key and an optional bastion;
- `local`: the machine running `pulumi up` (an ephemeral CI VM or a GPU workstation).

Each target also takes `versions` (`versions.py`), checked against the
compatibility model before anything registers.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    Field,
    SecretStr,
    StrictInt,
    ValidationInfo,
    field_validator,
)

from components.config_base import ConfigModel, from_file
from components.host.config.compat import check
from components.host.config.versions import HostVersions, combination
from components.pins import Arch

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


# Field descriptions: the config reference, docs/configuration.md (stacks/config/reference.py).
_VERSIONS = "what the bootstrap installs, checked against the toolkit x nvkind x CDI rules"
_DOCKER_USER = "default: the SSH user (none for `local`); added to the `docker` group"
_REBOOT = 'reboot after installing a missing driver, and wait; `false`: stop, "reboot required"'
_GPUS = "required for `cluster.gpus: one-per-gpu`; its GPU count (the verify step checks it)"


class HostBase(ConfigModel):
    """What every target shares. `cdi` precedes `versions`: the compat check reads it."""

    arch: Arch = Field("amd64", description="the host's CPU architecture (which downloads)")
    cdi: bool = Field(False, description="configure the toolkit for CDI (`nvidia-ctk`)")
    versions: HostVersions = Field(default_factory=HostVersions, description=_VERSIONS)
    dockerUser: str | None = Field(None, pattern=_USER, description=_DOCKER_USER)

    @field_validator("versions")
    @classmethod
    def _compatible(cls, versions: HostVersions, info: ValidationInfo) -> HostVersions:
        report = check(combination(versions, cdi=bool(info.data.get("cdi"))))
        if not report.ok:
            raise ValueError(
                "known-bad combination: " + " ".join(str(finding) for finding in report.errors)
            )
        return versions


class OciVmHost(HostBase):
    """Each VM of `gpu-ci:vm`, reached at its public IP once cloud-init has finished."""

    target: Literal["oci-vm"] = Field(description="each VM of `vm`, over SSH")
    user: str = Field("ubuntu", pattern=_USER, description="the SSH login")
    privateKey: PrivateKey = Field(
        None, description="default: the ssh-agent; the key of one of `vm.sshAuthorizedKeys`"
    )
    reboot: bool = Field(True, description=_REBOOT)


class SshProxy(ConfigModel):
    """A bastion the connection goes through."""

    address: Address = Field(description="the bastion's host name or IP address")
    port: StrictInt = Field(22, ge=1, le=65535, description="its SSH port")
    user: str = Field(pattern=_USER, description="its SSH login")
    privateKey: PrivateKey = Field(None, description="default: the ssh-agent; its SSH key")
    hostKey: HostKey | None = Field(None, description="its pinned host key; unset: any key")


class SshHost(HostBase):
    """An existing GPU host."""

    target: Literal["ssh"] = Field(description="an existing GPU host, over SSH")
    gpus: StrictInt | None = Field(None, ge=1, le=64, description=_GPUS)
    address: Address = Field(description="its host name or IP address (IPv4 for a `cluster`)")
    port: StrictInt = Field(22, ge=1, le=65535, description="its SSH port")
    user: str = Field(pattern=_USER, description="the SSH login")
    privateKey: PrivateKey = Field(None, description="default: the ssh-agent; the SSH key")
    hostKey: HostKey | None = Field(
        None,
        description="its host key (`ssh-ed25519 AAAA...`), pinned; without it the first "
        "connection trusts any key",
    )
    proxy: SshProxy | None = Field(None, description="a bastion the connection goes through")
    reboot: bool = Field(True, description=_REBOOT + " (must be `false` with `proxy`)")

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

    target: Literal["local"] = Field(description="the machine running `pulumi up` (no reboots)")
    gpus: StrictInt | None = Field(None, ge=1, le=64, description=_GPUS)


HostConfig = Annotated[OciVmHost | SshHost | LocalHost, Field(discriminator="target")]
HOST_TARGETS = ("oci-vm", "ssh", "local")
