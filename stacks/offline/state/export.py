"""A `pulumi stack export` file read back: the deployed state a plan is diffed against.

`pulumi stack export` writes `{"version": 3, "deployment": {"manifest", "secrets_providers",
"resources", "pending_operations", ...}}` (version 4, with `features`, has the same
deployment). The file is read by the careful reader (`core.read_json`, `STATE_EXPORT`), then
checked for the fields this reader needs, each refusal one line naming the file and the fix.

Fields are read as the engine's own struct has them (pulumi/pulumi
sdk/go/common/apitype/core.go @ v3.259.0, `DeploymentV3`, `ResourceV3`, `OperationV2`), not
as its published JSON schema (`apitype/resources.json` @ v3.259.0): the schema forbids
fields the engine writes (`created`, `modified`, `retainOnDelete`, `taint`, `ignoreChanges`,
`sourcePosition`), so a real export would fail it. Fields this reader does not use are
ignored, never refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core import read_json
from core.errors import GpuCiError
from core.read_files import FileMissingError, FileRefusedError
from core.read_limits import STATE_EXPORT
from stacks.offline.engine.urns import STACK_TYPE

VERSIONS = (3, 4)
"""apitype/core.go @ v3.259.0: `DeploymentSchemaVersionCurrent = 3`, `...Latest = 4` (the
same `DeploymentV3`, with `features` the CLI must support)."""
OPERATIONS = ("creating", "updating", "deleting", "reading", "importing")
"""`OperationType` (core.go @ v3.259.0); `importing` is what `refresh --import-pending-creates`
turns a pending create into (pkg/cmd/pulumi/operations/refresh.go @ v3.259.0)."""
FIX = "write it with `pulumi stack export --stack STACK --file FILE`"


class StateExportError(GpuCiError):
    """A file that is not a readable `pulumi stack export` (one line, naming the file)."""


@dataclass(frozen=True)
class StateResource:
    """One `ResourceV3` of the export, the fields the diff reads."""

    urn: str
    type: str
    custom: bool
    parent: str = ""
    inputs: dict[str, Any] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)
    dependencies: tuple[str, ...] = ()
    property_dependencies: dict[str, list[str]] = field(default_factory=dict)
    provider: str = ""
    """`URN::ID` of its provider resource ("" for a component)."""
    aliases: tuple[str, ...] = ()
    protect: bool = False
    external: bool = False
    """Read, not managed (`pulumi.get` / `ReadResource`, a StackReference)."""
    delete: bool = False
    """An old copy the next update deletes (a replacement whose delete did not run)."""
    taint: bool = False
    pending_replacement: bool = False
    retain_on_delete: bool = False
    deleted_with: str = ""
    init_errors: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.urn.rsplit("::", 1)[-1]


@dataclass(frozen=True)
class PendingOperation:
    """An operation the engine started and never saw finish (the CLI was interrupted)."""

    type: str
    resource: StateResource


@dataclass(frozen=True)
class StateExport:
    path: str
    version: int
    project: str
    """From the URNs ("" for an export with no resources)."""
    stack: str
    engine: str
    """The manifest's `version`: the CLI that wrote the state."""
    time: str
    resources: tuple[StateResource, ...]
    pending: tuple[PendingOperation, ...] = ()
    features: tuple[str, ...] = ()
    integrity_error: str = ""
    """The snapshot's own `metadata.integrity_error`, when the engine recorded one."""


def urn_parts(urn: str) -> tuple[str, str]:
    """(stack, project) of `urn:pulumi:STACK::PROJECT::TYPE::NAME`, or ("", "")."""
    head, sep, _ = urn.partition("::")
    if not sep or not head.startswith("urn:pulumi:"):
        return "", ""
    project = urn.split("::")[1] if urn.count("::") >= 3 else ""
    return head.removeprefix("urn:pulumi:"), project


def load_export(path: Path, root: Path | None = None) -> StateExport:
    """The export in `path` (inside `root` once symlinks are followed, when given)."""
    try:
        data = read_json.read(path, name=str(path), limits=STATE_EXPORT, root=root)
    except FileMissingError:
        raise StateExportError(f"{path}: cannot read the state export (no such file)") from None
    except FileRefusedError as err:
        raise StateExportError(str(err)) from None
    except read_json.JsonRefusedError as err:
        raise StateExportError(f"{err}; {FIX}") from None
    return parse_export(data, str(path))


def _problem(path: str, what: str) -> StateExportError:
    return StateExportError(f"{path}: not a `pulumi stack export` file ({what}); {FIX}")


