"""A plan snapshot written as the `pulumi stack export` its `pulumi up` would leave.

For tests and for trying `stacks diff --state` without a deployed stack: the export holds the
engine's own resources (the stack, a default provider per package a resource uses without an
explicit provider), every planned resource with its inputs, dependencies and provider
reference, and the stack's outputs; secrets encrypted (a ciphertext no key opens), unknowns
as the engine's unknown value. It uses only the fields of the published deployment schema
(pulumi/pulumi sdk/go/common/apitype/{deployments,resources,property-values}.json @ v3.259.0),
so it validates against it; a plan diffed against its own export has no changes.
"""

from __future__ import annotations

import hashlib
from typing import Any

from stacks.offline.engine.urns import STACK_TYPE
from stacks.offline.engine.values import UNKNOWN
from stacks.offline.snapshot.shape import Snapshot
from stacks.offline.state.values import SECRET, SECRET_SIG, SIG, UNKNOWN_VALUE

ENGINE = "3.272.0"
"""The CLI gpu-ci pins (requirements.txt `pulumi==`), as the manifest names its writer."""
TIME = "2026-01-01T00:00:00Z"


def _id(text: str) -> str:
    """A resource's ID (from its URN) or a secret's ciphertext (from its place): stable and
    unique, opening nothing."""
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def wire(value: Any, where: str) -> Any:
    """A plan value in the state's form: "[secret]" as an encrypted secret, "[unknown]" as
    the unknown value."""
    if value == SECRET:
        return {SIG: SECRET_SIG, "ciphertext": "v1:synthetic:" + _id(where)}
    if value == UNKNOWN:
        return UNKNOWN_VALUE
    if isinstance(value, dict):
        return {k: wire(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, list):
        return [wire(v, f"{where}[{i}]") for i, v in enumerate(value)]
    return value


def stack_urn(plan: Snapshot) -> str:
    project, stack = plan["project"], plan["stack"]
    return f"urn:pulumi:{stack}::{project}::{STACK_TYPE}::{project}-{stack}"


def _package(type_: str) -> str:
    return type_.partition(":")[0]


def export_of(plan: Snapshot, *, engine: str = ENGINE, time: str = TIME) -> dict[str, Any]:
    """The `pulumi stack export` document (`{"version": 3, "deployment": ...}`) of `plan`."""
    project, stack = plan["project"], plan["stack"]
    top = stack_urn(plan)
    resources: list[dict[str, Any]] = [
        {"urn": top, "custom": False, "type": STACK_TYPE, "outputs": wire(plan["outputs"], "")}
    ]
    defaults: dict[str, str] = {}
    for r in plan["resources"]:
        provider = (r.get("options") or {}).get("provider")
        needs = r["custom"] and not r.get("read") and not r["type"].startswith("pulumi:providers:")
        if needs and not provider:
            package = _package(r["type"])
            if package not in defaults:
                urn = f"urn:pulumi:{stack}::{project}::pulumi:providers:{package}::default"
                defaults[package] = f"{urn}::{_id(urn)}"
                resources.append(
                    {"urn": urn, "custom": True, "id": _id(urn), "type": urn.split("::")[2]}
                )
    for r in plan["resources"]:
        resources.append(_resource(r, defaults, top))
    return {
        "version": 3,
        "deployment": {
            "manifest": {
                "time": time,
                "magic": hashlib.sha256(engine.encode()).hexdigest(),
                "version": f"v{engine}",
            },
            "secrets_providers": {"type": "passphrase", "state": {"salt": "v1:synthetic"}},
            "resources": resources,
        },
    }


def _resource(r: dict[str, Any], defaults: dict[str, str], top: str) -> dict[str, Any]:
    urn = r["urn"]
    out: dict[str, Any] = {
        "urn": urn,
        "custom": bool(r["custom"]),
        "type": r["type"],
        "parent": r.get("parent") or top,
        "inputs": wire(r.get("inputs") or {}, urn),
        "outputs": wire(r.get("inputs") or {}, urn),
    }
    if r["custom"]:
        out["id"] = _id(urn)
        provider = (r.get("options") or {}).get("provider")
        if provider:  # its ID as the provider resource's own, in the plan or not
            out["provider"] = f"{provider}::{_id(provider)}"
        elif _package(r["type"]) in defaults:
            out["provider"] = defaults[_package(r["type"])]
    if r.get("dependencies"):
        out["dependencies"] = list(r["dependencies"])
    if r.get("propertyDependencies"):
        out["propertyDependencies"] = {k: list(v) for k, v in r["propertyDependencies"].items()}
    if r.get("aliases"):
        out["aliases"] = list(r["aliases"])
    if (r.get("options") or {}).get("protect"):
        out["protect"] = True
    if r.get("read"):
        out["external"] = True
    return out
