"""What a `vm-launcher` scale set tells its launcher: where to create VMs, which image they
boot, and the OCI API key it acts with.

The launcher runs in a pod with no GPU; these are the flags and the credentials file it gets
(rendered by `components.arc.scale_set_values`).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, SecretStr

from components.config_base import ConfigModel, Ocid, from_file
from components.oci.vm_config import AD_NAME

_REGION = re.compile(r"^[a-z]{2,}(-[a-z0-9]+)+-[0-9]+$")
_PLACEHOLDER = "offline-placeholder:"


def _secret_like(pattern: re.Pattern[str], what: str) -> Any:
    """A SecretStr check that accepts the offline plan's `secure:` placeholders."""

    def check(value: SecretStr) -> SecretStr:
        text = value.get_secret_value()
        if text.startswith(_PLACEHOLDER) or pattern.fullmatch(text):
            return value
        raise ValueError(f"not {what}")

    return AfterValidator(check)


class LaunchPlacement(ConfigModel):
    """Where the launcher creates VMs first."""

    region: str = Field(pattern=_REGION.pattern, description="an OCI region, e.g. `us-ashburn-1`")
    availabilityDomain: str = Field(
        pattern=AD_NAME.pattern, description="an AD name, e.g. `Uocm:US-ASHBURN-AD-1`"
    )
    subnetId: Ocid | None = Field(
        None, description="default: the subnet of this stack's `network` (and its NSG); a subnet"
    )


class FallbackPlacement(ConfigModel):
    """Where the launcher retries when the first region/AD is out of capacity."""

    region: str = Field(pattern=_REGION.pattern, description="the region to retry in")
    availabilityDomain: str = Field(pattern=AD_NAME.pattern, description="its AD name")
    subnetId: Ocid = Field(description="a subnet there")


class VmImageSelection(ConfigModel):
    """Which VM image the launcher boots: the newest image of its image family for `arch`
    (gha-cloudrunner: `ubuntu-24.04-<arch>-gha-image`, `rc-` prefixed for `ci`)."""

    arch: Literal["amd64", "arm64"] = Field("amd64", description="the image's architecture")
    runningEnvironment: Literal["production", "ci"] = Field(
        "production", description="`production`: released images; `ci`: `rc-` candidates"
    )


_OCID_TEXT = re.compile(r"ocid1\.[a-z0-9]+\.[a-z0-9-]+\.[a-z0-9-]*(\.[A-Za-z0-9_-]+)+")
_FINGERPRINT = re.compile(r"^([0-9a-f]{2}:){15}[0-9a-f]{2}$")
_PEM = re.compile(r"(?s).*PRIVATE KEY.*")  # fullmatch: anywhere in the text


class OciApiCredentials(ConfigModel):
    """An OCI API key of the user the launcher acts as; every field is stored as a secret
    (pulumi config set --secret --path gpu-ci:arc.scaleSets[0].ociCredentials.privateKey
    < oci_api_key.pem)."""

    user: Annotated[SecretStr, _secret_like(_OCID_TEXT, "a user OCID (ocid1.user...)")] = Field(
        description="the user's OCID"
    )
    tenancy: Annotated[SecretStr, _secret_like(_OCID_TEXT, "a tenancy OCID (ocid1.tenancy...)")] = (
        Field(description="the tenancy's OCID")
    )
    fingerprint: Annotated[
        SecretStr, _secret_like(_FINGERPRINT, "an API key fingerprint (aa:bb:...:ff)")
    ] = Field(description="the API key's fingerprint")
    privateKey: Annotated[
        SecretStr, _secret_like(_PEM, "a PEM private key"), from_file("oci_api_key.pem")
    ] = Field(description="the API key (PEM)")
    region: Annotated[SecretStr, _secret_like(_REGION, "an OCI region like us-ashburn-1")] = Field(
        description="the region its API calls go to"
    )
