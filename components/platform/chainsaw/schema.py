"""Chainsaw v0.2.15's own `Test` schema (the check Jobs' version), and the JSON-schema subset
it is written in.

`jsonschema` is a dev dependency only, so the program validates with this small evaluator
of the keywords the schema uses (`type`, `enum`, `required`, `properties`,
`additionalProperties`, `items`, `minItems`, `pattern`, `oneOf`, `anyOf`, `allOf`, `not`);
annotations (`description`, `default`, `$comment`, `x-kubernetes-*`) assert nothing, as in
the `jsonschema` library's default validators. `format: date-time` (the Test's `metadata`
timestamps) does assert: Chainsaw itself refuses a Test whose timestamp is not RFC 3339 when
it loads it (Kubernetes' `metav1.Time` parses `time.RFC3339`). The tests compare its verdict
with the library's and with `chainsaw lint test` of v0.2.15 on every AICR and gpu-ci health
check and broken variants of them.
The schema file and its source: `README.md` beside this module.
"""

from __future__ import annotations

import json
import re
from calendar import monthrange
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

SCHEMA_FILE = Path(__file__).parent / "test-chainsaw-v1alpha1.json"
_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})([.,]\d+)?(?:Z|[+-](\d{2}):(\d{2}))"
)

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
}


@dataclass(frozen=True)
class SchemaError:
    """One place where a document breaks the schema."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path or '(the document)'}: {self.message}"


@cache
def load_schema() -> dict[str, Any]:
    """The `chainsaw.kyverno.io/v1alpha1` `Test` schema (read once)."""
    data: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return data


def _is(value: Any, name: str) -> bool:
    if name == "null":
        return value is None
    if isinstance(value, bool):
        return name == "boolean"
    if name == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _TYPES.get(name, ()))


def _child(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _type_name(value: Any) -> str:
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _is(value, name):
            return name
    return type(value).__name__


def errors(value: Any, schema: dict[str, Any], path: str = "") -> list[SchemaError]:
    """Every way `value` breaks `schema` (empty: valid)."""
    found: list[SchemaError] = []
    types = schema.get("type")
    if types is not None:
        wanted = [types] if isinstance(types, str) else list(types)
        if not any(_is(value, t) for t in wanted):
            shown = "/".join(t for t in wanted if t != "null") or "null"
            return [SchemaError(path, f"expected {shown}, got {_type_name(value)}")]
    if "enum" in schema and not any(_same(value, e) for e in schema["enum"]):
        allowed = ", ".join(repr(e) for e in schema["enum"] if e is not None)
        found.append(SchemaError(path, f"{value!r} is not one of {allowed}"))
    if isinstance(value, str) and "pattern" in schema and not re.search(schema["pattern"], value):
        found.append(SchemaError(path, f"{value!r} does not match {schema['pattern']}"))
    if isinstance(value, str) and schema.get("format") == "date-time" and not _rfc3339(value):
        found.append(SchemaError(path, f"{value!r} is not an RFC 3339 time (2026-01-31T12:00:00Z)"))
    if isinstance(value, dict):
        found += _object(value, schema, path)
    if isinstance(value, list):
        found += _array(value, schema, path)
    for part in schema.get("allOf", []):
        found += errors(value, part, path)
    found += _combinators(value, schema, path)
    return found


def _rfc3339(text: str) -> bool:
    """Go's `time.Parse(time.RFC3339, text)` succeeds: the form, each field in range (a
    zone's hours up to 24 and minutes up to 60, as Go allows), `.` or `,` before a fraction."""
    match = _RFC3339.fullmatch(text)
    if match is None:
        return False
    year, month, day, hour, minute, second = (int(g) for g in match.group(1, 2, 3, 4, 5, 6))
    zone_h, zone_m = (int(g) if g else 0 for g in match.group(8, 9))
    days = monthrange(year, month)[1] if 1 <= month <= 12 else 0
    in_range = hour < 24 and minute < 60 and second < 60 and zone_h <= 24 and zone_m <= 60
    return in_range and 1 <= day <= days


def _same(a: Any, b: Any) -> bool:
    return (type(a) is type(b) and bool(a == b)) or (a is None and b is None)


def _object(value: dict[str, Any], schema: dict[str, Any], path: str) -> list[SchemaError]:
    found = [
        SchemaError(_child(path, key), "is required")
        for key in schema.get("required", [])
        if key not in value
    ]
    properties: dict[str, Any] = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        if key in properties:
            found += errors(item, properties[key], _child(path, key))
        elif extra is False:
            known = ", ".join(sorted(properties))
            found.append(SchemaError(_child(path, key), f"unknown key (allowed: {known})"))
        elif isinstance(extra, dict):
            found += errors(item, extra, _child(path, key))
    return found


def _array(value: list[Any], schema: dict[str, Any], path: str) -> list[SchemaError]:
    found = []
    if len(value) < schema.get("minItems", 0):
        found.append(SchemaError(path, f"needs at least {schema['minItems']} item(s)"))
    items = schema.get("items")
    if isinstance(items, dict):
        for index, item in enumerate(value):
            found += errors(item, items, _child(path, index))
    return found


def _combinators(value: Any, schema: dict[str, Any], path: str) -> list[SchemaError]:
    found = []
    if "anyOf" in schema and not any(not errors(value, s, path) for s in schema["anyOf"]):
        found.append(SchemaError(path, "matches none of its alternatives"))
    if "oneOf" in schema:
        matching = [s for s in schema["oneOf"] if not errors(value, s, path)]
        if len(matching) != 1:
            found.append(SchemaError(path, _one_of(schema["oneOf"], len(matching))))
    if "not" in schema and not errors(value, schema["not"], path):
        found.append(SchemaError(path, _not(schema["not"])))
    return found


def _one_of(alternatives: list[dict[str, Any]], matched: int) -> str:
    keys = [a["required"][0] for a in alternatives if list(a) == ["required"]]
    if len(keys) == len(alternatives):
        return f"needs exactly one of {', '.join(keys)} (has {matched})"
    return f"matches {matched} of its alternatives, not exactly one"


def _not(schema: dict[str, Any]) -> str:
    both = ", ".join(schema.get("required", []))
    others = [", ".join(a.get("required", [])) for a in schema.get("anyOf", [])]
    if both and others:
        return f"may not set {both} together with any of {', '.join(others)}"
    if both:
        return f"may not set all of {both}"
    return "matches a form it must not have"


def first_error(value: Any, schema: dict[str, Any] | None = None) -> SchemaError | None:
    """The most specific error (the deepest path; the first one of those), or None."""
    found = errors(value, schema if schema is not None else load_schema())
    if not found:
        return None
    return max(found, key=lambda e: (e.path.count(".") + e.path.count("["), -found.index(e)))
