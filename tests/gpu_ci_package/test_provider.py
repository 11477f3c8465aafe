"""The provider's `construct` as the engine calls it (gpu_ci_package/provider.py): inputs read
by the SDK's provider server, a refused input as the engine's invalid-inputs error, an input
not known at preview refused by name, and any other fault with its stack."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest
from google.protobuf import struct_pb2  # type: ignore[import-untyped]
from pulumi.errors import InputPropertiesError
from pulumi.provider.server import ComponentInitError, ProviderServicer
from pulumi.runtime import rpc
from pulumi.runtime.proto import provider_pb2
from pulumi.runtime.sync_await import _sync_await

from gpu_ci_package.provider import GpuCiProvider, _unwrapped
from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import Registration
from stacks.offline.engine.values import Secret
from tests.components.arc.arc_helpers import KUBECONFIG, PEM, RUNNER_IMAGE
from tests.gpu_ci_package.package_helpers import RUNNER, as_sent

HOST = "gpu-ci:index:GpuRunnerHost"
OTHER = "urn:pulumi:test::gpu-ci::random:index:RandomPet::pet"
NOT_KNOWN = (
    "input {} is not known yet: gpu-ci checks every input before anything registers, so "
    "give a value known at preview (not another resource's output)"
)


def construct(
    inputs: dict[str, Any],
    depends: dict[str, list[str]] | None = None,
    provider: GpuCiProvider | None = None,
    registrations: list[Registration] | None = None,
    token: str = HOST,
    secrets: frozenset[str] = frozenset(),
) -> None:
    """`token` constructed as the engine asks for it at preview: the inputs as a protobuf
    Struct (those in `secrets` marked secret), each with the URNs it depends on, read by
    the SDK's server."""

    def program() -> None:
        struct = struct_pb2.Struct()
        struct.update(as_sent(inputs, secrets))
        deps = {
            key: provider_pb2.ConstructRequest.PropertyDependencies(urns=urns)
            for key, urns in (depends or {}).items()
        }
        given = _sync_await(ProviderServicer._construct_inputs(struct, deps))
        (provider or GpuCiProvider()).construct("h", token, given, None)

    run_program(program, project="gpu-ci", stack="test", config={}, registrations=registrations)


OUTPUT_VALUE = {rpc._special_sig_key: rpc._special_output_value_sig, "dependencies": [OTHER]}
"""An output value the engine sends inside an input (its value not known)."""


@pytest.mark.parametrize(
    ("host", "path"),
    [
        ({"target": "local", "dockerUser": OUTPUT_VALUE}, "host.dockerUser"),
        ({"target": "local", "dockerUser": rpc.UNKNOWN}, "host.dockerUser"),
        (rpc.UNKNOWN, "host"),
    ],
    ids=["output-value", "bare-inside", "bare-whole"],
)
def test_an_input_sent_not_known_is_refused_at_its_path(host: Any, path: str) -> None:
    """Not known, with no dependencies, the engine sends `Unknown` itself, which the SDK's
    `map_inputs` would read as an empty object and the config models as no string."""
    with pytest.raises(InputPropertiesError) as refused:
        construct({"host": host})
    assert refused.value.message == NOT_KNOWN.format(path)
    assert refused.value.errors is None


@pytest.mark.parametrize(
    "host",
    [{"target": "local", "dockerUser": rpc.UNKNOWN}, rpc.UNKNOWN],
    ids=["inside", "whole"],
)
def test_an_input_from_another_resource_not_known_at_preview_is_refused_by_name(
    host: Any,
) -> None:
    """The server wraps an input with dependencies as one Output, unknown if anything in it
    is (pulumi/provider/server.py `_select_value`); the SDK's `map_inputs` would read it
    as an empty object and report `host.target` missing."""
    registrations: list[Registration] = []
    with pytest.raises(InputPropertiesError) as refused:
        construct({"host": host}, {"host": [OTHER]}, registrations=registrations)
    assert refused.value.message == NOT_KNOWN.format("host")
    assert refused.value.errors is None
    assert [r for r in registrations if r.type != "pulumi:pulumi:Stack"] == []


def test_a_known_input_with_dependencies_is_read_as_its_value() -> None:
    registrations: list[Registration] = []
    construct({"host": {"target": "local"}}, {"host": [OTHER]}, registrations=registrations)
    assert [r.type for r in registrations if r.type.startswith("gpu-ci:")] == [
        HOST,
        "gpu-ci:host:GpuHost",
    ]


