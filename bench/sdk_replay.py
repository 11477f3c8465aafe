"""Programs with no gpu-ci code that register exactly what a plan registered.

`replay` is the SDK floor of `plan_floor.py`: the Pulumi SDK's own cost for the plan's graph,
created the way a Pulumi program creates it. Each recorded resource goes through the class
its provider package registers for the type token (`oci:Core/instance:Instance` is
`pulumi_oci.core.Instance`, found as the SDK finds it), with the recorded parent,
dependencies (per input, as property dependencies), provider, options and inputs; secrets
are secret Outputs again, unknowns unknown Outputs. Components are a minimal
`ComponentResource` subclass registering the recorded outputs; invokes are made again.

`untyped_replay` registers the same requests without the provider classes (a bare
`CustomResource` or `ProviderResource` given the recorded version). It is cheaper, by what
the classes themselves do: an output future per declared output, the source position of
the class's caller, type-driven name translation. It is a bound, not a program anyone
writes with the provider SDKs, and `plan_floor.py` reports it beside the floor.

`check_same` proves that a replay registered, invoked and exported what the plan did, so
neither can be cheaper by registering less.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import re
from collections.abc import Callable
from functools import cache
from typing import Any

import pulumi
from pulumi.runtime import rpc

from stacks.offline.engine.records import ProgramRun, Registration
from stacks.offline.engine.values import UNKNOWN, Secret

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _live(value: Any) -> Any:
    """A recorded value as a program would pass it: `Secret` -> secret Output, unknown ->
    unknown Output."""
    if isinstance(value, Secret):
        return pulumi.Output.secret(_live(value.value))
    if isinstance(value, dict):
        return {k: _live(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_live(v) for v in value]
    if value == UNKNOWN:
        return _output(None, known=False)
    return value


def _output(
    value: Any, *, known: bool, resources: set[pulumi.Resource] | None = None
) -> pulumi.Output[Any]:
    """An Output of `value` that other resources' outputs would be: from `resources`,
    unknown in a preview unless `known`."""
    loop = asyncio.get_event_loop()
    future, is_known = loop.create_future(), loop.create_future()
    future.set_result(value)
    is_known.set_result(known)
    return pulumi.Output(resources or set(), future, is_known)


def _input(value: Any, resources: set[pulumi.Resource]) -> Any:
    """One top-level input, carrying the resources it came from (its property
    dependencies), as an Output built on those resources' outputs does."""
    if not resources:
        return _live(value)
    if value == UNKNOWN:
        return _output(None, known=False, resources=resources)
    if isinstance(value, Secret):
        return pulumi.Output.secret(_input(value.value, resources))
    return _output(_live(value), known=True, resources=resources)


class Component(pulumi.ComponentResource):
    """The least a component class is: its own constructor around ComponentResource's."""

    def __init__(
        self, type_: str, name: str, outputs: dict[str, Any], opts: pulumi.ResourceOptions
    ) -> None:
        super().__init__(type_, name, None, opts)
        self.register_outputs(outputs)


@cache
def sdk_class(type_: str) -> type[pulumi.CustomResource]:
    """The provider SDK's class for a type token, as the SDK looks it up itself."""
    pkg, mod, name = type_.split(":", 2)
    if pkg == "pulumi" and mod == "providers":
        package = rpc.get_resource_package(name, "")
        if package is None:
            raise LookupError(f"no SDK registers the provider {type_}")
        info = package.pkg_info  # type: ignore[attr-defined]
        return getattr(importlib.import_module(info["fqn"]), info["class"])  # type: ignore[no-any-return]
    module = rpc.get_resource_module(pkg, mod, "")
    if module is not None:
        info = module.mod_info  # type: ignore[attr-defined]
        if type_ in info["classes"]:
            cls = getattr(importlib.import_module(info["fqn"]), info["classes"][type_])
            return cls  # type: ignore[no-any-return]
    if pkg == "kubernetes":  # a custom resource: the generic CRD classes
        apiextensions = importlib.import_module("pulumi_kubernetes.apiextensions")
        return getattr(  # type: ignore[no-any-return]
            apiextensions, "CustomResourcePatch" if name.endswith("Patch") else "CustomResource"
        )
    raise LookupError(f"no SDK registers the resource type {type_}")


@cache
def _parameters(cls: type) -> frozenset[str]:
    return frozenset(inspect.signature(cls._internal_init).parameters)  # type: ignore[attr-defined]


def _provider_input(value: Any) -> Any:
    """A provider class's argument: the class sends its non-string inputs JSON-encoded."""
    if not isinstance(value, str):
        return value
    try:
        decoded = json.loads(value)
    except ValueError:
        return value
    return value if isinstance(decoded, str) else decoded


def _inputs(reg: Registration, made: dict[str, pulumi.Resource], *, typed: bool) -> dict[str, Any]:
    """The recorded inputs as a program passes them, keyed by their wire names."""
    decode = typed and reg.type.startswith("pulumi:providers:")
    return {
        key: _input(
            _provider_input(value) if decode else value,
            {made[u] for u in reg.property_dependencies.get(key, ()) if u in made},
        )
        for key, value in reg.inputs.items()
    }


