"""The plan snapshot: a deterministic, secret-free JSON record of a planned graph.

Format: `{"project", "stack", "resources": [{"urn", "type", "name", "parent", "custom",
"dependencies": [urn...], "propertyDependencies": {input: [urn...]}, "inputs": {...},
"options": {...}, "aliases": [urn...], "secretDigests": {path: digest}}], "outputs": {...}}`,
resources sorted by URN, secrets replaced by "[secret]". The same config gives the same bytes
on every run, so two snapshots can be diffed in a pull request.

`options` are what decides a resource's fate on the next `pulumi up` besides its inputs
(`stacks.offline.lifecycle.fate` reads them): `replaceOnChanges` (with what the SDK classes add),
`deleteBeforeReplace`, `ignoreChanges`, `protect`, `retainOnDelete`, `deletedWith` and the
`provider` (its URN; empty for the package's default provider). `secretDigests` lets a diff
see that a secret changed without holding it: a truncated SHA-256 per secret input path,
salted with the project and the resource's identity (its chain of types and names from the
stack down) and the path, never with the stack: the same secret in the same resource of a
renamed or copied stack has the same digest, so a diff across them shows no change, while
equal secrets in two resources do not look equal. Each digest starts with its scheme
(`SECRET_DIGEST_SCHEME`); a diff compares only digests of one scheme.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from stacks.offline.engine.records import ProgramRun, Registration
from stacks.offline.engine.values import UNKNOWN, Secret, mask, reveal
from stacks.offline.snapshot.graph import identity_keys
from stacks.offline.snapshot.paths import path_join
from stacks.offline.snapshot.shape import Snapshot

SECRET_DIGEST_CHARS = 16
SECRET_DIGEST_SCHEME = "id1:"
"""Salted with project, identity and path. Digests without a scheme (snapshots written
before it) were salted with the URN, so they cannot be compared with these."""


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


def secret_digests(salt: str, value: Any, prefix: str = "") -> dict[str, str]:
    """Each secret's path inside `value`, to a digest of it (known secrets only); `salt`
    names the resource without its stack (its project and identity chain)."""
    if isinstance(value, Secret):
        plain = reveal(value)
        if plain == UNKNOWN:
            return {}
        text = json.dumps([salt, prefix, plain], sort_keys=True, ensure_ascii=False)
        digest = hashlib.sha256(text.encode()).hexdigest()[:SECRET_DIGEST_CHARS]
        return {prefix: SECRET_DIGEST_SCHEME + digest}
    items: list[tuple[Any, Any]] = []
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        items = list(enumerate(value))
    out: dict[str, str] = {}
    for key, item in items:
        out.update(secret_digests(salt, item, path_join(prefix, key)))
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
        }
        for r in run.registrations
    ]
    # Salted with the project and the (type, name) chain from the stack down: what names a
    # resource in any stack of the project.
    chains = identity_keys({"resources": resources})
    for r, resource in zip(run.registrations, resources, strict=True):
        salt = json.dumps([run.project, *(f"{t}::{n}" for t, n in chains[r.urn])])
        resource["secretDigests"] = secret_digests(salt, r.inputs)
    return {
        "project": run.project,
        "stack": run.stack,
        "resources": sorted(resources, key=lambda r: r["urn"]),
        "outputs": mask(run.exports),
    }


def dumps(snapshot: Snapshot) -> str:
    return json.dumps(snapshot, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