def test_the_result_is_the_components_urn_and_its_outputs_under_the_options_given() -> None:
    results: list[Any] = []
    registrations: list[Registration] = []

    def program() -> None:
        struct = struct_pb2.Struct()
        struct.update({"host": {"target": "local"}})
        given = _sync_await(ProviderServicer._construct_inputs(struct, {}))
        opts = pulumi.ResourceOptions(protect=True)
        result = GpuCiProvider().construct("h", HOST, given, opts)
        urn = _sync_await(pulumi.Output.from_input(result.urn).future())
        names = _sync_await(pulumi.Output.from_input(result.state["runnerNames"]).future())
        results.append((urn, sorted(result.state), names))

    run_program(program, project="gpu-ci", stack="test", config={}, registrations=registrations)
    (component,) = [r for r in registrations if r.type == HOST]
    assert component.options["protect"] is True
    assert results == [(component.urn, ["capacity", "cost", "host", "runnerNames"], [])]


def test_each_refused_input_is_an_error_at_its_path() -> None:
    with pytest.raises(InputPropertiesError) as refused:
        construct({"host": {"target": "ssh"}})
    lines = refused.value.message.splitlines()
    errors = refused.value.errors or []
    assert lines[0] == f"{HOST} 'h': invalid inputs ({len(errors)} problems):"
    assert lines[-1] == "Nothing was created. Fix each input and run again."
    assert "host.address" in [e["property_path"] for e in errors]
    assert lines[1:-1] == [f"  - {e['property_path']}: {e['reason']}" for e in errors]


def test_a_fault_in_a_component_is_reported_with_its_cause() -> None:
    """Not an input problem: the SDK's own report of a constructor's exception, its stack."""
    provider = GpuCiProvider()

    def broken(*_: Any) -> None:
        raise ZeroDivisionError("a bug")

    provider._components["GpuRunnerHost"] = broken  # type: ignore[assignment]
    with pytest.raises(ComponentInitError) as fault:
        construct({"host": {"target": "local"}}, provider=provider)
    assert isinstance(fault.value.__cause__, ZeroDivisionError)
    assert str(fault.value.__cause__) == "a bug"
    # the SDK's server words the error from it and takes the stack from `inner`
    assert str(fault.value) == "a bug"
    assert fault.value.inner is fault.value.__cause__


ARC = {
    "cluster": {"kubeconfig": KUBECONFIG},
    "githubApp": {"appId": 1234567, "installationId": 87654321, "privateKey": PEM},
    "scaleSets": [
        {
            "name": "gpu-a10",
            "githubConfigUrl": "https://github.com/kubeflow",
            "maxRunners": 4,
            "runnerImage": RUNNER_IMAGE,
        }
    ],
    "metrics": False,
}


def test_credentials_sent_as_secrets_stay_secrets_under_their_inputs() -> None:
    """The server sends an input holding a secret as one secret Output; read plain it would
    be an empty object (the whole `githubApp` gone), kept plain the key would be refused
    as a credential in plain text."""
    registrations: list[Registration] = []
    construct(
        ARC,
        token="gpu-ci:index:ArcRunnerScaleSets",
        secrets=frozenset({"cluster", "githubApp"}),
        registrations=registrations,
    )
    (app,) = [
        r
        for r in registrations
        if r.type == "kubernetes:core/v1:Secret" and r.name.endswith("github-app")
    ]
    assert isinstance(app.inputs["stringData"], Secret)
    assert app.inputs["stringData"].value["github_app_private_key"] == PEM
    (provider,) = [r for r in registrations if r.type == "pulumi:providers:kubernetes"]
    assert isinstance(provider.inputs["kubeconfig"], Secret)


def test_plain_and_secret_inputs_are_each_read_whatever_their_order() -> None:
    """The server hands plain inputs as values and a secret one as an Output, in the order
    of its protobuf map: each is read, and only the secret one is remembered as secret."""
    sent = {"host": {"target": "local"}, "runner": pulumi.Output.secret(RUNNER), "name": "n"}
    for order in (list(sent), list(reversed(sent))):
        plain, secret = _unwrapped({key: sent[key] for key in order})
        assert plain == {"host": {"target": "local"}, "runner": RUNNER, "name": "n"}
        assert secret == {"runner"}