def parse_export(data: Any, path: str) -> StateExport:
    if not isinstance(data, dict):
        raise _problem(path, f"a JSON {type(data).__name__}, not an object")
    version = data.get("version")
    if "checkpoint" in data and "deployment" not in data:
        raise _problem(path, "a backend checkpoint file, not an export")
    if version not in VERSIONS:
        raise _problem(path, f"deployment version {version!r}; this reader knows 3 and 4")
    deployment = data.get("deployment")
    if not isinstance(deployment, dict):
        raise _problem(path, "`deployment` is missing or not an object")
    manifest = deployment.get("manifest")
    if not isinstance(manifest, dict):
        raise _problem(path, "`deployment.manifest` is missing or not an object")
    raw = deployment.get("resources") or []
    if not isinstance(raw, list):
        raise _problem(path, "`deployment.resources` is not a list")
    resources = tuple(_resource(r, f"deployment.resources[{i}]", path) for i, r in enumerate(raw))
    pending = tuple(_operation(op, i, path) for i, op in enumerate(_list(deployment, path)))
    stack, project = _identity(resources, path)
    integrity = (deployment.get("metadata") or {}).get("integrity_error") or {}
    return StateExport(
        path=path,
        version=int(version),
        project=project,
        stack=stack,
        engine=str(manifest.get("version") or ""),
        time=str(manifest.get("time") or ""),
        resources=resources,
        pending=pending,
        features=tuple(str(f) for f in data.get("features") or []),
        integrity_error=str(integrity.get("message") or "") if isinstance(integrity, dict) else "",
    )


def _list(deployment: dict[str, Any], path: str) -> list[Any]:
    ops = deployment.get("pending_operations") or []
    if not isinstance(ops, list):
        raise _problem(path, "`deployment.pending_operations` is not a list")
    return ops


def _identity(resources: tuple[StateResource, ...], path: str) -> tuple[str, str]:
    """One stack and project for every URN (the stack resource's, else the first's)."""
    if not resources:
        return "", ""
    first = next((r for r in resources if r.type == STACK_TYPE), resources[0])
    stack, project = urn_parts(first.urn)
    for r in resources:
        if urn_parts(r.urn) != (stack, project):
            raise _problem(path, f"{r.urn} is not of stack {stack!r} of project {project!r}")
    return stack, project


def _strings(value: Any, where: str, path: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _problem(path, f"{where} is not a list of strings")
    return tuple(value)


def _resource(r: Any, where: str, path: str) -> StateResource:
    if not isinstance(r, dict):
        raise _problem(path, f"{where} is not an object")
    urn, type_ = r.get("urn"), r.get("type")
    if not isinstance(urn, str) or not all(urn_parts(urn)):  # a stack and a project
        raise _problem(path, f"{where}.urn is missing or not a URN")
    if not isinstance(type_, str):
        raise _problem(path, f"{where}.type is missing or not a string")
    for key in ("inputs", "outputs", "propertyDependencies"):
        if not isinstance(r.get(key) or {}, dict):
            raise _problem(path, f"{where}.{key} is not an object")
    props = {
        str(k): list(_strings(v, f"{where}.propertyDependencies.{k}", path))
        for k, v in (r.get("propertyDependencies") or {}).items()
    }
    return StateResource(
        urn=urn,
        type=type_,
        custom=bool(r.get("custom")),
        parent=str(r.get("parent") or ""),
        inputs=dict(r.get("inputs") or {}),
        outputs=dict(r.get("outputs") or {}),
        dependencies=_strings(r.get("dependencies"), f"{where}.dependencies", path),
        property_dependencies=props,
        provider=str(r.get("provider") or ""),
        aliases=_strings(r.get("aliases"), f"{where}.aliases", path),
        protect=r.get("protect") is True,
        external=r.get("external") is True,
        delete=r.get("delete") is True,
        taint=r.get("taint") is True,
        pending_replacement=r.get("pendingReplacement") is True,
        retain_on_delete=r.get("retainOnDelete") is True,
        deleted_with=str(r.get("deletedWith") or ""),
        init_errors=_strings(r.get("initErrors"), f"{where}.initErrors", path),
    )


def _operation(op: Any, i: int, path: str) -> PendingOperation:
    where = f"deployment.pending_operations[{i}]"
    if not isinstance(op, dict):
        raise _problem(path, f"{where} is not an object")
    if op.get("type") not in OPERATIONS:
        raise _problem(path, f"{where}.type {op.get('type')!r} is not one of {OPERATIONS}")
    return PendingOperation(
        str(op["type"]), _resource(op.get("resource"), f"{where}.resource", path)
    )
