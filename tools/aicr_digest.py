"""Leaf-path digests of a JSON document: how the AICR golden records aicr's output.

The golden (`tests/golden/aicr/`) must let a test compare gpu-ci's recipe with the real
`aicr` one value for value, and name the path that differs, without copying AICR's catalog
data into this repository. A SHA-256 per leaf does both: equal leaves give equal digests,
and the path is kept in clear. Key order never matters (a mapping is walked by its keys);
list order does. Numbers compare as JSON numbers: Go writes the float 1.0 as `1`, so an
integral float is recorded as the integer.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

DIGEST_CHARS = 16
"""64 bits of SHA-256: enough to tell two values apart, short enough for a readable file."""

_PLAIN_KEY = re.compile(r"^[A-Za-z0-9_/-]+$")


def key_path(prefix: str, key: str) -> str:
    """`prefix.key`, or `prefix["key"]` when the key holds a dot, bracket or quote."""
    if _PLAIN_KEY.match(key):
        return f"{prefix}.{key}" if prefix else key
    return f"{prefix}[{json.dumps(key)}]"


def canonical(value: Any) -> str:
    """A scalar, empty container or list of scalars as one JSON text, integral floats as
    integers."""
    if isinstance(value, list):
        return "[" + ",".join(canonical(v) for v in value) + "]"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def digest(text: str) -> str:
    """The truncated SHA-256 of a text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:DIGEST_CHARS]


def leaves(value: Any, prefix: str = "") -> dict[str, str]:
    """{leaf path: canonical JSON} for every scalar, empty mapping and list of scalars (one
    leaf, `deploymentOrder` say: its order is its meaning); a list holding a mapping or list
    is walked item by item, `path[i]`."""
    if isinstance(value, dict) and value:
        out: dict[str, str] = {}
        for key in sorted(value):
            out.update(leaves(value[key], key_path(prefix, str(key))))
        return out
    if isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
        out = {}
        for i, item in enumerate(value):
            out.update(leaves(item, f"{prefix}[{i}]"))
        return out
    return {prefix: canonical(value)}


def leaf_digests(value: Any, prefix: str = "") -> dict[str, str]:
    """{leaf path: digest of its canonical JSON}."""
    return {path: digest(text) for path, text in leaves(value, prefix).items()}


def tree_id(digests: dict[str, str]) -> str:
    """One id for a whole leaf map, so identical subtrees are recorded once."""
    return digest(json.dumps(digests, sort_keys=True))


def units(document: dict[str, Any]) -> dict[str, dict[str, str]]:
    """A recipe (`componentRefs`) or hydrated recipe (`components`) as the parts the golden
    records it in, {part: leaf digests}: one per component, so a component unchanged from
    one criteria set to another is recorded once, and `""` for the rest."""
    rest = dict(document)
    parts: dict[str, Any] = {}
    for i, ref in enumerate(rest.pop("componentRefs", None) or []):
        parts[f"componentRefs[{i}]"] = ref
    for name, component in (rest.pop("components", None) or {}).items():
        parts[key_path("components", str(name))] = component
    return {"": leaf_digests(rest), **{k: leaf_digests(v) for k, v in parts.items()}}
