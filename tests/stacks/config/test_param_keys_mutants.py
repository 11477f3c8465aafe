"""The last resort's problems, exactly, without a plan run (mutation-testing survivors of
stacks/config/param_keys.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pydantic import BaseModel, ValidationError, field_validator

from stacks.config.param_keys import unprepared_problems
from tests.hardening.test_hardening_late_validation import runner_error

GROUP = (
    "gpu-ci:runner.group: a runner group name here is 1 to 100 letters, digits, spaces, '.', "
    "'_' or '-', not starting with a space (it is written into the runner's config on the "
    "host); use the group's name without quotes, `$`, `(` or line breaks, or 'Default' "
)


class _Item(BaseModel):
    size: int


class _Other(BaseModel):
    items: list[_Item]
    name: str

    @field_validator("name")
    @classmethod
    def _named(cls, value: str) -> str:
        raise ValueError(f"{value!r} is no name")


def error_of(make: Callable[[], object]) -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        make()
    return caught.value


def test_a_parameter_model_is_reported_at_its_config_key() -> None:
    assert [str(p) for p in unprepared_problems(runner_error(), frozenset())] == [
        GROUP + '[given: "a\'b"]'
    ]


def test_a_value_under_a_secret_key_is_echoed_unless_it_is_a_credential() -> None:
    # gpu-ci:runner is secret because its private key is: the group is no secret.
    found = unprepared_problems(runner_error(), frozenset({"gpu-ci:runner"}))
    assert [str(p) for p in found] == [GROUP + '[given: "a\'b"]']


def test_any_other_model_is_reported_at_the_namespace_with_its_location() -> None:
    error = error_of(lambda: _Other.model_validate({"items": [{"size": 1}, {"size": "x"}]}))
    problems = unprepared_problems(error, frozenset())
    assert [(p.key, p.message) for p in problems] == [
        (
            "gpu-ci",
            "_Other.items.1.size: Input should be a valid integer, unable to parse string as "
            "an integer",
        ),
        ("gpu-ci", "_Other.name: Field required"),
    ]
    named = error_of(lambda: _Other.model_validate({"items": [], "name": "n"}))
    assert [str(p) for p in unprepared_problems(named, frozenset())] == [
        "gpu-ci: _Other.name: 'n' is no name"
    ]
