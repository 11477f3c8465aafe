"""`gpu-ci:vm`: the VM capacity, OCI GPU instances registered as self-hosted runners."""

from __future__ import annotations

import re
from typing import Annotated, Self

from pydantic import (
    AfterValidator,
    Field,
    StrictInt,
    ValidationInfo,
    field_validator,
    model_validator,
)

from components.config_base import ConfigModel, Ocid
from components.host.params.ssh_keys import check_ssh_public_key
from components.oci.shapes import GPU_SHAPES
from core.errors import did_you_mean

# OCI names the stack validates before any call: "Uocm:US-ASHBURN-AD-1", "VM.GPU.A10.1".
AD_NAME = re.compile(r"^[A-Za-z0-9]+:[A-Z0-9]+(-[A-Z0-9]+)*-AD-\d+$")
SHAPE_NAME = re.compile(r"^(VM|BM)\.[A-Za-z0-9]+(\.[A-Za-z0-9-]+)+$")
_SSH_KEY = re.compile(
    r"^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(256|384|521)|sk-ssh-ed25519@openssh\.com|"
    r"sk-ecdsa-sha2-nistp256@openssh\.com) [A-Za-z0-9+/]+={0,3}( .*)?$"
)


def _availability_domain(value: str | int) -> str | int:
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"index {value} is negative; use 0 for the region's first AD")
        return value
    if not AD_NAME.fullmatch(value):
        raise ValueError(
            f"{value!r} is neither an index (0, 1, 2) nor an availability domain name "
            "like 'Uocm:PHX-AD-1'"
        )
    return value


AvailabilityDomain = Annotated[StrictInt | str, AfterValidator(_availability_domain)]


def _public_key(value: str) -> str:
    value = value.strip(" \t")  # a line break is no padding: it is refused below
    if "PRIVATE KEY" in value:
        raise ValueError(
            "this is a PRIVATE key; list public keys here (the .pub file) and never put a "
            "private key in plain config"
        )
    if not _SSH_KEY.fullmatch(value):
        raise ValueError("not an OpenSSH public key ('ssh-ed25519 AAAA... comment')")
    # The rule the authorized-keys host step applies, checked here, before anything
    # registers: the body decodes to a key of the type it names.
    return check_ssh_public_key(value, "the key")


SshPublicKey = Annotated[str, AfterValidator(_public_key)]


class ImageConfig(ConfigModel):
    """The boot image: an explicit OCID, or the newest platform image matching a filter.

    An OCID pins the image (for example an OCI GPU image with the driver preinstalled). A
    filter picks the newest image compatible with the shape; later image releases do not
    replace running VMs (see `OciGpuInstance`), `pulumi up --replace` does.
    """

    id: Ocid | None = Field(None, description="an image OCID to pin, instead of the filter")
    operatingSystem: str = Field(
        "Canonical Ubuntu", description="filter: the newest image of this OS for the shape"
    )
    operatingSystemVersion: str = Field("24.04", description="filter: its version")

    @model_validator(mode="after")
    def _id_or_filter(self) -> Self:
        given = self.model_fields_set & {"operatingSystem", "operatingSystemVersion"}
        if self.id is not None and given:
            raise ValueError(
                f"give either id or operatingSystem/operatingSystemVersion, not both "
                f"(id pins the image; {', '.join(sorted(given))} would be ignored)"
            )
        return self


class VmCapacityConfig(ConfigModel):
    """GPU VMs this stack creates, each a self-hosted runner."""

    allowUnlistedShape: bool = Field(
        False, description="accept a shape newer than the list in components/oci/shapes.py"
    )
    shape: str = Field("VM.GPU.A10.1", description="a GPU shape listed in components/oci/shapes.py")
    count: StrictInt = Field(default=1, ge=1, le=100, description="how many VMs (1-100)")
    availabilityDomains: list[AvailabilityDomain] = Field(
        default_factory=lambda: list[int | str]([0]),
        min_length=1,
        description="candidate ADs in order, indexes or names (`Uocm:PHX-AD-1`); with "
        "several, the first with free capacity wins (needs `tenancyId`)",
    )
    image: ImageConfig = Field(
        default_factory=ImageConfig, description="the boot image: an OCID, or a filter"
    )
    bootVolumeSizeGbs: StrictInt = Field(
        default=512, ge=50, le=32768, description="boot volume in GB, grown on first boot"
    )
    assignPublicIp: bool = Field(True, description="a public IP on the VNIC (the host layer's)")
    sshAuthorizedKeys: list[SshPublicKey] = Field(
        default_factory=list,
        description="OpenSSH public keys every VM authorizes (a private key is refused)",
    )
    generation: StrictInt = Field(
        default=0,
        ge=0,
        le=1000,
        description="raise it to make every VM anew with today's image, cloud-init and SSH "
        "keys (`--replace` keeps the old ones: docs/day-2.md#replacing-on-purpose)",
    )

    @field_validator("shape")
    @classmethod
    def _known_shape(cls, shape: str, info: ValidationInfo) -> str:
        if shape in GPU_SHAPES:
            return shape
        if info.data.get("allowUnlistedShape") and SHAPE_NAME.fullmatch(shape):
            return shape
        guess = did_you_mean(shape, GPU_SHAPES)
        hint = f" (did you mean {guess!r}?)" if guess else ""
        raise ValueError(
            f"unknown GPU shape{hint}; known shapes: {', '.join(GPU_SHAPES)}; for a shape "
            "newer than this list set allowUnlistedShape: true"
        )

    @field_validator("availabilityDomains")
    @classmethod
    def _distinct(cls, ads: list[str | int]) -> list[str | int]:
        if len(set(ads)) != len(ads):
            raise ValueError(f"{ads} lists an availability domain twice")
        return ads
