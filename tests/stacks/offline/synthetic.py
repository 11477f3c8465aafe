"""Small synthetic plan snapshots for the offline engine's in-process tests: resources as
`snapshot_of` records them, on their package's default provider."""

from __future__ import annotations

from typing import Any

VCN = "oci:Core/vcn:Vcn"


def urn(type_: str, name: str, parents: str = "") -> str:
    return f"urn:pulumi:s::p::{parents}{type_}::{name}"


def res(name: str, type_: str = VCN, /, *deps: str, **inputs: Any) -> dict[str, Any]:
    """A resource as `snapshot_of` records it; `deps` name VCNs it depends on."""
    return {
        "urn": urn(type_, name),
        "type": type_,
        "name": name,
        "parent": "",
        "custom": True,
        "read": False,
        "dependencies": [urn(VCN, d) for d in deps],
        "propertyDependencies": {},
        "inputs": inputs,
        "options": {
            "protect": False,
            "deleteBeforeReplace": False,
            "ignoreChanges": [],
            "replaceOnChanges": [],
            "retainOnDelete": False,
            "deletedWith": "",
            "provider": "",
        },
        "aliases": [],
        "secretDigests": {},
    }
