"""Turn pydantic validation errors into one message a user can act on.

Every problem is named by its full config key as the user writes it (`gpu-ci:vm.shape`),
with the value given (never a secret's) and what is allowed, plus a did-you-mean for near
misses of keys and enum values.
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel, SecretStr, ValidationError
from pydantic_core import ErrorDetails

from stacks.errors import did_you_mean

_MAX_VALUE = 60


@dataclass(frozen=True)
class Problem:
    """One bad key: where, what is wrong, and what was given."""

    key: str
    message: str

    def __str__(self) -> str:
        return f"{self.key}: {self.message}"


def _unwrap(annotation: Any) -> list[Any]:
    """The concrete types an annotation can hold (Optional/Union/Annotated unwrapped)."""
    origin = get_origin(annotation)
    if origin is typing.Annotated:
        return _unwrap(get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        out: list[Any] = []
        for arg in get_args(annotation):
            out.extend(_unwrap(arg))
        return [a for a in out if a is not type(None)]
    return [annotation]


def _tagged_member(models: list[type[BaseModel]], part: str) -> type[BaseModel] | None:
    """The union member whose Literal discriminator is `part`, when `part` is no field."""
    if len(models) < 2 or any(part in m.model_fields for m in models):
        return None
    for model in models:
        for field in model.model_fields.values():
            if get_origin(field.annotation) is Literal and part in get_args(field.annotation):
                return model
    return None


def _union_tags(annotation: Any, tag_field: str) -> list[str]:
    """The values a discriminated union's `tag_field` may take, in member order."""
    tags: list[str] = []
    for member in _unwrap(annotation):
        if isinstance(member, type) and issubclass(member, BaseModel):
            field = member.model_fields.get(tag_field)
            if field is not None and get_origin(field.annotation) is Literal:
                tags += [str(a) for a in get_args(field.annotation)]
    return tags


@dataclass
class _Walk:
    path: str
    model: type[BaseModel] | None
    annotation: Any


def _walk(root: type[BaseModel], namespace: str, loc: Iterable[int | str]) -> _Walk:
    """Follow a pydantic error location through the model tree.

    Returns the display path (`gpu-ci:vm.availabilityDomains[1]`), the model that owns the
    last key (to list its allowed keys) and the annotation at that place (for Literals).
    Union-member tags that pydantic adds to locations (`int`, `str`) are skipped.
    """
    path = ""
    owner: type[BaseModel] | None = root
    current: list[Any] = [root]
    annotation: Any = root
    for part in loc:
        models = [c for c in current if isinstance(c, type) and issubclass(c, BaseModel)]
        if isinstance(part, int):
            path += f"[{part}]"
            items = [get_args(c)[0] for c in current if get_origin(c) is list and get_args(c)]
            current = [t for i in items for t in _unwrap(i)]
            continue
        tagged = _tagged_member(models, part)
        if tagged is not None:  # a discriminated union's tag: pick that member, no key
            current = [tagged]
            continue
        if models:
            model = models[0]
            owner = model
            sep = ":" if not path else "."
            path += f"{namespace}{sep}{part}" if not path else f"{sep}{part}"
            field = model.model_fields.get(part)
            annotation = field.annotation if field is not None else None
            current = _unwrap(annotation) if field is not None else []
            continue
        dicts = [c for c in current if get_origin(c) is dict]
        if dicts:
            path += f".{part}"
            current = _unwrap(get_args(dicts[0])[1])
        # else: a union-member tag; it is not part of the user's key
    return _Walk(path or namespace, owner, annotation)


def _given(value: Any) -> str:
    if "PRIVATE KEY" in str(value):
        return "[private key, not shown]"
    text = json.dumps(value, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= _MAX_VALUE else text[: _MAX_VALUE - 3] + "..."


def _literal_choices(annotation: Any) -> list[str]:
    return [str(a) for t in _unwrap(annotation) if get_origin(t) is Literal for a in get_args(t)]


def describe(
    err: ErrorDetails, root: type[BaseModel], namespace: str, secret_keys: set[str]
) -> Problem:
    """One pydantic error as a Problem naming the full key."""
    loc = err["loc"]
    kind = err["type"]
    walk = _walk(root, namespace, loc)
    top = f"{namespace}:{loc[0]}" if loc else namespace
    # A credential field never echoes its value, even if it was not stored as a secret.
    secret = top in secret_keys or SecretStr in _unwrap(walk.annotation)
    if kind == "extra_forbidden":
        allowed = list(walk.model.model_fields) if walk.model is not None else []
        guess = did_you_mean(str(loc[-1]), allowed)
        hint = f" (did you mean {guess!r}?)" if guess else ""
        return Problem(walk.path, f"unknown key{hint}; allowed keys: {', '.join(allowed)}")
    if kind == "missing":
        return Problem(walk.path, "required key is missing")
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        tag_field = str(err.get("ctx", {}).get("discriminator", "")).strip("'")
        tags = _union_tags(walk.annotation, tag_field)
        one_of = f"must be one of {', '.join(repr(t) for t in tags)}"
        if kind == "union_tag_not_found":
            return Problem(f"{walk.path}.{tag_field}", f"required key is missing; {one_of}")
        given_tag = str(err["ctx"]["tag"]) if "ctx" in err else ""
        guess = did_you_mean(given_tag, tags)
        hint = f" (did you mean {guess!r}?)" if guess else ""
        return Problem(f"{walk.path}.{tag_field}", f"{one_of}{hint} [given: {given_tag!r}]")
    message = err["msg"].removeprefix("Value error, ")
    if kind == "literal_error":
        choices = _literal_choices(walk.annotation)
        guess = did_you_mean(str(err["input"]), choices)
        message = f"must be one of {', '.join(repr(c) for c in choices)}" + (
            f" (did you mean {guess!r}?)" if guess else ""
        )
    if err["input"] is None:
        return Problem(walk.path, message)
    given = "[secret]" if secret else _given(err["input"])
    return Problem(walk.path, f"{message} [given: {given}]")


def problems_from(
    error: ValidationError, root: type[BaseModel], namespace: str, secret_keys: set[str]
) -> list[Problem]:
    """All problems of a failed validation, sorted by key, duplicates removed."""
    seen: dict[str, Problem] = {}
    for err in error.errors(include_url=False):
        problem = describe(err, root, namespace, secret_keys)
        seen.setdefault(str(problem), problem)
    return sorted(seen.values(), key=lambda p: p.key)
