"""The plan snapshot: a deterministic, secret-free JSON record of a planned graph.

Format: `{"project", "stack", "resources": [{"urn", "type", "name", "parent", "custom",
"dependencies": [urn...], "propertyDependencies": {input: [urn...]}, "inputs": {...},
"options": {...}, "aliases": [urn...], "secretDigests": {path: digest}}], "outputs": {...}}`,
resources sorted by URN, secrets replaced by "[secret]". The same config gives the same bytes
on every run, so two snapshots can be diffed in a pull request.

`options` are what decides a resource's fate on the next `pulumi up` besides its inputs
(`stacks.offline.lifecycle` reads them): `replaceOnChanges` (with what the SDK classes add),
`deleteBeforeReplace`, `ignoreChanges`, `protect`, `retainOnDelete`, `deletedWith` and the
`provider` (its URN; empty for the package's default provider). `secretDigests` lets a diff
see that a secret changed without holding it: a salted, truncated SHA-256 per secret input
path (the salt is the resource's URN and the path, so equal secrets do not look equal).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from stacks.offline.diff_paths import path_join
from stacks.offline.records import ProgramRun, Registration
from stacks.offline.values import UNKNOWN, Secret, mask, reveal

SECRET_DIGEST_CHARS = 16

Snapshot = dict[str, Any]


def _provider_urn(reference: str) -> str:
    """`URN::ID` (the ID unknown in a preview) -> the provider's URN."""
    return reference.rsplit("::", 1)[0] if reference else ""


def _options(r: Registration) -> dict[str, Any]:
    o = r.options
    if r.read:
        return {}
    return {
        "protect": o["protect"],
        "deleteBeforeReplace": o["deleteBeforeReplace"],
        "ignoreChanges": o["ignoreChanges"],
        "replaceOnChanges": o["replaceOnChanges"],
        "retainOnDelete": o["retainOnDelete"],
        "deletedWith": o["deletedWith"],
        "provider": _provider_urn(o["provider"]),
    }


def secret_digests(urn: str, value: Any, prefix: str = "") -> dict[str, str]:
    """Each secret's path inside `value`, to a digest of it (known secrets only)."""
    if isinstance(value, Secret):
        plain = reveal(value)
        if plain == UNKNOWN:
            return {}
        text = json.dumps([urn, prefix, plain], sort_keys=True, ensure_ascii=False)
        return {prefix: hashlib.sha256(text.encode()).hexdigest()[:SECRET_DIGEST_CHARS]}
    items: list[tuple[Any, Any]] = []
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        items = list(enumerate(value))
    out: dict[str, str] = {}
    for key, item in items:
        out.update(secret_digests(urn, item, path_join(prefix, key)))
    return out


def snapshot_of(run: ProgramRun) -> Snapshot:
    resources = [
        {
            "urn": r.urn,
            "type": r.type,
            "name": r.name,
            "parent": r.parent,
            "custom": r.custom,
            "read": r.read,
            "dependencies": sorted(set(r.dependencies)),
            "propertyDependencies": {
                k: sorted(set(v)) for k, v in sorted(r.property_dependencies.items()) if v
            },
            "inputs": mask(r.inputs),
            "options": _options(r),
            "aliases": list(r.aliases),
            "secretDigests": secret_digests(r.urn, r.inputs),
        }
        for r in run.registrations
    ]
    return {
        "project": run.project,
        "stack": run.stack,
        "resources": sorted(resources, key=lambda r: r["urn"]),
        "outputs": mask(run.exports),
    }


def dumps(snapshot: Snapshot) -> str:
    return json.dumps(snapshot, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
