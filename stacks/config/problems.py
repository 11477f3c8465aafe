"""Turn pydantic validation errors into one message a user can act on.

Every problem is named by its full config key as the user writes it (`gpu-ci:vm.shape`),
with the value given (never a secret's) and what is allowed, plus a did-you-mean for near
misses of keys and enum values.
"""

from __future__ import annotations

import json
import re
import types
import typing
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel, SecretStr, ValidationError
from pydantic_core import ErrorDetails

from core.errors import did_you_mean

_MAX_VALUE = 60
_INT_HINT = ": write the number itself, unquoted (true, false and text are no numbers)"


_PEM_QUOTED = re.compile(
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----(\\n|\n)?",
    re.DOTALL,
)
_TOKEN = re.compile(r"\bgh[pousr]_[A-Za-z0-9]{16,}|\bgithub_pat_[A-Za-z0-9_]{16,}")


def redact(text: str) -> str:
    """`text` with every credential-shaped part (a PEM private key, also as a repr with
    escaped newlines, a GitHub token) replaced: a validator that quotes the value it
    refuses must not print a key pasted under the wrong config key."""
    return _TOKEN.sub("[credential]", _PEM_QUOTED.sub("[private key]", text))


@dataclass(frozen=True)
class Problem:
    """One bad key: where, what is wrong, and what was given (credentials redacted)."""

    key: str
    message: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "message", redact(self.message))

    def __str__(self) -> str:
        return f"{self.key}: {self.message}"


class KeyedError(ValueError):
    """A rule across keys, raised in one key's validator, reported at the key to fix.

    `key` is relative to the namespace (`host.address`); `given` is the value there.
    """

    def __init__(self, key: str, message: str, given: Any = None) -> None:
        super().__init__(message)
        self.key = key
        self.message = message
        self.given = given


def top_key(key: str) -> str:
    """The top-level key (`gpu-ci:runner`) of a full key (`gpu-ci:runner.labels[0]`)."""
    return key.split(".", 1)[0].split("[", 1)[0]


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
        if get_origin(member) is list and get_args(member):  # a list of tagged members
            tags += _union_tags(get_args(member)[0], tag_field)
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


def holds_credential(annotation: Any) -> bool:
    """Whether a config type has a credential (`SecretStr`) anywhere inside.

    The one rule for what is a credential: a field typed `SecretStr`, and every key that
    holds one (its model, a list or union of such models). Such values are never echoed.
    """
    if annotation is SecretStr:
        return True
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return any(holds_credential(f.annotation) for f in annotation.model_fields.values())
    return any(holds_credential(a) for a in get_args(annotation))


SECRET = "[secret]"
"""What a problem shows for a value it must not echo."""

_KEY_PARTS = re.compile(r"\[\d+\]|[^.\[\]]+")


def credential_at(root: type[BaseModel], key: str) -> bool | None:
    """Whether the value at a full key (`gpu-ci:runner.githubApp.privateKey`) is a
    credential: its field (in any member of a union) holds a `SecretStr`. None when the key
    names no field of `root` (a union member's tag, a key that does not exist)."""
    current: list[Any] = [root]
    for part in _KEY_PARTS.findall(key.partition(":")[2]):
        found: list[Any] = []
        for member in current:
            if part.startswith("["):
                if get_origin(member) is list and get_args(member):
                    found.append(get_args(member)[0])
            elif isinstance(member, type) and issubclass(member, BaseModel):
                field = member.model_fields.get(part)
                if field is not None:
                    found.append(field.annotation)
            elif get_origin(member) is dict and len(get_args(member)) == 2:
                found.append(get_args(member)[1])
        current = [t for annotation in found for t in _unwrap(annotation)]
        if not current:
            return None
    return any(holds_credential(member) for member in current)


def shown_given(value: Any, key: str, secret_keys: Collection[str], credential: bool | None) -> str:
    """How a problem at `key` shows the value given there: `[secret]` for a credential (a
    field typed `SecretStr`, or a key holding one) and for a whole top-level key stored as
    a secret; any other value as `given_text` shows it, whitespace visible.

    Pulumi marks a top-level key secret when any path under it is (a `secure:` private key
    under `gpu-ci:runner` marks all of `gpu-ci:runner`), so a value under a secret key is
    no secret unless its own field is a credential, or (`credential` None) is not known.
    """
    top = top_key(key)
    if credential or (top in secret_keys and (credential is None or key == top)):
        return SECRET
    return given_text(value)


def given_text(value: Any) -> str:
    text = str(value)
    if "PRIVATE KEY" in text:
        return "[private key, not shown]"
    if redact(text) != text:
        return "[looks like a credential, not shown]"
    text = json.dumps(value, default=str) if not isinstance(value, str) else repr(value)
    if len(text) <= _MAX_VALUE:
        return text
    # Keep the end in sight: a stray trailing newline or space is often the problem.
    return text[: _MAX_VALUE - 18] + "..." + text[-15:]


def _literal_choices(annotation: Any) -> list[str]:
    return [str(a) for t in _unwrap(annotation) if get_origin(t) is Literal for a in get_args(t)]


def describe(
    err: ErrorDetails, root: type[BaseModel], namespace: str, secret_keys: set[str]
) -> Problem:
    """One pydantic error as a Problem naming the full key."""
    loc = err["loc"]
    kind = err["type"]
    walk = _walk(root, namespace, loc)
    # A value under a credential-bearing key is never echoed, whatever its shape (a wrong
    # type, a whole model given as text), even if it was not stored as a secret.
    credential = None if walk.annotation is None else holds_credential(walk.annotation)
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
        key = f"{walk.path}.{tag_field}"
        shown = shown_given(given_tag, key, secret_keys, credential=False)  # a Literal tag
        return Problem(key, f"{one_of}{hint} [given: {shown}]")
    message = err["msg"].removeprefix("Value error, ")
    if kind == "int_type":  # config ints are strict: JSON true or "2" is no number
        message += _INT_HINT
    if kind == "literal_error":
        choices = _literal_choices(walk.annotation)
        guess = did_you_mean(str(err["input"]), choices)
        message = f"must be one of {', '.join(repr(c) for c in choices)}" + (
            f" (did you mean {guess!r}?)" if guess else ""
        )
    if err["input"] is None:
        return Problem(walk.path, message)
    given = shown_given(err["input"], walk.path, secret_keys, credential)
    return Problem(walk.path, f"{message} [given: {given}]")


def problems_from(
    error: ValidationError, root: type[BaseModel], namespace: str, secret_keys: set[str]
) -> list[Problem]:
    """All problems of a failed validation, sorted by key, duplicates removed."""
    seen: dict[str, Problem] = {}
    for err in error.errors(include_url=False):
        problem = _keyed(err, root, namespace, secret_keys) or describe(
            err, root, namespace, secret_keys
        )
        seen.setdefault(str(problem), problem)
    return sorted(seen.values(), key=lambda p: p.key)


def _keyed(
    err: ErrorDetails, root: type[BaseModel], namespace: str, secret_keys: set[str]
) -> Problem | None:
    """A KeyedError's problem, at the key it names (None for any other error)."""
    cause = err.get("ctx", {}).get("error")
    if not isinstance(cause, KeyedError):
        return None
    key = f"{namespace}:{cause.key}"
    if cause.given is None:
        return Problem(key, cause.message)
    shown = shown_given(cause.given, key, secret_keys, credential_at(root, key))
    return Problem(key, f"{cause.message} [given: {shown}]")
