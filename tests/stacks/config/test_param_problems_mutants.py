"""ParamCheck collects every refusal at its key and builds what it accepts, without a plan
run (mutation-testing survivors of stacks/config/param_problems.py)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from core.errors import GpuCiError
from stacks.config.param_problems import ParamCheck, ParamKeys

KEYS = ParamKeys("gpu-ci:runner", {"group": "gpu-ci:runner.group"})


class _Params(BaseModel):
    group: str = Field(pattern=r"^[a-z]+$")
    size: int = 1


def refuse(message: str) -> None:
    raise GpuCiError(message)


def test_a_build_passes_its_arguments_and_returns_the_model() -> None:
    check = ParamCheck()
    assert check.secret_keys == frozenset()
    assert check.problems == []
    built = check.build(KEYS, _Params, group="ok", size=3)
    assert built == _Params(group="ok", size=3)
    assert check.problems == []


def test_refusals_add_up_at_their_keys() -> None:
    check = ParamCheck()
    assert check.build(KEYS, _Params, group="Bad") is None
    assert check.build(KEYS, _Params, group="x", size="big") is None
    assert [str(p) for p in check.problems] == [
        "gpu-ci:runner.group: String should match pattern '^[a-z]+$' [given: 'Bad']",
        "gpu-ci:runner: Input should be a valid integer, unable to parse string as an "
        "integer [given: 'big']",
    ]


def test_a_secret_key_is_not_echoed() -> None:
    check = ParamCheck(["gpu-ci:runner"])
    assert check.secret_keys == frozenset({"gpu-ci:runner"})
    assert check.build(KEYS, _Params, group="Bad") is None
    assert [str(p) for p in check.problems] == [
        "gpu-ci:runner.group: String should match pattern '^[a-z]+$' [given: [secret]]"
    ]


def test_a_rule_outside_a_model_is_reported_at_the_default_key() -> None:
    check = ParamCheck()
    assert check.build(KEYS, refuse, "two workers share GPU 0") is None
    assert check.build(KEYS, int, "x") is None
    assert [(p.key, p.message) for p in check.problems] == [
        ("gpu-ci:runner", "two workers share GPU 0"),
        ("gpu-ci:runner", "invalid literal for int() with base 10: 'x'"),
    ]
