"""What every package component does with its inputs before anything registers
(gpu_ci_package/build.py): values awaited, whole numbers back to integers, secrets kept by
key, unknown inputs and typos refused by name, problems reported at the input they came
from. test_construct.py has the same through the provider, against whole stacks."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, NotRequired, TypedDict

import pulumi
import pytest
from pulumi.output import Unknown, _OutputData
from pulumi.runtime.sync_await import _sync_await

from gpu_ci_package.build import (
    InputsError,
    UnknownInputError,
    _known,
    _problems,
    args_of,
    context,
    field,
    observability,
    stack_inputs,
    top_level,
    under,
)
from stacks.config import ConfigError
from stacks.config.problems import Problem
from stacks.context import StackContext
from stacks.offline.engine.mocks import run_program

TOKEN = "gpu-ci:index:Thing"


def output(value: Any, *, secret: bool = False, known: bool = True) -> pulumi.Output[Any]:
    """An input as the provider server wraps it: an Output already resolved."""
    data: asyncio.Future[_OutputData[Any]] = asyncio.Future()
    data.set_result(_OutputData(set(), value, is_known=known, is_secret=secret))
    return pulumi.Output._from_data(data)


def in_program(body: Callable[[], Any]) -> Any:
    """`body()` run inside a program under the mock engine (where Outputs resolve)."""
    result: list[Any] = []
    run_program(lambda: result.append(body()), project="proj", stack="dev", config={})
    return result[0]


def test_plain_values_are_given_as_they_are_and_whole_doubles_as_integers() -> None:
    # the engine sends every number as a double
    given = {"a": 2.0, "b": 2.5, "c": [1.0, "x", True], "d": {"e": None, "f": (3.0,)}}
    assert _known(given, "k") == (
        {"a": 2, "b": 2.5, "c": [1, "x", True], "d": {"f": [3]}},
        False,
    )
    value, _ = _known(given, "k")
    assert type(value["a"]) is int and type(value["b"]) is float


def test_a_secret_anywhere_in_an_input_makes_the_input_secret() -> None:
    def known() -> list[tuple[Any, bool]]:
        return [
            _known(output({"key": 1.0}, secret=True), "a"),
            _known({"app": {"key": output("pem", secret=True)}, "id": 1}, "a"),
            _known([1, output("pem", secret=True)], "a"),
            _known(output({"key": output("pem", secret=True)}), "a"),
            _known({"a": output("x"), "b": [output(1.0)]}, "a"),
        ]

    assert in_program(known) == [
        ({"key": 1}, True),
        ({"app": {"key": "pem"}, "id": 1}, True),
        ([1, "pem"], True),
        ({"key": "pem"}, True),
        ({"a": "x", "b": [1]}, False),
    ]


@pytest.mark.parametrize(
    ("given", "path"),
    [
        ({"host": output(None, known=False)}, "input.host"),
        ({"host": {"users": [1, output(None, known=False)]}}, "input.host.users[1]"),
        ([output({"x": output(None, known=False)})], "input[0].x"),
        ({"host": {"user": Unknown()}}, "input.host.user"),  # type: ignore[no-untyped-call]  # sent without dependencies
    ],
    ids=["top", "nested", "inside-an-output", "bare"],
)
def test_an_input_not_known_at_preview_is_refused_at_its_path(given: Any, path: str) -> None:
    def known() -> None:
        _known(given, "input")

    with pytest.raises(UnknownInputError) as refused:
        in_program(known)
    assert str(refused.value) == (
        f"input {path} is not known yet: gpu-ci checks every input before anything "
        "registers, so give a value known at preview (not another resource's output)"
    )


class ThingArgs(TypedDict):
    host: str
    runner: NotRequired[str]
    network: NotRequired[str]


def test_inputs_given_are_kept_and_unset_ones_left_out() -> None:
    assert args_of(TOKEN, "it", {"host": "h", "runner": None}, ThingArgs) == {"host": "h"}


def test_every_input_the_component_does_not_take_is_one_problem_at_its_key() -> None:
    with pytest.raises(InputsError) as refused:
        args_of(TOKEN, "it", {"hots": 1, "zzz": 2, "host": "h"}, ThingArgs)
    takes = "it takes host, runner, network"
    assert refused.value.problems == [
        ("hots", f"is not an input of {TOKEN}; did you mean 'host'? {takes}"),
        ("zzz", f"is not an input of {TOKEN}; {takes}"),
    ]


def test_the_message_counts_and_lists_each_problem_then_says_nothing_was_created() -> None:
    one = InputsError(TOKEN, "it", [("host", "is wrong")])
    assert str(one) == (
        f"{TOKEN} 'it': invalid inputs (1 problem):\n"
        "  - host: is wrong\n"
        "Nothing was created. Fix each input and run again."
    )
    two = InputsError(TOKEN, "it", [("a", "line one\nline two"), ("b", "bad")])
    assert str(two).splitlines() == [
        f"{TOKEN} 'it': invalid inputs (2 problems):",
        "  - a: line one",
        "    line two",
        "  - b: bad",
        "Nothing was created. Fix each input and run again.",
    ]
    assert isinstance(two, pulumi.RunError)  # a Python program prints the message alone


def test_inputs_are_stack_keys_and_their_secrets_namespaced_keys() -> None:
    def inputs() -> Any:
        # an unset input is skipped, whatever comes after it
        return stack_inputs(
            {"host": {"target": "local"}, "vm": None, "runner": output({"k": "pem"}, secret=True)}
        )

    found = in_program(inputs)
    assert found.values == {"host": {"target": "local"}, "runner": {"k": "pem"}}
    assert found.secret_keys == frozenset({"gpu-ci:runner"})


def test_each_config_problem_is_reported_at_the_input_it_came_from() -> None:
    err = ConfigError(
        "dev",
        [
            Problem("gpu-ci:platform.accelerator", "unknown accelerator"),
            Problem("gpu-ci", "the config is empty"),
            Problem("gpu-ci:observability.enabled", "must be a boolean"),
        ],
        warnings=["gpu-ci:colour is read by nothing"],
    )
    paths = under("platform.", rename={"observability.enabled": "metrics"})
    assert _problems(err, paths) == [
        ("accelerator", "unknown accelerator"),
        ("inputs", "the config is empty"),
        ("metrics", "must be a boolean"),
        ("warning", "gpu-ci:colour is read by nothing"),
    ]


def test_a_renamed_key_keeps_what_follows_it_and_others_lose_the_prefix() -> None:
    path = under("arc.", rename={"observability.enabled": "metrics", "arc.old": "new"})
    assert path("observability.enabled") == "metrics"
    assert path("arc.old.x") == "new.x"
    assert path("arc.old[2].y") == "new[2].y"
    assert path("arc.older") == "older"  # a key that only starts with the name is another
    assert path("arc.scaleSets[0].name") == "scaleSets[0].name"
    assert under("")("host.target") == "host.target"
    assert top_level("host.target") == "host.target"


def test_the_metrics_input_is_the_observability_key() -> None:
    assert observability(None) is None  # unset: the program's default
    assert observability(True) == {"enabled": True}
    assert observability(False) == {"enabled": False}


def test_who_deploys_is_the_consumers_project_and_stack() -> None:
    assert in_program(context) == StackContext(project="proj", stack="dev")


def test_a_field_of_an_export_is_picked_by_its_keys() -> None:
    export = {"cluster": {"name": "gpu-ci", "gpus": [0]}, "flat": "x"}

    def picked() -> list[Any]:
        outputs = [
            field(export, "cluster", "name"),
            field(output(export), "cluster", "gpus"),
            field(export, "cluster", "missing"),
            field(export, "flat", "deeper"),
            field(None, "cluster"),
        ]
        return [_sync_await(o.future()) for o in outputs]

    assert in_program(picked) == ["gpu-ci", [0], None, None, None]
