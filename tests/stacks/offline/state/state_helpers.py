"""Plans and their synthetic `pulumi stack export`s, for the `stacks diff --state` tests."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import (  # type: ignore[import-untyped]  # dev dependency without stubs
    Draft202012Validator,
    ValidationError,
)
from referencing import Registry, Resource

from stacks.offline.plan import REPO, plan_stack
from stacks.offline.snapshot.shape import Snapshot
from stacks.offline.state.export import StateExport, parse_export
from stacks.offline.state.synthetic import export_of

SCHEMAS = Path("schemas") / "pulumi-v3.259.0" / "apitype"
"""Under the `upstream` fixture's folder: `pulumi stack export`'s published JSON schema."""


@cache
def deployment_validator(upstream: Path) -> Draft202012Validator:
    """The deployment schema, its `$ref`s to resources.json and property-values.json
    resolved by their `$id`s to the files beside it (draft 2020-12)."""
    docs = {
        name: json.loads((upstream / SCHEMAS / name).read_text())
        for name in ("deployments.json", "resources.json", "property-values.json")
    }
    registry: Registry = Registry().with_resources(
        (doc["$id"], Resource.from_contents(doc)) for doc in docs.values()
    )
    return Draft202012Validator(docs["deployments.json"], registry=registry)


def schema_errors(upstream: Path, document: dict[str, Any]) -> list[str]:
    """Every failure, down to the innermost of `oneOf`'s alternatives, as `path: message`."""
    found: list[str] = []

    def leaves(errors: Iterable[ValidationError]) -> None:
        for e in errors:
            if e.context:
                leaves(e.context)
            else:
                found.append(f"{'/'.join(map(str, e.absolute_path))}: {e.message[:160]}")

    leaves(deployment_validator(upstream).iter_errors(document))
    return sorted(found)


@cache
def _plan(stack: str) -> str:
    return json.dumps(plan_stack(stack, REPO))


def plan(stack: str = "dev") -> Snapshot:
    """A fresh copy of the stack's offline plan (planned once per session)."""
    snap: Snapshot = json.loads(_plan(stack))
    return snap


def export(stack: str = "dev") -> dict[str, Any]:
    return export_of(plan(stack))


def parsed(document: dict[str, Any], path: str = "export.json") -> StateExport:
    return parse_export(copy.deepcopy(document), path)


def state_resource(document: dict[str, Any], name: str, type_: str = "") -> dict[str, Any]:
    found = [
        r
        for r in document["deployment"]["resources"]
        if r["urn"].rsplit("::", 1)[-1] == name and type_ in ("", r["type"])
    ]
    assert len(found) == 1, f"{name}: {len(found)} resources"
    resource: dict[str, Any] = found[0]
    return resource


def plan_resource(snap: Snapshot, name: str, type_: str = "") -> dict[str, Any]:
    (found,) = [r for r in snap["resources"] if r["name"] == name and type_ in ("", r["type"])]
    resource: dict[str, Any] = found
    return resource
