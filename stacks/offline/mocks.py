"""Run the real program in-process against a recording mock engine.

`pulumi.runtime.set_mocks` alone hands tests only a resource's inputs. `RecordingMonitor`
records every `RegisterResource` request whole: parent, dependencies, property
dependencies, the resource options and the inputs with their secret markers intact, plus
invokes, component outputs and engine log lines. The offline plan and the tests both use
it, so what a test asserts is what `python -m stacks plan` prints.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pulumi
from pulumi.runtime import mocks as pmocks
from pulumi.runtime import rpc, settings
from pulumi.runtime.stack import run_pulumi_func
from pulumi.runtime.sync_await import _ensure_event_loop, _sync_await

from stacks.offline.fakes import FakeCloud, StackExports

STACK_TYPE = "pulumi:pulumi:Stack"
REPO = Path(__file__).resolve().parents[2]


class EngineError(pulumi.RunError):
    """A registration the real engine would refuse (a duplicate URN, an unknown parent)."""


class Secret:
    """A secret input as the engine would receive it; never shown in plain text."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "[secret]"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other.value == self.value

    def __hash__(self) -> int:
        return hash(repr(self.value))


UNKNOWN = "[unknown]"
"""How a value that is only known after deployment (`output<T>` in a preview) is shown."""


def unwire(value: Any) -> Any:
    """Wire-form property value -> plain Python, secrets as `Secret`, whole floats as int."""
    if isinstance(value, pulumi.output.Unknown):
        return UNKNOWN
    if rpc.is_rpc_secret(value):
        return Secret(unwire(rpc.unwrap_rpc_secret(value)))
    if isinstance(value, dict):
        return {k: unwire(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unwire(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def reveal(value: Any) -> Any:
    """The same value with every `Secret` opened (for asserting what a secret holds)."""
    if isinstance(value, Secret):
        return reveal(value.value)
    if isinstance(value, dict):
        return {k: reveal(v) for k, v in value.items()}
    if isinstance(value, list):
        return [reveal(v) for v in value]
    return value


def mask(value: Any) -> Any:
    """The same value with every `Secret` replaced by the string "[secret]"."""
    if isinstance(value, Secret):
        return "[secret]"
    if isinstance(value, dict):
        return {k: mask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [mask(v) for v in value]
    return value


def _any_leaf(value: Any, test: Callable[[Any], bool]) -> bool:
    """Whether `test` holds for `value` or anything inside it (dicts, lists)."""
    if test(value):
        return True
    if isinstance(value, dict):
        return any(_any_leaf(v, test) for v in value.values())
    if isinstance(value, list):
        return any(_any_leaf(v, test) for v in value)
    return False


def _has_secret(value: Any) -> bool:
    return _any_leaf(value, lambda v: isinstance(v, Secret))


def _has_unknown(value: Any) -> bool:
    return _any_leaf(value, lambda v: v == UNKNOWN)


def reference_exports(stack: str, exports: dict[str, Any]) -> StackExports:
    """A planned stack's exports as a StackReference to it reads them.

    An export with a secret anywhere inside is a secret output (the engine lists it in
    `secretOutputNames`, so the reading stack gets it as a secret).

    The SDK makes a StackReference's whole `outputs` unknown if any value in it is, which
    would hide every export behind one VM's IP. So a secret only known after deployment (a
    kubeconfig) reads as a placeholder, as `secure:` config values do offline, and other
    exports with unknown parts are left out: exports the plan knows stay readable.
    """
    outputs = {}
    for name, value in exports.items():
        plain = reveal(value)
        if not _has_unknown(plain):
            outputs[name] = plain
        elif _has_secret(value):
            outputs[name] = f"offline-placeholder:{stack}.{name}"
    return StackExports(
        outputs=outputs,
        secret_names=frozenset(k for k, v in exports.items() if _has_secret(v)),
    )


@dataclass
class Registration:
    """One `RegisterResource` (or `ReadResource`) request, as the engine saw it."""

    urn: str
    type: str
    name: str
    parent: str
    custom: bool
    dependencies: list[str]
    property_dependencies: dict[str, list[str]]
    inputs: dict[str, Any]
    options: dict[str, Any]
    read: bool = False
    outputs: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    """Where the program registered it (`file:line`, relative to the repository)."""
    aliases: list[str] = field(default_factory=list)
    """The URNs it may have had before, as the engine resolves its aliases."""


@dataclass
class InvokeCall:
    token: str
    args: dict[str, Any]


def qualified_type(urn: str) -> str:
    """The type part of a URN: the resource's type after its parents' (`a$b$c`)."""
    parts = urn.split("::")
    return parts[2] if len(parts) >= 4 else ""


def engine_urn(stack: str, project: str, parent: str, type_: str, name: str) -> str:
    """The URN the engine gives a resource: its parent's whole qualified type, then its own
    (no prefix under the stack itself). `MockMonitor.make_urn` keeps only the parent's last
    type and prefixes top-level resources with the stack's, so its URNs are not the ones
    `pulumi up --target/--replace` takes."""
    parent_type = qualified_type(parent) if parent else ""
    qualified = type_ if parent_type in ("", STACK_TYPE) else f"{parent_type}${type_}"
    return f"urn:pulumi:{stack}::{project}::{qualified}::{name}"


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
            return "", self.cloud.planned(args.typ, args.inputs)
        digest = hashlib.sha256(f"{args.typ}/{args.name}".encode()).hexdigest()[:16]
        return self.cloud.resource_id(args.typ, digest), self.cloud.computed(args.typ, args.inputs)

    def call(self, args: pmocks.MockCallArgs) -> dict[str, Any]:  # type: ignore[override]
        return self.cloud.invoke(args.token, unwire(args.args))


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
        self.refused: list[EngineError] = []
        """What this monitor refused, in order: the SDK may only log an error raised in a
        registration, so `run_program` raises the first of these itself."""

    def make_urn(self, parent: str, type_: str, name: str) -> str:
        return engine_urn(settings.get_stack(), settings.get_project(), parent, type_, name)

    def RegisterResource(self, request: Any) -> Any:  # noqa: N802  (gRPC method name)
        if request.type != STACK_TYPE:
            self._check(request, self.make_urn(request.parent, request.type, request.name))
        response = super().RegisterResource(request)  # type: ignore[no-untyped-call]
        if request.type == STACK_TYPE:
            self._root = response.urn
        else:
            self._record(request, response.urn, read=False)
        return response

    def ReadResource(self, request: Any) -> Any:  # noqa: N802  (gRPC method name)
        self._check(request, self.make_urn(request.parent, request.type, request.name))
        response = super().ReadResource(request)  # type: ignore[no-untyped-call]
        self._record(request, response.urn, read=True)
        return response

    def _check(self, request: Any, urn: str) -> None:
        """Refuse what the engine refuses: a second resource with a URN already taken, a
        parent or an explicit provider that was never registered."""
        try:
            with self._lock:
                self._refuse(request, urn)
                self._claimed[urn] = request
        except EngineError as err:
            self.refused.append(err)
            raise

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


class _LogCapture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[tuple[str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append((record.levelname.lower(), record.getMessage()))


@dataclass
class ProgramRun:
    """Everything one in-process run registered, logged and exported."""

    project: str
    stack: str
    registrations: list[Registration]
    invokes: list[InvokeCall]
    logs: list[tuple[str, str]]
    exports: dict[str, Any]

    def by_type(self, type_: str) -> list[Registration]:
        return [r for r in self.registrations if r.type == type_]

    def one(self, type_: str, name: str | None = None) -> Registration:
        found = [r for r in self.by_type(type_) if name is None or r.name == name]
        if len(found) != 1:
            names = [r.name for r in self.by_type(type_)]
            raise LookupError(f"expected one {type_} named {name!r}, found {names}")
        return found[0]

    def urn_of(self, name: str) -> str:
        return next(r.urn for r in self.registrations if r.name == name)


async def _resolve(value: Any) -> Any:
    """An export's final value, with secret-ness kept as `Secret` and unknowns as None."""
    output = pulumi.Output.from_input(value)
    is_secret = await output.is_secret()
    known = await output.is_known()
    resolved = await output.future(with_unknowns=True) if known else None
    if isinstance(resolved, dict):
        resolved = {k: await _resolve(v) for k, v in resolved.items()}
    elif isinstance(resolved, list):
        resolved = [await _resolve(v) for v in resolved]
    if not known:
        resolved = "[unknown]"
    return Secret(resolved) if is_secret else resolved


def _quiet_unretrieved(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """One failed lookup fails every output built on it; report it once, not per output.

    The first failure propagates out of `run_program`; the copies left in dependent
    futures would otherwise be printed as "Future exception was never retrieved".
    """
    if context.get("message") == "Future exception was never retrieved":
        return
    loop.default_exception_handler(context)


def run_program(
    program: Callable[[], None],
    *,
    project: str,
    stack: str,
    config: Mapping[str, str],
    secret_keys: set[str] | None = None,
    preview: bool = True,
    cloud: FakeCloud | None = None,
    registrations: list[Registration] | None = None,
) -> ProgramRun:
    """Run `program` as `pulumi preview` (or `up`, preview=False) would, but in-process.

    Exceptions raised by the program propagate unchanged, so a config error reaches the
    caller exactly as `pulumi up` would report it. Pass a list as `registrations` to see
    what registered even when the program fails: every request is appended to it.
    """
    cloud = cloud or FakeCloud(config)
    monitor = RecordingMonitor(RecordingMocks(cloud, preview=preview))
    if registrations is not None:
        monitor.registrations = registrations
    logger = logging.getLogger(f"gpu-ci.plan.{stack}")
    logger.propagate = False
    capture = _LogCapture()
    logger.handlers = [capture]
    logger.setLevel(logging.DEBUG)
    settings.ROOT.set(None)
    pmocks.set_mocks(
        monitor.mocks, project=project, stack=stack, preview=preview, logger=logger, monitor=monitor
    )
    pulumi.runtime.set_all_config(dict(config), sorted(secret_keys or ()))
    settings.SETTINGS.outputs.clear()
    loop = _ensure_event_loop()  # type: ignore[no-untyped-call]
    loop.set_exception_handler(_quiet_unretrieved)
    try:
        _sync_await(run_pulumi_func(program))
    except Exception:
        if monitor.refused:  # the engine's refusal is the cause, whatever surfaced
            raise monitor.refused[0] from None
        raise
    if monitor.refused:
        raise monitor.refused[0]
    root = settings.get_root_resource()
    raw_exports = dict(getattr(root, "outputs", {}) or {})

    async def resolve_all() -> dict[str, Any]:
        return {k: await _resolve(v) for k, v in sorted(raw_exports.items())}

    exports = _sync_await(resolve_all())
    return ProgramRun(
        project, stack, monitor.registrations, monitor.invokes, capture.records, exports
    )
