"""What a chart knows from its `values.schema.json`.

`properties` are the keys of an object (closed unless `additionalProperties` or
`patternProperties` opens it), `items` those of a list's items; an object schema without
`properties` is free-form; `$ref` (local), `allOf`, `anyOf` and `oneOf` contribute their
properties.
"""

from __future__ import annotations

from typing import Any

from components.platform.values_paths import FREE, Known


def from_schema(schema: Any, document: Any, depth: int = 0) -> Known:
    if not isinstance(schema, dict) or depth > 32:
        return FREE
    schema = _resolved(schema, document)
    properties: dict[str, Any] = dict(schema.get("properties") or {})
    for combined in ("allOf", "anyOf", "oneOf"):
        for part in schema.get(combined) or []:
            properties.update(_resolved(part, document).get("properties") or {})
    types = schema.get("type")
    types = set(types) if isinstance(types, list) else {types}
    if properties:
        extra = schema.get("additionalProperties", False)
        if extra is not False or schema.get("patternProperties"):
            return FREE
        return Known("map", {k: from_schema(v, document, depth + 1) for k, v in properties.items()})
    if "array" in types:
        items = schema.get("items")
        return Known("list", items=from_schema(items, document, depth + 1) if items else None)
    scalars = types - {"object", None}
    if scalars and "object" not in types:
        return Known("scalar", what=f"a {'/'.join(sorted(str(t) for t in scalars))}")
    return FREE


def _resolved(schema: Any, document: Any) -> dict[str, Any]:
    """`schema` with a local `$ref` (`#/definitions/x`) followed."""
    seen = 0
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and seen < 16:
        ref = schema["$ref"]
        if not ref.startswith("#"):
            return {}
        target = document
        for part in [p for p in ref[1:].split("/") if p]:
            target = target.get(part) if isinstance(target, dict) else None
        schema, seen = target, seen + 1
    return schema if isinstance(schema, dict) else {}
