"""The package's last resort (gpu_ci_package/build.py `register_layers`): a parameter model
that refuses a value only once the layers register, after `prepare` passed, is still one
InputsError at the component's input, its given value shown as the program shows it (a
whole secret input stays `[secret]`), and it says children may already exist. No input
reaches it today, so a layer is made to refuse here, as the program's own last resort is
tested (tests/hardening/test_hardening_late_validation.py)."""

from __future__ import annotations

from typing import Any, cast

import pulumi
import pytest
from pydantic import BaseModel, ValidationError
from pydantic_core import InitErrorDetails

from components.host.params.bootstrap import DockerParams
from components.host.params.runner import GithubRunnerParams
from gpu_ci_package.build import InputsError
from gpu_ci_package.host import GpuRunnerHost
from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import Registration
from tests.gpu_ci_package.package_helpers import RUNNER

HOST = "gpu-ci:index:GpuRunnerHost"
SSH: Any = {"target": "ssh", "address": "203.0.113.10", "user": "ubuntu"}


def refusal(model: type[BaseModel], **fields: Any) -> ValidationError:
    """What `model` says of `fields` alone (the fields left out are not the point)."""
    try:
        model.model_validate(fields)
    except ValidationError as err:
        # each error as pydantic reported it (its `msg` and `url` are made anew from its type)
        kept = cast("list[InitErrorDetails]", [e for e in err.errors() if e["loc"][0] in fields])
        return ValidationError.from_exception_data(err.title, kept)
    raise AssertionError(f"accepted {fields}")


def refused_late(
    layer: str, error: ValidationError, inputs: Any, monkeypatch: pytest.MonkeyPatch
) -> tuple[InputsError, list[Registration]]:
    """GpuRunnerHost on `inputs`, the host layer's `layer` refusing with `error` as it
    registers; the refusal and what registered before it."""

    def late(*args: object, **kwargs: object) -> None:
        raise error

    monkeypatch.setattr(f"stacks.layers.host.{layer}", late)

    def build() -> None:
        GpuRunnerHost("lab", inputs)

    registered: list[Registration] = []
    with pytest.raises(InputsError) as err:
        run_program(
            build,
            project="gpu-ci",
            stack="test",
            config={},
            registrations=registered,
        )
    return err.value, registered


def test_a_field_refused_late_is_a_problem_at_its_input_and_says_what_may_exist(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    runner = pulumi.Output.secret(RUNNER)  # as a Python program passes the App key
    error = refusal(GithubRunnerParams, runner_group=7)
    refused, registered = refused_late(
        "GithubRunner", error, {"host": SSH, "runner": runner}, monkeypatch
    )
    assert [r.type for r in registered][:2] == [HOST, "gpu-ci:host:GpuHost"]  # it came late
    assert str(refused).splitlines() == [
        f"{HOST} 'lab': invalid inputs (1 problem):",
        "  - runner.group: Input should be a valid string [given: 7]",
        "Resources registered before this was found may exist. Fix each input and run again.",
    ]


@pytest.mark.parametrize(
    ("host", "shown"),
    [(SSH, "'apt'"), (pulumi.Output.secret(SSH), "[secret]")],
    ids=["plain", "secret"],
)
def test_a_value_refused_late_at_a_whole_input_is_shown_unless_it_is_secret(
    host: Any, shown: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A field no config key names is reported at the whole input, its value shown as the
    program shows it: not at all when the input is a secret."""
    error = refusal(DockerParams, docker_packages="apt")
    refused, _ = refused_late("GpuHost", error, {"host": host}, monkeypatch)
    assert refused.problems == [("host", f"Input should be a valid tuple [given: {shown}]")]
