"""Kubernetes value syntax for ARC config: names, labels, quantities and pinned images.

One place for the checks every ARC config model shares, so a scale set, the controller and an
OKE pool refuse the same bad name with the same message. Kubernetes' own rules (apimachinery's
IsQualifiedName, IsValidLabelValue and IsDNS1123Subdomain) are applied with fullmatch: a `$`
anchor would let a trailing newline in.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator

_K8S_NAME = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")
_LABEL_NAME = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?")
_DNS_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS_SUBDOMAIN = re.compile(rf"{_DNS_LABEL}(\.{_DNS_LABEL})*")
_DNS_SUBDOMAIN_MAX = 253
_QUANTITY = re.compile(r"^[0-9]+(\.[0-9]+)?(m|k|Ki|M|Mi|G|Gi|T|Ti)?$")
_DIGEST_IMAGE = re.compile(r"^[a-z0-9][a-z0-9._/:-]*@sha256:[0-9a-f]{64}$")
_TAG = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$")
_TAGGED_IMAGE = re.compile(r"[a-z0-9][a-z0-9._/:-]*:[A-Za-z0-9_][A-Za-z0-9._-]*")


def _k8s_name(value: str) -> str:
    if not _K8S_NAME.fullmatch(value):
        raise ValueError(
            "not a Kubernetes name: lowercase letters, digits and '-', starting and ending "
            "with a letter or digit, at most 63 characters"
        )
    return value


K8sName = Annotated[str, AfterValidator(_k8s_name)]


def storage_class(value: str) -> str:
    """A StorageClass name: a DNS subdomain (RFC 1123), as apimachinery's
    IsDNS1123Subdomain checks every object name of its kind (at most 253 characters)."""
    if len(value) > _DNS_SUBDOMAIN_MAX or not _DNS_SUBDOMAIN.fullmatch(value):
        raise ValueError(
            f"{value!r} is not a StorageClass name: a DNS subdomain (RFC 1123) of lowercase "
            "letters, digits, '-' and '.', each dot-separated part starting and ending with a "
            "letter or digit, at most 253 characters; give one `kubectl get storageclass` "
            "lists (e.g. oci-bv), or leave it unset for the cluster's default"
        )
    return value


StorageClassName = Annotated[str, AfterValidator(storage_class)]


def is_qualified_name(key: str) -> bool:
    """A Kubernetes label or taint key: an optional DNS-subdomain prefix (at most 253
    characters) and `/`, then a name of 1-63 characters."""
    prefix, slash, name = key.rpartition("/")
    if slash and (len(prefix) > _DNS_SUBDOMAIN_MAX or not _DNS_SUBDOMAIN.fullmatch(prefix)):
        return False
    return _LABEL_NAME.fullmatch(name) is not None


def is_label_value(value: str) -> bool:
    """A Kubernetes label or taint value: empty, or 1-63 characters as in a name."""
    return value == "" or _LABEL_NAME.fullmatch(value) is not None


def _labels(value: dict[str, str]) -> dict[str, str]:
    for key, label in value.items():
        if not is_qualified_name(key):
            raise ValueError(f"{key!r} is not a Kubernetes label key ([prefix/]name)")
        if not is_label_value(label):
            raise ValueError(f"{label!r} (for {key}) is not a Kubernetes label value")
    return value


NodeLabels = Annotated[dict[str, str], AfterValidator(_labels)]
"""Kubernetes labels, e.g. a node selector `{gpu-ci/pool: cpu}`."""


def _quantity(value: str) -> str:
    if not _QUANTITY.fullmatch(value):
        raise ValueError(f"{value!r} is not a Kubernetes quantity like 500m, 2 or 4Gi")
    return value


Quantity = Annotated[str, AfterValidator(_quantity)]


def _digest_image(value: str) -> str:
    if not _DIGEST_IMAGE.fullmatch(value):
        raise ValueError(
            "pin the image by digest (REGISTRY/REPO@sha256:<64 hex>): the launcher holds OCI "
            "credentials, so a moved tag must not change what runs"
        )
    return value


DigestImage = Annotated[str, AfterValidator(_digest_image)]


def _pinned_image(value: str) -> str:
    if _DIGEST_IMAGE.fullmatch(value):
        return value
    last = value.rsplit("/", 1)[-1]
    name, _, tag = last.partition(":")
    whole = _TAGGED_IMAGE.fullmatch(value)  # no space or line break anywhere in it
    if not name or not whole or not _TAG.fullmatch(tag) or tag == "latest":
        raise ValueError("pin the image by a version tag or a digest (not :latest, not untagged)")
    return value


PinnedImage = Annotated[str, AfterValidator(_pinned_image)]
