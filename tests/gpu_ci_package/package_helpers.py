"""Run a package component as another language's program does (through the provider's
`construct`, inputs keyed by schema name) and the Python program on the same config, both
under the recording mock engine; compare what registered."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

import pulumi
from google.protobuf import struct_pb2  # type: ignore[import-untyped]
from pulumi.provider.server import ProviderServicer
from pulumi.runtime import rpc
from pulumi.runtime.sync_await import _sync_await

from gpu_ci_package.provider import GpuCiProvider
from stacks.config import NAMESPACE
from stacks.offline.engine.fakes import FakeCloud
from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import ProgramRun, Registration
from stacks.program import main
from tests.components.arc.arc_helpers import PEM
from tests.stacks.stack_helpers import flat

PROJECT = "gpu-ci"
RUNNER: Any = {
    "url": "https://github.com/kubeflow",
    "group": "GPUs",
    "labels": ["gpu-a10"],
    "githubApp": {"appId": 1234567, "installationId": 87654321, "privateKey": PEM},
}
"""A runner's inputs with the App key, as a consumer of GpuRunnerHost gives them."""
PROVIDER = GpuCiProvider()


def as_sent(value: Any, secrets: frozenset[str] = frozenset(), path: str = "") -> Any:
    """`value` as the engine sends a component's inputs: numbers as doubles, and each value
    at a path in `secrets` marked secret (a `pulumi.secret(...)` in the consumer)."""
    if path in secrets:
        return {rpc._special_sig_key: rpc._special_secret_sig, "value": as_sent(value)}
    if isinstance(value, dict):
        return {k: as_sent(v, secrets, f"{path}.{k}".lstrip(".")) for k, v in value.items()}
    if isinstance(value, list):
        return [as_sent(v, secrets, f"{path}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def construct(
    token: str,
    name: str,
    inputs: dict[str, Any],
    *,
    stack: str = "test",
    cloud: FakeCloud | None = None,
    secrets: frozenset[str] = frozenset(),
    outputs: dict[str, Any] | None = None,
    registrations: list[Registration] | None = None,
    config: dict[str, str] | None = None,
) -> ProgramRun:
    """`token` constructed through the provider as the engine asks a plugin to: the inputs
    as a protobuf Struct, read by the SDK's provider server (`_construct_inputs`), then
    `construct`. `outputs`, if given, receives the state it returns, resolved; `config`
    is the consumer's stack config (`oci:region`), which the engine passes the plugin."""

    def program() -> None:
        struct = struct_pb2.Struct()
        struct.update(as_sent(inputs, secrets))
        given = _sync_await(ProviderServicer._construct_inputs(struct, {}))
        result = PROVIDER.construct(name, token, given, None)
        if outputs is not None:
            outputs.update(_sync_await(_resolved(result.state)))

    return run_program(
        program,
        project=PROJECT,
        stack=stack,
        config=config or {},
        cloud=cloud or FakeCloud(config or {}),
        registrations=registrations,
    )


async def _resolved(state: Mapping[str, Any]) -> dict[str, Any]:
    """Each output's value and whether it is a secret."""
    out = {}
    for key, value in state.items():
        output = pulumi.Output.from_input(value)
        out[key] = (await output.future(with_unknowns=True), await output.is_secret())
    return out


def program(
    values: dict[str, Any],
    *,
    stack: str = "test",
    secret_keys: set[str] | None = None,
    cloud: FakeCloud | None = None,
) -> ProgramRun:
    """The Python program on the stack config `values` (keys without the namespace)."""
    config = flat({f"{NAMESPACE}:{k}": v for k, v in values.items()})
    return run_program(
        main,
        project=PROJECT,
        stack=stack,
        config=config,
        secret_keys={f"{NAMESPACE}:{k}" for k in secret_keys or set()},
        cloud=cloud,
    )


def without_component(run: ProgramRun, token: str) -> list[dict[str, Any]]:
    """Every registration but the component's own, as if its children were the stack's:
    the component's URN and its type in the URNs' parent chains taken out."""
    mine = [r for r in run.registrations if r.type == token]
    assert len(mine) == 1, [r.urn for r in mine]
    stack_urn = mine[0].parent

    def strip(value: Any) -> Any:
        text = json.dumps(value, sort_keys=True)
        text = text.replace(json.dumps(mine[0].urn)[1:-1], stack_urn).replace(f"{token}$", "")
        return json.loads(text)

    found = [
        strip(_comparable(r))
        for r in run.registrations
        if r.type not in (token, "pulumi:pulumi:Stack")
    ]
    return sorted(found, key=lambda r: str(r["urn"]))


def registered(run: ProgramRun) -> list[dict[str, Any]]:
    """Every registration of the program but the stack's, comparable, by URN (requests
    that wait on nothing of each other arrive in either order)."""
    found = [_comparable(r) for r in run.registrations if r.type != "pulumi:pulumi:Stack"]
    return sorted(found, key=lambda r: str(r["urn"]))


def _comparable(record: Any) -> dict[str, Any]:
    out = dataclasses.asdict(record)
    out.pop("source")  # the file and line that registered it: the layer, the same in both
    out["dependencies"] = sorted(out["dependencies"])  # the engine's sets, in no order
    out["property_dependencies"] = {k: sorted(v) for k, v in out["property_dependencies"].items()}
    comparable: dict[str, Any] = json.loads(json.dumps(out, sort_keys=True, default=repr))
    return comparable
