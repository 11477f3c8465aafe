"""Parsing one catalog document into its typed model, strictly or as AICR tolerates.

AICR decodes overlays and `registry.yaml` with a plain `yaml.Unmarshal`, which ignores keys
its Go structs do not have, and decodes mixins (and profile-bearing overlays) with
`KnownFields(true)`, which refuses them. gpu-ci does the same: a tolerant document drops
the keys its format does not define and reports each one (the caller turns them into one
warning for the whole catalog); a strict one fails naming the file and field. Wrong types
and missing required fields fail either way, as they do in AICR's decoder.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from core.errors import did_you_mean
from recipes.errors import RecipeError, field_path, from_validation_error

M = TypeVar("M", bound=BaseModel)
_EXTRA = "extra_forbidden"


def parse_document(
    model: type[M],
    data: Any,
    rel: str,
    *,
    tolerant: bool,
    newer: tuple[str, type[BaseModel]] | None = None,
) -> tuple[M, list[str]]:
    """`data` as `model`, and the keys a tolerant parse dropped (`file: field (hint)`).

    `newer` is (apiVersion, model) of the current format, for a document in an older one:
    a dropped key that format defines is named as such."""
    if not isinstance(data, dict):
        raise RecipeError(f"{rel}: expected a YAML mapping, got {type(data).__name__}")
    try:
        return model.model_validate(data), []
    except ValidationError as exc:
        if not tolerant or any(e["type"] != _EXTRA for e in exc.errors()):
            raise from_validation_error(rel, exc) from None
        unknown = [_clean(e["loc"]) for e in exc.errors()]
    pruned = copy.deepcopy(data)
    for loc in unknown:
        _drop(pruned, loc)
    try:
        doc = model.model_validate(pruned)
    except ValidationError as exc:  # pragma: no cover - dropping keys cannot add errors
        raise from_validation_error(rel, exc) from None
    return doc, [f"{rel}: {_describe(model, loc, newer)}" for loc in unknown]


def _clean(loc: Sequence[int | str]) -> tuple[int | str, ...]:
    return tuple(p for p in loc if not (isinstance(p, str) and p.startswith("function-")))


def _drop(data: Any, loc: tuple[int | str, ...]) -> None:
    node = data
    for part in loc[:-1]:
        node = node[part]
    node.pop(loc[-1], None)


def _describe(
    model: type[BaseModel],
    loc: tuple[int | str, ...],
    newer: tuple[str, type[BaseModel]] | None,
) -> str:
    """`spec.componentRefs[2].valueFile (did you mean 'valuesFile'?)`."""
    text = field_path(loc)
    if newer is not None and loc[-1] in _fields_at(newer[1], loc[:-1]):
        return f"{text} (an {newer[0]} field)"
    known = _fields_at(model, loc[:-1])
    hint = did_you_mean(str(loc[-1]), known) if known else None
    return f"{text} (did you mean {hint!r}?)" if hint else text


def _fields_at(model: type[BaseModel], loc: tuple[int | str, ...]) -> list[str]:
    """The field names of the model reached by following `loc` (for did-you-mean)."""
    current: Any = model
    for part in loc:
        if isinstance(part, int):
            continue
        fields = getattr(current, "model_fields", None)
        if not fields or part not in fields:
            return []
        current = _inner_model(fields[part].annotation)
        if current is None:
            return []
    fields = getattr(current, "model_fields", None)
    return list(fields) if fields else []


def _inner_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        found = _inner_model(arg)
        if found is not None:
            return found
    return None
