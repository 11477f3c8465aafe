"""What every package component does: its inputs as stack config, checked, then the program's
own layers registered under the component.

A component's inputs are the `gpu-ci:` keys of a stack file (`values`), so the Python
program's config models validate them (`load_config`) and its `prepare` builds every
parameter model, all before anything registers: a bad input is the program's one message,
each problem at the input it came from. The graph is the program's own (`build_graph`):
the same resources, with the same names, inputs and edges. They register under the
component: the SDK parents a resource created without a parent to the root resource in
its context (pulumi/sdk/python/lib/pulumi/runtime/resource.py @ v3.272.0,
`settings.get_root_resource()` in `prepare_resource`), so while the layers register, the
root is the component.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pulumi
from pulumi.output import Unknown
from pulumi.runtime import settings
from pulumi.runtime.sync_await import _sync_await
from pydantic import ValidationError

from core.errors import GpuCiError, did_you_mean
from stacks.compose import build_graph, prepare
from stacks.config import NAMESPACE, ConfigError, RawConfig, StackConfig, load_config
from stacks.config.loader import what_exists
from stacks.config.param_keys import unprepared_problems
from stacks.context import StackContext, StackOutputs


class InputsError(GpuCiError, pulumi.RunError):
    """A component's inputs have problems: the message lists each one at its input.

    A `RunError`, so a Python program prints the message alone; the provider turns it into
    the engine's invalid-inputs error (`gpu_ci_package.provider`). `late`: found while its
    children registered (the program's last resort), so some may exist."""

    def __init__(
        self, component: str, name: str, problems: list[tuple[str, str]], *, late: bool = False
    ) -> None:
        self.problems = problems
        count = f"{len(problems)} problem" + ("s" if len(problems) != 1 else "")
        lines = [f"{component} {name!r}: invalid inputs ({count}):"]
        lines += ["  - " + f"{key}: {message}".replace("\n", "\n    ") for key, message in problems]
        lines.append(f"{what_exists(late)} Fix each input and run again.")
        super().__init__("\n".join(lines))


class UnknownInputError(GpuCiError, pulumi.RunError):
    """An input not known at preview: it must be checked before anything registers."""

    def __init__(self, path: str) -> None:
        super().__init__(
            f"input {path} is not known yet: gpu-ci checks every input before anything "
            "registers, so give a value known at preview (not another resource's output)"
        )


@dataclass(frozen=True)
class Inputs:
    """A component's inputs as a stack's `gpu-ci:` keys, and which of them are secrets."""

    values: dict[str, Any]
    secret_keys: frozenset[str]


def _known(value: Any, path: str) -> tuple[Any, bool]:
    """`value` with each Output (a secret, an input with dependencies: pulumi/provider/
    server.py `_select_value`; a Python program's `Output.secret`) replaced by its value,
    awaited; and whether any was a secret. Pulumi sends numbers as doubles: a whole one
    is given to the config models as the integer it was written as. An unknown the engine
    sends without dependencies arrives bare (`Unknown`): not known either."""
    if isinstance(value, Unknown):
        raise UnknownInputError(path)
    if isinstance(value, pulumi.Output):
        data = _sync_await(value._data)  # as the SDK's sync invokes wait, in the program
        if not data.is_known:
            raise UnknownInputError(path)
        inner, secret = _known(data.value, path)
        return inner, secret or data.is_secret
    if isinstance(value, dict):
        pairs = {k: _known(v, f"{path}.{k}") for k, v in value.items() if v is not None}
        return {k: v for k, (v, _) in pairs.items()}, any(s for _, s in pairs.values())
    if isinstance(value, list | tuple):
        items = [_known(v, f"{path}[{i}]") for i, v in enumerate(value)]
        return [v for v, _ in items], any(s for _, s in items)
    if isinstance(value, float) and value.is_integer():
        return int(value), False
    return value, False


def args_of(token: str, name: str, args: Mapping[str, Any], kind: type) -> dict[str, Any]:
    """The inputs given (unset ones left out); a key the component does not take is a
    problem at that key, never silently dropped (a Python program's typo)."""
    known = list(kind.__annotations__)
    problems = []
    for key in sorted(set(args) - set(known)):
        near = did_you_mean(key, known)
        hint = f"did you mean {near!r}? " if near else ""
        problems.append((key, f"is not an input of {token}; {hint}it takes {', '.join(known)}"))
    if problems:
        raise InputsError(token, name, problems)
    return {key: value for key, value in args.items() if value is not None}


def stack_inputs(keys: Mapping[str, Any]) -> Inputs:
    """Stack config keys (no namespace) from input values; unset ones left out."""
    values: dict[str, Any] = {}
    secret: set[str] = set()
    for key, given in keys.items():
        if given is None:
            continue
        value, is_secret = _known(given, key)
        values[key] = value
        if is_secret:
            secret.add(f"{NAMESPACE}:{key}")
    return Inputs(values, frozenset(secret))


KeyMap = Callable[[str], str]
"""A config key without the namespace (`platform.accelerator`) -> its input's path."""


def _problems(err: ConfigError, input_path: KeyMap) -> list[tuple[str, str]]:
    out = []
    for problem in err.problems:
        key = problem.key.removeprefix(f"{NAMESPACE}:").removeprefix(NAMESPACE)
        out.append((input_path(key) if key else "inputs", problem.message))
    out += [("warning", w) for w in err.warnings]
    return out


def checked(component: str, name: str, inputs: Inputs, input_path: KeyMap) -> StackConfig:
    """The inputs validated as the program validates its config, and every parameter model
    built (`prepare`), registering nothing; else one InputsError."""
    ctx = context()
    raw = RawConfig(dict(inputs.values), inputs.secret_keys)
    try:
        config = load_config(raw, ctx.stack)
        prepare(config, ctx, inputs.secret_keys)
    except ConfigError as err:
        raise InputsError(component, name, _problems(err, input_path)) from None
    return config


@contextmanager
def _root(component: pulumi.Resource) -> Iterator[None]:
    token = settings.ROOT.set(component)
    try:
        yield
    finally:
        settings.ROOT.reset(token)


def register_layers(
    component: pulumi.ComponentResource,
    token: str,
    name: str,
    config: StackConfig,
    inputs: Inputs,
    input_path: KeyMap,
) -> StackOutputs:
    """The program's graph for `config`, every resource under `component` (`token`,
    `name`)."""
    ctx = context()
    try:
        with _root(component):
            return build_graph(config, ctx, secret_keys=inputs.secret_keys)
    except ValidationError as err:  # a model `prepare` does not build (as the program does)
        late = ConfigError(ctx.stack, unprepared_problems(err, inputs.secret_keys))
        raise InputsError(token, name, _problems(late, input_path), late=True) from None


def context() -> StackContext:
    """Who deploys: the consumer's project and stack, as the program names them."""
    return StackContext(project=pulumi.get_project(), stack=pulumi.get_stack())


def field(export: Any, *path: str) -> pulumi.Output[Any]:
    """One value of a layer's export (an Output of its contract), by its keys."""

    def pick(value: Any) -> Any:
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        return value

    return pulumi.Output.from_input(export).apply(pick)


def top_level(key: str) -> str:
    """Config keys that are the component's inputs as they are."""
    return key


def under(prefix: str, *, rename: Mapping[str, str] | None = None) -> KeyMap:
    """Config keys under `prefix` (`platform.`) are the component's top-level inputs."""

    def path(key: str) -> str:
        for old, new in (rename or {}).items():
            if key == old or key.startswith((old + ".", old + "[")):
                return new + key[len(old) :]
        return key.removeprefix(prefix)

    return path


OBSERVABILITY = {"observability.enabled": "metrics"}
"""The one observability key a component takes: whether it deploys the metrics."""


def observability(metrics: bool | None) -> dict[str, Any] | None:
    """The `gpu-ci:observability` key from the `metrics` input (unset: the program's
    default, on where something deploys onto a cluster)."""
    return None if metrics is None else {"enabled": metrics}
