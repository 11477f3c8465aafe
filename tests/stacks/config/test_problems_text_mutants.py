"""`describe`'s messages, exactly: unknown keys, union tags, strict ints, whole-model errors,
and how `given_text`, `redact` and `Problem` show a value or hide a credential
(mutation-testing survivors of stacks/config/problems.py)."""

from __future__ import annotations

import string
from pathlib import PurePosixPath
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import ErrorDetails

from stacks.config.problems import Problem, describe, given_text, problems_from, redact

_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8J9k0"
_PEM = "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAAb3BlbnNzaA\n-----END OPENSSH PRIVATE KEY-----\n"


class _Cat(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tagX: Literal["cat"]


class _Dog(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tagX: Literal["dog"]


class _Home(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pet: Annotated[_Cat | _Dog, Field(discriminator="tagX")] = _Cat(tagX="cat")
    count: int = Field(default=0, strict=True)
    colour: Literal["red", "green"] = "red"

    @model_validator(mode="after")
    def _not_thirteen(self) -> _Home:
        if self.count == 13:
            raise ValueError("unlucky")
        return self


def problems(data: dict[str, Any], secret: set[str] | None = None) -> list[str]:
    with pytest.raises(ValidationError) as caught:
        _Home.model_validate(data)
    return [str(p) for p in problems_from(caught.value, _Home, "ns", secret or set())]


def test_an_unknown_key_with_no_near_miss_gets_no_hint() -> None:
    assert problems({"qqqqqq": 1}) == ["ns:qqqqqq: unknown key; allowed keys: pet, count, colour"]


def test_an_unknown_key_near_a_known_one_gets_a_did_you_mean() -> None:
    assert problems({"cuont": 1}) == [
        "ns:cuont: unknown key (did you mean 'count'?); allowed keys: pet, count, colour"
    ]


def test_a_union_tag_far_from_every_tag_gets_no_hint() -> None:
    assert problems({"pet": {"tagX": "zzzzzz"}}) == [
        "ns:pet.tagX: must be one of 'cat', 'dog' [given: 'zzzzzz']"
    ]


def test_a_union_tag_near_a_tag_gets_a_did_you_mean() -> None:
    assert problems({"pet": {"tagX": "dgo"}}) == [
        "ns:pet.tagX: must be one of 'cat', 'dog' (did you mean 'dog'?) [given: 'dgo']"
    ]


def test_a_union_tag_under_a_secret_key_is_shown() -> None:
    # A tag is a Literal, never a credential, whichever part of its key is a secret.
    assert problems({"pet": {"tagX": "dgo"}}, {"ns:pet"}) == [
        "ns:pet.tagX: must be one of 'cat', 'dog' (did you mean 'dog'?) [given: 'dgo']"
    ]


def test_a_missing_union_tag_is_named_at_the_tag_key() -> None:
    assert problems({"pet": {}}) == [
        "ns:pet.tagX: required key is missing; must be one of 'cat', 'dog'"
    ]


def _no_ctx(kind: str) -> ErrorDetails:
    return ErrorDetails(type=kind, loc=("pet",), msg="no context", input={})


def test_a_union_tag_error_without_context_names_an_empty_tag() -> None:
    problem = describe(_no_ctx("union_tag_invalid"), _Home, "ns", set())
    assert (problem.key, problem.message) == ("ns:pet.", "must be one of  [given: '']")


def test_a_missing_union_tag_without_context_names_an_empty_tag() -> None:
    problem = describe(_no_ctx("union_tag_not_found"), _Home, "ns", set())
    assert str(problem) == "ns:pet.: required key is missing; must be one of "


def test_a_quoted_number_for_a_strict_int_gets_the_int_hint() -> None:
    assert problems({"count": "2"}) == [
        "ns:count: Input should be a valid integer: write the number itself, unquoted "
        "(true, false and text are no numbers) [given: '2']"
    ]


def test_a_literal_gets_its_choices_and_a_did_you_mean() -> None:
    assert problems({"colour": "rde"}) == [
        "ns:colour: must be one of 'red', 'green' (did you mean 'red'?) [given: 'rde']"
    ]
    assert problems({"colour": "zzzzz"}) == [
        "ns:colour: must be one of 'red', 'green' [given: 'zzzzz']"
    ]


def test_a_whole_model_error_is_named_at_the_namespace() -> None:
    assert problems({"count": 13}) == ['ns: unlucky [given: {"count": 13}]']


def test_a_value_of_sixty_characters_is_shown_whole() -> None:
    value = "a" * 58
    assert given_text(value) == repr(value)


def test_a_long_value_keeps_its_start_and_its_end() -> None:
    assert given_text(string.ascii_letters + string.digits) == (
        "'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNO...WXYZ0123456789'"
    )
    assert given_text("a" * 59) == "'" + "a" * 41 + "..." + "a" * 14 + "'"


def test_a_value_json_cannot_write_is_shown_as_its_text() -> None:
    assert given_text(PurePosixPath("/etc/hosts")) == '"/etc/hosts"'
    assert given_text([1, PurePosixPath("/x")]) == '[1, "/x"]'


def test_a_private_key_is_not_shown() -> None:
    assert given_text(_PEM) == "[private key, not shown]"
    assert given_text("no PRIVATE KEY here") == "[private key, not shown]"
    assert given_text({"key": _PEM}) == "[private key, not shown]"


def test_a_token_is_not_shown() -> None:
    assert given_text(_TOKEN) == "[looks like a credential, not shown]"
    assert given_text(["x", _TOKEN]) == "[looks like a credential, not shown]"


def test_redact_replaces_a_private_key_and_a_token() -> None:
    assert redact(f"key {_PEM}then") == "key [private key]then"
    assert redact(repr(_PEM)) == "'[private key]'"
    assert redact(f"token {_TOKEN}.") == "token [credential]."


def test_a_problem_message_is_redacted() -> None:
    problem = Problem("ns:host", f"bad token {_TOKEN} and {_PEM}")
    assert problem.message == "bad token [credential] and [private key]"
    assert str(problem) == "ns:host: bad token [credential] and [private key]"