def _kwargs(cls: type, inputs: dict[str, Any]) -> dict[str, Any]:
    """Inputs as the class's keyword arguments. Inputs that are not arguments are the ones
    the class sets itself (a Kubernetes `kind`), except for the generic CRD classes, which
    take any field."""
    params = _parameters(cls)
    generic = cls.__module__.startswith("pulumi_kubernetes.apiextensions")
    kwargs: dict[str, Any] = {}
    for key, value in inputs.items():
        name = _CAMEL.sub("_", key).lower()
        if name in params or generic:
            kwargs[name if name in params else key] = value
    return kwargs


def _options(
    reg: Registration, made: dict[str, pulumi.Resource], *, version: bool
) -> pulumi.ResourceOptions:
    opts = reg.options
    provider = opts.get("provider") or ""
    timeouts = opts.get("customTimeouts") or {}
    via_inputs = {u for urns in reg.property_dependencies.values() for u in urns}
    return pulumi.ResourceOptions(
        parent=made.get(reg.parent),
        depends_on=[made[d] for d in reg.dependencies if d in made and d not in via_inputs],
        provider=made.get(provider.rsplit("::", 1)[0]) if provider else None,  # type: ignore[arg-type]
        protect=opts.get("protect") or None,
        delete_before_replace=opts.get("deleteBeforeReplace") or None,
        ignore_changes=opts.get("ignoreChanges") or None,
        replace_on_changes=opts.get("replaceOnChanges") or None,
        additional_secret_outputs=opts.get("additionalSecretOutputs") or None,
        retain_on_delete=opts.get("retainOnDelete") or None,
        custom_timeouts=pulumi.CustomTimeouts(**timeouts) if timeouts else None,
        version=(opts.get("version") or None) if version else None,
    )


def _custom(reg: Registration, made: dict[str, pulumi.Resource], *, typed: bool) -> Any:
    typed = typed and bool(reg.options.get("version"))
    inputs = _inputs(reg, made, typed=typed)
    if typed:
        cls = sdk_class(reg.type)
        return cls(reg.name, opts=_options(reg, made, version=False), **_kwargs(cls, inputs))
    # No SDK class was used (no version recorded), or none is wanted.
    opts = _options(reg, made, version=True)
    pkg, mod, name = reg.type.split(":", 2)
    if pkg == "pulumi" and mod == "providers":
        return pulumi.ProviderResource(name, reg.name, inputs, opts)
    return pulumi.CustomResource(reg.type, reg.name, inputs, opts)


def _program(run: ProgramRun, *, typed: bool) -> Callable[[], None]:
    if any(r.read for r in run.registrations):
        raise ValueError("replaying a read (`get`) resource is not supported")

    def program() -> None:
        for call in run.invokes:
            pulumi.runtime.invoke(call.token, _live(call.args))
        made: dict[str, pulumi.Resource] = {}
        for reg in run.registrations:
            if reg.custom:
                made[reg.urn] = _custom(reg, made, typed=typed)
            else:
                opts = _options(reg, made, version=False)
                made[reg.urn] = Component(reg.type, reg.name, _live(reg.outputs), opts)
        for name, value in run.exports.items():
            pulumi.export(name, _live(value))

    return program


def replay(run: ProgramRun) -> Callable[[], None]:
    """The SDK floor: `run`'s invokes, resources (through their provider classes) and
    exports, with no gpu-ci code."""
    return _program(run, typed=True)


def untyped_replay(run: ProgramRun) -> Callable[[], None]:
    """The same requests without the provider classes: a bound below the floor."""
    return _program(run, typed=False)


def _shape(reg: Registration) -> dict[str, Any]:
    return {
        "type": reg.type,
        "parent": reg.parent,
        "custom": reg.custom,
        "dependencies": sorted(set(reg.dependencies)),
        "property_dependencies": {k: sorted(v) for k, v in reg.property_dependencies.items()},
        "inputs": reg.inputs,  # secrets compared by value (`Secret.__eq__`), not masked
        # A class adds some options itself (pulumi-command's replaceOnChanges on
        # `triggers[*]`); replayed, they arrive twice, which the engine reads as once.
        "options": {
            k: sorted(set(v)) if isinstance(v, list) else v for k, v in reg.options.items()
        },
        "outputs": reg.outputs,
    }


def check_same(program: ProgramRun, floor: ProgramRun) -> None:
    """Raise unless `floor` registered, invoked and exported what `program` did: per URN,
    type, parent, dependencies, property dependencies, inputs and secrets, options and
    component outputs; invokes by token and arguments; exports by value."""
    ours = {r.urn: _shape(r) for r in program.registrations}
    theirs = {r.urn: _shape(r) for r in floor.registrations}
    if ours.keys() != theirs.keys():
        raise AssertionError(f"URNs differ: {sorted(ours.keys() ^ theirs.keys())}")
    for urn, shape in ours.items():
        for key, value in shape.items():
            other = theirs[urn][key]
            if other != value:
                where = (
                    sorted(k for k in value.keys() | other.keys() if value.get(k) != other.get(k))
                    if isinstance(value, dict) and isinstance(other, dict)
                    else f"{value!r:.200} != {other!r:.200}"
                )
                raise AssertionError(f"{urn}: {key} differs: {where}")
    calls = [(c.token, c.args) for c in program.invokes]
    if calls != [(c.token, c.args) for c in floor.invokes]:
        raise AssertionError(f"invokes differ from {calls!r}")
    if program.exports != floor.exports:
        raise AssertionError("exports differ")
