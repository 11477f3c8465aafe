"""The base every stack-config model shares.

Field names are the camelCase keys users write in `Pulumi.<stack>.yaml`; unknown keys are
errors, so a typo never silently falls back to a default.
"""

from __future__ import annotations

import ipaddress
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict


class ConfigModel(BaseModel):
    """Strict, immutable config section: unknown keys are rejected."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)


def _cidr(value: str) -> str:
    try:
        net = ipaddress.ip_network(value, strict=True)
    except ValueError as err:
        raise ValueError(f"{value!r} is not a CIDR block like 10.0.0.0/16 ({err})") from None
    return str(net)


Cidr = Annotated[str, AfterValidator(_cidr)]
"""An IPv4 or IPv6 network in CIDR notation, with no host bits set."""


def is_world(cidr: str) -> bool:
    """True for a block that covers the whole internet (0.0.0.0/0 or ::/0)."""
    return ipaddress.ip_network(cidr).prefixlen == 0


def _ocid(value: str) -> str:
    parts = value.split(".")
    if len(parts) < 5 or parts[0] != "ocid1" or not parts[-1]:
        raise ValueError(
            f"{value!r} is not an OCI OCID (ocid1.<type>.<realm>.[region].<unique id>)"
        )
    return value


Ocid = Annotated[str, AfterValidator(_ocid)]
"""An Oracle Cloud identifier such as ocid1.compartment.oc1..aaaa..."""
