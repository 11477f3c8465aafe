"""Reading config annotations: list items, Literals and union tags, on toy models
(mutation-testing survivors of stacks/config/annotations.py)."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import BaseModel, Field

from stacks.config.annotations import item_type, literals_of, same_field, tag_field


class Pool(BaseModel):
    kind: Literal["pool"] = "pool"
    size: int = 1


class Launcher(BaseModel):
    extra: str = ""
    kind: Literal["launcher"] = "launcher"
    size: int = Field(1, description="other")


class Pod(BaseModel):
    kind: Literal["pod"] = "pod"


def test_item_type_is_a_model_item_only() -> None:
    assert item_type(list[Pool]) is Pool
    assert item_type(tuple[Pool, ...]) is Pool
    assert item_type(list[int]) is None
    assert item_type(list[Pool] | None) is Pool


def test_literals_of_a_union_with_other_types_is_empty() -> None:
    assert literals_of(Literal["a", "b"]) == ["a", "b"]
    assert literals_of(Literal["a", "b"] | None) == ["a", "b"]
    assert literals_of(Literal["a", "b"] | int) == []


def test_a_single_member_has_its_own_fields_alike() -> None:
    assert same_field([Pool], "size")
    assert not same_field([Pool], "extra")
    assert not same_field([Pool, Launcher], "size")  # described differently


def test_the_tag_of_a_single_member_is_its_literal_field() -> None:
    assert tag_field([Pool]) == "kind"


def test_a_field_some_members_lack_is_no_tag() -> None:
    assert tag_field([Launcher, Pod]) == "kind"
    assert tag_field([Launcher, Pool, Pod]) == "kind"


def test_members_without_a_discriminator_are_named() -> None:
    with pytest.raises(TypeError, match=r"^no discriminator among \['Pool', 'Pool'\]$"):
        tag_field([Pool, Pool])
