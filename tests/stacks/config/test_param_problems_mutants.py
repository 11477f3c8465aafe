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


def test_under_a_secret_key_only_a_credential_or_the_whole_key_is_not_echoed() -> None:
    check = ParamCheck(["gpu-ci:runner"])
    assert check.secret_keys == frozenset({"gpu-ci:runner"})
    assert check.build(KEYS, _Params, group="Bad") is None  # runner.group: no credential
    assert check.build(KEYS, _Params, group="x", size="big") is None  # the whole key
    assert check.build(_APP_KEYS, _Params, group="Bad") is None  # a credential
    assert [str(p) for p in check.problems] == [
        "gpu-ci:runner.group: String should match pattern '^[a-z]+$' [given: 'Bad']",
        "gpu-ci:runner: Input should be a valid integer, unable to parse string as an "
        "integer [given: [secret]]",
        "gpu-ci:runner.githubApp.privateKey: String should match pattern '^[a-z]+$' "
        "[given: [secret]]",
    ]


_APP_KEYS = ParamKeys("gpu-ci:runner", {"group": "gpu-ci:runner.githubApp.privateKey"})


def test_a_rule_outside_a_model_is_reported_at_the_default_key() -> None:
    check = ParamCheck()
    assert check.build(KEYS, refuse, "two workers share GPU 0") is None
    assert check.build(KEYS, int, "x") is None
    assert [(p.key, p.message) for p in check.problems] == [
        ("gpu-ci:runner", "two workers share GPU 0"),
        ("gpu-ci:runner", "invalid literal for int() with base 10: 'x'"),
    ]


class _Pool(BaseModel):
    """A second model sharing a field name, to tell `Model.field` keys from bare ones."""

    group: str = Field(pattern=r"^[0-9]+$")
    sizes: list[list[int]] = Field(default_factory=list)


POOL_KEYS = ParamKeys(
    "gpu-ci:pool",
    {
        "_Pool.group": "gpu-ci:pool.name",
        "group": "gpu-ci:runner.group",
        "sizes": "gpu-ci:pool.sizes",
    },
    {"_Pool.group": "digits only", "group": "letters only"},
)


def problems_of(keys: ParamKeys, model: type[BaseModel], **values: object) -> list[str]:
    check = ParamCheck()
    assert check.build(keys, model, **values) is None
    return [str(p) for p in check.problems]


def test_a_model_qualified_key_and_hint_win_over_the_bare_name() -> None:
    assert problems_of(POOL_KEYS, _Pool, group="x") == [
        "gpu-ci:pool.name: String should match pattern '^[0-9]+$'; digits only [given: 'x']"
    ]
    assert problems_of(POOL_KEYS, _Params, group="X") == [
        "gpu-ci:runner.group: String should match pattern '^[a-z]+$'; letters only [given: 'X']"
    ]


def test_every_list_index_is_in_the_key_and_a_missing_value_is_not_given() -> None:
    assert problems_of(POOL_KEYS, _Pool, group="1", sizes=[[1], [2, "x"]]) == [
        "gpu-ci:pool.sizes[1][1]: Input should be a valid integer, unable to parse string as "
        "an integer [given: 'x']"
    ]
    assert problems_of(POOL_KEYS, _Pool) == ["gpu-ci:pool.name: Field required; digits only"]


def test_a_model_level_error_goes_to_the_default_key() -> None:
    class _Whole(BaseModel):
        a: int = 0

        def model_post_init(self, _: object) -> None:
            if self.a:
                raise ValueError("never")

    check = ParamCheck()
    assert check.build(ParamKeys("gpu-ci:whole", {"a": "gpu-ci:whole.a"}), _Whole, a=1) is None
    assert [str(p) for p in check.problems] == ["gpu-ci:whole: never"]  # no loc, no given


def test_problems_are_sorted_by_key_and_each_kept_once() -> None:
    keys = ParamKeys("gpu-ci:z", {"group": "gpu-ci:b.group", "size": "gpu-ci:a.size"})
    found = problems_of(keys, _Params, group="Bad", size="big")
    assert found == [
        "gpu-ci:a.size: Input should be a valid integer, unable to parse string as an integer "
        "[given: 'big']",
        "gpu-ci:b.group: String should match pattern '^[a-z]+$' [given: 'Bad']",
    ]
