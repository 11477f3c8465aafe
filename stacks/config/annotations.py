"""What a config model's field annotation holds, read through `Annotated` and unions.

The config reference walks the models by these: which models a field nests, a list's item
type, a `Literal`'s values, a credential (`SecretStr`), and a discriminated union's tag.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel, SecretStr


def types_of(annotation: Any) -> list[Any]:
    """The types an annotation holds: Annotated, Optional and unions unwrapped."""
    origin = get_origin(annotation)
    if origin is typing.Annotated:
        return types_of(get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return [t for arg in get_args(annotation) for t in types_of(arg) if t is not type(None)]
    return [annotation]


def models_of(annotation: Any) -> list[type[BaseModel]]:
    return [t for t in types_of(annotation) if isinstance(t, type) and issubclass(t, BaseModel)]


def item_type(annotation: Any) -> Any | None:
    """The item type of a list or tuple of models (`list[ScaleSet]`), else None."""
    for kind in types_of(annotation):
        if get_origin(kind) in (list, tuple):
            args = [a for a in get_args(kind) if a is not Ellipsis]
            if len(args) == 1 and models_of(args[0]):
                return args[0]
    return None


def is_secret(annotation: Any) -> bool:
    return SecretStr in types_of(annotation)


def literals_of(annotation: Any) -> list[str]:
    kinds = types_of(annotation)
    if len(kinds) == 1 and get_origin(kinds[0]) is Literal:
        return [str(v) for v in get_args(kinds[0])]
    return []


def tag_field(members: list[type[BaseModel]]) -> str:
    """The field whose Literal value tells the members of a discriminated union apart."""
    for name in members[0].model_fields:
        values = [
            literals_of(m.model_fields[name].annotation) if name in m.model_fields else []
            for m in members
        ]
        if all(len(v) == 1 for v in values) and len({v[0] for v in values}) == len(members):
            return name
    raise TypeError(f"no discriminator among {[m.__name__ for m in members]}")


def same_field(members: list[type[BaseModel]], name: str) -> bool:
    """Whether every member has field `name`, declared alike (an inherited one)."""
    fields = [m.model_fields.get(name) for m in members]
    first = fields[0]
    return first is not None and all(
        f is not None
        and (f.annotation, f.default, f.default_factory, f.description)
        == (first.annotation, first.default, first.default_factory, first.description)
        for f in fields
    )
