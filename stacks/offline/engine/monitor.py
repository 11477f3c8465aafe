"""The recording mock engine: the SDK's mock monitor, keeping every request whole.

`pulumi.runtime.set_mocks` alone hands tests only a resource's inputs. `RecordingMonitor`
records every `RegisterResource` request whole: parent, dependencies, property
dependencies, the resource options and the inputs with their secret markers intact, plus
invokes and component outputs; and it refuses what the real engine refuses (a duplicate
URN, an unregistered parent or provider). `RecordingMocks` answers from `FakeCloud`.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pulumi
from pulumi.runtime import mocks as pmocks
from pulumi.runtime import rpc, settings

from stacks.offline.engine.fakes import FakeCloud
from stacks.offline.engine.records import InvokeCall, Registration
from stacks.offline.engine.urns import STACK_TYPE, engine_urn, qualified_type
from stacks.offline.engine.values import unwire

REPO = Path(__file__).resolve().parents[3]


class EngineError(pulumi.RunError):
    """A registration the real engine would refuse (a duplicate URN, an unknown parent)."""


def _source(request: Any) -> str:
    position = getattr(request, "sourcePosition", None)
    if position is None or not position.uri:
        return ""
    path = Path(unquote(urlparse(position.uri).path))
    shown = path.relative_to(REPO) if path.is_relative_to(REPO) else path
    return f"{shown}:{position.line}"


def _describe(request: Any) -> str:
    """A registration request in a few words: type, name, parent and where it was made."""
    parent = getattr(request, "parent", "")
    under = parent and qualified_type(parent) != STACK_TYPE
    where = _source(request)
    return (
        f"{request.type} {request.name!r}"
        + (f" (parent {parent.rsplit('::', 1)[-1]})" if under else "")
        + (f" at {where}" if where else "")
    )


def _options(request: Any) -> dict[str, Any]:
    timeouts = request.customTimeouts
    opts: dict[str, Any] = {
        "protect": bool(request.protect),
        "deleteBeforeReplace": bool(request.deleteBeforeReplace),
        "ignoreChanges": sorted(request.ignoreChanges),
        "replaceOnChanges": sorted(request.replaceOnChanges),
        "additionalSecretOutputs": sorted(request.additionalSecretOutputs),
        "retainOnDelete": bool(request.retainOnDelete),
        "deletedWith": request.deletedWith,
        "provider": request.provider,
        "version": request.version,
        "customTimeouts": {
            k: getattr(timeouts, k) for k in ("create", "update", "delete") if getattr(timeouts, k)
        },
        "aliases": sorted(a.urn for a in request.aliases if a.urn) + sorted(request.aliasURNs),
    }
    return opts


def _alias_specs(request: Any) -> list[Any]:
    return [a.spec for a in request.aliases if a.WhichOneof("alias") == "spec"]


class RecordingMocks(pmocks.Mocks):
    """Deterministic answers: ids derived from names, invokes from `FakeCloud`.

    In a preview (the offline plan) a new resource's id and computed outputs are unknown,
    as they are in `pulumi preview`; in an update (tests with preview=False) they get
    deterministic fake values, so exports can be checked end to end.
    """

    def __init__(self, cloud: FakeCloud, *, preview: bool) -> None:
        self.cloud = cloud
        self.preview = preview

    def new_resource(self, args: pmocks.MockResourceArgs) -> tuple[str, dict[str, Any]]:
        if self.preview:
            return "", self.cloud.planned(args.typ, args.name, args.inputs)
        digest = hashlib.sha256(f"{args.typ}/{args.name}".encode()).hexdigest()[:16]
        state = self.cloud.computed(args.typ, args.name, args.inputs)
        return self.cloud.resource_id(args.typ, digest), state

    def call(self, args: pmocks.MockCallArgs) -> dict[str, Any]:  # type: ignore[override]
        return self.cloud.invoke(args.token, unwire(args.args))


_LAND_TIMEOUT_S = 60.0
"""How long a refused registration waits for the one it collides with (never reached: the
first one's mock answers at once; a bound only so that a bug cannot hang a run)."""


class RecordingMonitor(pmocks.MockMonitor):
    """A MockMonitor that keeps every request, in registration order."""

    def __init__(self, mocks: RecordingMocks) -> None:
        super().__init__(mocks)
        self.registrations: list[Registration] = []
        self.invokes: list[InvokeCall] = []
        self._by_urn: dict[str, Registration] = {}
        self._root = ""
        self._claimed: dict[str, Any] = {}
        """URN -> the request that took it: requests arrive on several threads, so a URN
        is claimed (under the lock) before its registration is recorded."""
        self._lock = threading.Lock()
        self._landed = threading.Condition(self._lock)
        self._pending: set[str] = set()
        """URNs claimed whose registration has not been recorded yet."""
        self.refused: list[EngineError] = []
        """What this monitor refused, in order: the SDK may only log an error raised in a
        registration, so `run_program` raises the first of these itself."""

    def make_urn(self, parent: str, type_: str, name: str) -> str:
        return engine_urn(settings.get_stack(), settings.get_project(), parent, type_, name)

    def RegisterResource(self, request: Any) -> Any:  # noqa: N802  (gRPC method name)
        if request.type == STACK_TYPE:
            response = super().RegisterResource(request)  # type: ignore[no-untyped-call]
            self._root = response.urn
            return response
        return self._claimed_call(request, super().RegisterResource, read=False)

    def ReadResource(self, request: Any) -> Any:  # noqa: N802  (gRPC method name)
        return self._claimed_call(request, super().ReadResource, read=True)

    def _claimed_call(self, request: Any, call: Callable[[Any], Any], *, read: bool) -> Any:
        """Claim the request's URN, answer it with `call`, record it, release the claim."""
        urn = self.make_urn(request.parent, request.type, request.name)
        self._check(request, urn)
        try:
            response = call(request)
            self._record(request, response.urn, read=read)
        finally:
            self._land(urn)
        return response

    def _check(self, request: Any, urn: str) -> None:
        """Refuse what the engine refuses: a second resource with a URN already taken, a
        parent or an explicit provider that was never registered.

        Requests arrive on several threads. The engine registers the first of two resources
        with one URN whatever happens to the second, so a refusal waits for the first's
        registration to be recorded: what the run reports does not depend on which thread
        was faster (a loaded machine once recorded neither)."""
        with self._lock:
            try:
                self._refuse(request, urn)
            except EngineError as err:
                self._landed.wait_for(lambda: urn not in self._pending, timeout=_LAND_TIMEOUT_S)
                self.refused.append(err)
                raise
            self._claimed[urn] = request
            self._pending.add(urn)

    def _land(self, urn: str) -> None:
        with self._lock:
            self._pending.discard(urn)
            self._landed.notify_all()

    def _refuse(self, request: Any, urn: str) -> None:
        if urn in self._claimed:
            first, second = (_describe(r) for r in (self._claimed[urn], request))
            raise EngineError(
                f"duplicate resource URN {urn}: registered by {first} and again by "
                f"{second}; give one of them another name"
            )
        if request.parent and request.parent != self._root and request.parent not in self._claimed:
            raise EngineError(
                f"{request.type} {request.name!r}: its parent {request.parent} is not registered"
            )
        provider = getattr(request, "provider", "")
        if provider:
            provider_urn = provider.rsplit("::", 1)[0]
            if provider_urn not in self._claimed:
                raise EngineError(
                    f"{request.type} {request.name!r}: its provider {provider_urn} is not "
                    "registered"
                )

    def _aliases(self, request: Any, urn: str) -> list[str]:
        """Every URN the engine would match this resource's old state under: its own alias
        specs, and its own name under each URN its parent may have had."""
        stack, project = settings.get_stack(), settings.get_project()
        found = {a.urn for a in request.aliases if a.urn} | set(request.aliasURNs)
        for spec in _alias_specs(request):
            parent = "" if spec.noParent else (spec.parentUrn or request.parent)
            found.add(
                engine_urn(
                    spec.stack or stack,
                    spec.project or project,
                    parent,
                    spec.type or request.type,
                    spec.name or request.name,
                )
            )
        parent_reg = self._by_urn.get(request.parent)
        for old_parent in parent_reg.aliases if parent_reg is not None else []:
            found.add(engine_urn(stack, project, old_parent, request.type, request.name))
        found.discard(urn)
        return sorted(found)

    def _record(self, request: Any, urn: str, *, read: bool) -> None:
        props = request.properties if read else request.object
        reg = Registration(
            urn=urn,
            type=request.type,
            name=request.name,
            parent=request.parent,
            custom=True if read else bool(request.custom),
            dependencies=[] if read else list(request.dependencies),
            property_dependencies=(
                {} if read else {k: list(v.urns) for k, v in request.propertyDependencies.items()}
            ),
            inputs=unwire(rpc.deserialize_properties(props)),
            options={} if read else _options(request),
            read=read,
            source=_source(request),
            aliases=[] if read else self._aliases(request, urn),
        )
        self.registrations.append(reg)
        self._by_urn[urn] = reg

    def RegisterResourceOutputs(self, request: Any) -> Any:  # noqa: N802  (gRPC method name)
        reg = self._by_urn.get(request.urn)
        if reg is not None:
            reg.outputs = unwire(rpc.deserialize_properties(request.outputs))
        return super().RegisterResourceOutputs(request)  # type: ignore[no-untyped-call]

    def Invoke(self, request: Any) -> Any:  # noqa: N802  (gRPC method name)
        if request.tok != "pulumi:pulumi:getResource":
            self.invokes.append(
                InvokeCall(request.tok, unwire(rpc.deserialize_properties(request.args)))
            )
        return super().Invoke(request)  # type: ignore[no-untyped-call]
