"""A program with no gpu-ci code that registers exactly what a plan snapshot recorded.

This is the SDK floor of `plan_floor.py`: the cheapest Pulumi program that produces the
same snapshot. Each recorded resource is created the way any Pulumi program creates it,
through the provider SDK's own class for its type token (the class the provider package
registers for that token: `oci:Core/instance:Instance` is `pulumi_oci.core.Instance`), with
the recorded inputs, parent, dependencies, provider and options; secrets are secrets again,
unknowns unknown. Components are a minimal `ComponentResource` subclass that registers the
recorded outputs, and recorded invokes are made again. `check_same` proves the replay
registered what the program did, so the floor cannot be cheaper by registering less.
`bare_replay` is the older, lower bound, kept for comparison.
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

from stacks.mocks import UNKNOWN, ProgramRun, Registration, Secret, mask

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _live(value: Any) -> Any:
    """A recorded value as a program would pass it: `Secret` -> secret Output, unknown ->
    the wire's unknown."""
    if isinstance(value, Secret):
        return pulumi.Output.secret(_live(value.value))
    if isinstance(value, dict):
        return {k: _live(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_live(v) for v in value]
    if value == UNKNOWN:
        return _unknown()
    return value


def _unknown() -> pulumi.Output[Any]:
    """An output only known after deployment, as a preview has it."""
    loop = asyncio.get_event_loop()
    value, known = loop.create_future(), loop.create_future()
    value.set_result(None)
    known.set_result(False)
    return pulumi.Output(set(), value, known)


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
    """A provider's input as passed: the SDK sends its non-string inputs JSON-encoded."""
    if not isinstance(value, str):
        return value
    try:
        decoded = json.loads(value)
    except ValueError:
        return value
    return value if isinstance(decoded, str) else decoded


def _kwargs(cls: type, inputs: dict[str, Any]) -> dict[str, Any]:
    """Recorded (wire-named) inputs as the class's keyword arguments. Inputs that are not
    arguments are the ones the class sets itself (a Kubernetes `kind`), except for the
    generic CRD classes, which take any field."""
    params = _parameters(cls)
    generic = cls.__module__.startswith("pulumi_kubernetes.apiextensions")
    provider = issubclass(cls, pulumi.ProviderResource)
    kwargs: dict[str, Any] = {}
    for key, value in inputs.items():
        name = _CAMEL.sub("_", key).lower()
        if name in params or generic:
            given = _provider_input(value) if provider else value
            kwargs[name if name in params else key] = _live(given)
    return kwargs


def _options(reg: Registration, made: dict[str, pulumi.Resource]) -> pulumi.ResourceOptions:
    opts = reg.options
    provider = opts.get("provider") or ""
    timeouts = opts.get("customTimeouts") or {}
    return pulumi.ResourceOptions(
        parent=made.get(reg.parent),
        depends_on=[made[d] for d in reg.dependencies if d in made],
        provider=made.get(provider.rsplit("::", 1)[0]) if provider else None,  # type: ignore[arg-type]
        protect=opts.get("protect") or None,
        delete_before_replace=opts.get("deleteBeforeReplace") or None,
        ignore_changes=opts.get("ignoreChanges") or None,
        replace_on_changes=opts.get("replaceOnChanges") or None,
        additional_secret_outputs=opts.get("additionalSecretOutputs") or None,
        retain_on_delete=opts.get("retainOnDelete") or None,
        custom_timeouts=pulumi.CustomTimeouts(**timeouts) if timeouts else None,
    )


def replay(run: ProgramRun) -> Callable[[], None]:
    """The program that makes `run`'s invokes, registers its resources through their SDK
    classes and exports its exports."""

    def program() -> None:
        for call in run.invokes:
            pulumi.runtime.invoke(call.token, _live(call.args))
        made: dict[str, pulumi.Resource] = {}
        for reg in run.registrations:
            if reg.read:
                continue
            opts = _options(reg, made)
            if reg.custom and not reg.options.get("version"):  # no SDK class was used
                made[reg.urn] = pulumi.CustomResource(reg.type, reg.name, _live(reg.inputs), opts)
            elif reg.custom:
                cls = sdk_class(reg.type)
                made[reg.urn] = cls(reg.name, opts=opts, **_kwargs(cls, reg.inputs))
            else:
                made[reg.urn] = Component(reg.type, reg.name, _live(reg.outputs), opts)
        for name, value in run.exports.items():
            pulumi.export(name, _live(value))

    return program


def bare_replay(run: ProgramRun) -> Callable[[], None]:
    """A lower bound no real program reaches: every resource a bare `CustomResource` or
    `ComponentResource` with parent, dependencies and inputs only, secrets as plain
    "[secret]" strings, no invokes. It skips what the SDK does for every provider class
    (an output future per declared output, the source position of the class's caller,
    type-driven name translation) and the recorded options."""

    def program() -> None:
        made: dict[str, pulumi.Resource] = {}
        for reg in run.registrations:
            if reg.read:
                continue
            opts = pulumi.ResourceOptions(
                parent=made.get(reg.parent),
                depends_on=[made[d] for d in reg.dependencies if d in made],
            )
            if reg.custom:
                made[reg.urn] = pulumi.CustomResource(reg.type, reg.name, mask(reg.inputs), opts)
            else:
                component = pulumi.ComponentResource(reg.type, reg.name, None, opts)
                component.register_outputs({})
                made[reg.urn] = component
        for name, value in mask(run.exports).items():
            pulumi.export(name, value)

    return program


def _shape(reg: Registration) -> dict[str, Any]:
    opts = reg.options
    return {
        "type": reg.type,
        "parent": reg.parent,
        "custom": reg.custom,
        "dependencies": sorted(reg.dependencies),
        "inputs": mask(reg.inputs),
        # A class adds some options itself (pulumi-command's replaceOnChanges on
        # `triggers[*]`); replayed, they arrive twice, which the engine reads as once.
        "options": {k: sorted(set(v)) if isinstance(v, list) else v for k, v in opts.items()},
        "outputs": mask(reg.outputs),
    }


def check_same(program: ProgramRun, floor: ProgramRun) -> None:
    """Raise unless `floor` registered, invoked and exported what `program` did (by URN,
    dependencies as sets)."""
    ours = {r.urn: _shape(r) for r in program.registrations if not r.read}
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
