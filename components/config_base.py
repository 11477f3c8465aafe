"""The base every stack-config model shares.

Field names are the camelCase keys users write in `Pulumi.<stack>.yaml`; unknown keys are
errors, so a typo never silently falls back to a default.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field


class ConfigModel(BaseModel):
    """Strict, immutable config section: unknown keys are rejected."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)


CREDENTIAL_FILE = "credentialFile"
"""`json_schema_extra` key of a credential field (`SecretStr`) typed in from a file: the
file the plain-text refusal suggests (`pulumi config set --secret --path KEY < FILE`)."""


def from_file(name: str) -> Any:
    """Field metadata of a credential read from a file such as `key.pem`."""
    return Field(json_schema_extra={CREDENTIAL_FILE: name})


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


_OCID_TEXT = re.compile(r"[A-Za-z0-9._-]+")


def _ocid(value: str) -> str:
    parts = value.split(".")
    if len(parts) < 5 or parts[0] != "ocid1" or not parts[-1] or not _OCID_TEXT.fullmatch(value):
        raise ValueError(
            f"{value!r} is not an OCI OCID (ocid1.<type>.<realm>.[region].<unique id>)"
        )
    return value


Ocid = Annotated[str, AfterValidator(_ocid)]
"""An Oracle Cloud identifier such as ocid1.compartment.oc1..aaaa..."""


_GITHUB_URL = re.compile(
    r"^https://github\.com/(enterprises/[A-Za-z0-9_.-]+|[A-Za-z0-9-]+(/[A-Za-z0-9_.-]+)?)/?$"
)
# GitHub's own name rules, as its forms enforce them (collected, with how each was verified,
# in github.com/dead-claudia/github-limits README.md, commit 0b592b31, "Organization names"
# and "Repository names"): an organization is 1 to 39 letters, digits and '-', not starting
# with '-'; a repository 1 to 100 letters, digits, '-', '_' and '.', and the names '.' and
# '..' are reserved. GitHub publishes no rule for an enterprise's slug: here it starts with a
# letter or digit, so no path-like name ('.', '..') reaches the API or a runner's config.
_GITHUB_NAMES = {
    "organization": (
        re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,38}"),
        "1 to 39 letters, digits or '-', not starting with '-'",
    ),
    "repository": (
        re.compile(r"(?!\.{1,2}$)[A-Za-z0-9_.-]{1,100}"),
        "1 to 100 letters, digits, '-', '_' or '.', and not '.' or '..' (reserved)",
    ),
    "enterprise": (
        re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}"),
        "1 to 100 letters, digits, '-', '_' or '.', starting with a letter or digit",
    ),
}


def _github_url(url: str) -> str:
    if not _GITHUB_URL.fullmatch(url):
        raise ValueError(
            "not a GitHub URL of a repository, organization or enterprise "
            "(https://github.com/ORG/REPO, https://github.com/ORG, "
            "https://github.com/enterprises/NAME)"
        )
    url = url.rstrip("/")
    path = url.removeprefix("https://github.com/")
    kinds = ("enterprise",) if path.startswith("enterprises/") else ("organization", "repository")
    names = path.split("/")[-1:] if kinds == ("enterprise",) else path.split("/")
    for kind, name in zip(kinds, names, strict=False):
        pattern, rule = _GITHUB_NAMES[kind]
        if not pattern.fullmatch(name):
            raise ValueError(f"{name!r} is not a GitHub {kind} name: {rule}")
    return url


GithubUrl = Annotated[str, AfterValidator(_github_url)]
"""Where runners register, as ARC's githubConfigUrl: a repository, organization or
enterprise on github.com."""

_STACK_REFERENCE = re.compile(r"^([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+/)?[A-Za-z0-9_.-]+$")


def _stack_reference(value: str) -> str:
    if not _STACK_REFERENCE.fullmatch(value):
        raise ValueError("not a stack reference: STACK or ORGANIZATION/PROJECT/STACK")
    return value


StackReferenceName = Annotated[str, AfterValidator(_stack_reference)]
"""Another stack of this project: `STACK` or `ORGANIZATION/PROJECT/STACK`."""
