"""A KeyedError is reported at its own key, with its value or `[secret]`; an error location is
walked through dicts, lists and discriminated unions to the user's key; and a union's tags are
listed through list members only (mutation-testing survivors of stacks/config/problems.py)."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from pydantic import (
    BaseModel,
    ConfigDict,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)

from stacks.config.problems import (
    KeyedError,
    Problem,
    _tagged_member,
    _union_tags,
    _Walk,
    _walk,
    problems_from,
)


class Leaf(BaseModel):
    model_config = ConfigDict(extra="forbid")
    y: int


class Holder(BaseModel):
    model_config = ConfigDict(extra="forbid")
    m: dict[str, Leaf] = {}
    v: int | str = 0
    t: tuple[Leaf, ...] = ()


class Alpha(BaseModel):
    kind: Literal["alpha"]
    a: int = 0


class Beta(BaseModel):
    kind: Literal["beta"]


class Gamma(BaseModel):
    kind: Literal["gamma"]


class NoTag(BaseModel):
    other: str = ""


class Reach(BaseModel):
    host: str
    address: str = ""

    @field_validator("address")
    @classmethod
    def _reachable(cls, value: str) -> str:
        if value == "unset":
            raise KeyedError("host.address", "not reachable from here")
        raise KeyedError("host.address", "not reachable from here", given=value)


class Guarded(BaseModel):
    token: SecretStr

    @model_validator(mode="before")
    @classmethod
    def _named(cls, data: Any) -> Any:
        raise ValueError("a token needs a name")


def problems(root: type[BaseModel], data: dict[str, Any], secret: set[str]) -> list[Problem]:
    with pytest.raises(ValidationError) as caught:
        root.model_validate(data)
    return problems_from(caught.value, root, "ns", secret)


def test_a_keyed_error_without_a_value_is_its_key_and_message() -> None:
    found = problems(Reach, {"host": "h", "address": "unset"}, set())
    assert found == [Problem("ns:host.address", "not reachable from here")]
    assert [str(p) for p in found] == ["ns:host.address: not reachable from here"]


def test_a_keyed_error_shows_the_value_given() -> None:
    found = problems(Reach, {"host": "h", "address": "10.0.0.1"}, set())
    assert [str(p) for p in found] == [
        "ns:host.address: not reachable from here [given: '10.0.0.1']"
    ]


def test_a_keyed_error_under_a_secret_top_level_key_hides_the_value() -> None:
    found = problems(Reach, {"host": "h", "address": "10.0.0.1"}, {"ns:host"})
    assert [str(p) for p in found] == ["ns:host.address: not reachable from here [given: [secret]]"]


def test_a_single_model_has_no_tagged_member() -> None:
    assert _tagged_member([Alpha], "alpha") is None
    assert _tagged_member([Alpha, Beta], "beta") is Beta


def test_union_tags_of_a_list_of_members() -> None:
    assert _union_tags(list[Alpha | Beta], "kind") == ["alpha", "beta"]


def test_union_tags_skip_a_member_without_the_tag_field() -> None:
    assert _union_tags(Alpha | NoTag | Beta, "kind") == ["alpha", "beta"]


def test_union_tags_skip_members_that_are_no_models() -> None:
    assert _union_tags(Alpha | str | Literal["plain"] | Beta, "kind") == ["alpha", "beta"]


def test_union_tags_look_into_lists_only() -> None:
    assert _union_tags(tuple[Alpha, Beta], "kind") == []
    assert _union_tags(dict[Alpha, Beta], "kind") == []


def test_union_tags_add_a_list_members_tags_to_those_before() -> None:
    assert _union_tags(Alpha | list[Beta | Gamma], "kind") == ["alpha", "beta", "gamma"]


def test_a_walk_follows_a_dict_key_into_its_value_model() -> None:
    assert _walk(Holder, "ns", ["m", "k", "y"]) == _Walk("ns:m.k.y", Leaf, int)


def test_problems_inside_a_dict_of_models_name_the_dict_key() -> None:
    found = problems(Holder, {"m": {"k": {"z": 1}, "j": {}}}, set())
    assert [str(p) for p in found] == [
        "ns:m.j.y: required key is missing",
        "ns:m.k.y: required key is missing",
        "ns:m.k.z: unknown key; allowed keys: y",
    ]


def test_a_walk_skips_the_member_tags_of_a_union_of_plain_types() -> None:
    assert _walk(Holder, "ns", ["v", "int"]) == _Walk("ns:v", Holder, int | str)
    found = problems(Holder, {"v": [1]}, set())
    assert [str(p) for p in found] == [
        "ns:v: Input should be a valid integer: write the number itself, unquoted (true, false "
        "and text are no numbers) [given: [1]]",
        "ns:v: Input should be a valid string [given: [1]]",
    ]


def test_a_walk_indexes_only_into_lists() -> None:
    assert _walk(Holder, "ns", ["t", 0, "y"]) == _Walk("ns:t[0]", Holder, tuple[Leaf, ...])


def test_an_empty_location_is_the_root_model_itself() -> None:
    assert _walk(Guarded, "ns", []) == _Walk("ns", Guarded, Guarded)


def test_a_root_error_of_a_model_with_a_credential_hides_the_value() -> None:
    found = problems(Guarded, {"token": "abc"}, set())
    assert [str(p) for p in found] == ["ns: a token needs a name [given: [secret]]"]
