"""What a chart knows from its `values.schema.json`.

`properties` are the keys of an object (closed unless `additionalProperties` or
`patternProperties` opens it), `items` those of a list's items; an object schema without
`properties` is free-form; `anyOf` and `oneOf` contribute their properties.

A value must meet every schema that applies to it: the schema, its `allOf` parts and where
its local `$ref` points. Helm v3.20.2 validates with santhosh-tekuri/jsonschema v6.0.2 (its
go.mod), under the draft the schema's `$schema` names and 2020-12 without one; from draft
2019-09 on, the keywords beside a `$ref` apply as well, while under draft-04, -06 and -07 the
`$ref` replaces them. Together those schemas know the keys any of them lists, unless one
closes the object with `additionalProperties: false`: then only the keys each such schema
lists. A `$ref` is followed as a JSON pointer into the schema itself (`#/$defs/x`); one not
followed (another document, an `$anchor`, to nothing, or 16 deep) leaves the value free-form.
"""

from __future__ import annotations

from typing import Any

from components.platform.chart_values.paths import FREE, Known

# santhosh-tekuri/jsonschema v6.0.2 draft.go `draftFromURL`: the drafts a `$schema` URL names
# (http:// or https://, no fragment), and objcompiler.go `compileDraft4`: "All other properties
# in a "$ref" object MUST be ignored" where `DraftVersion < 2019`.
_REF_ALONE = {f"json-schema.org/draft-0{n}/schema" for n in (4, 6, 7)}
_REF_HOPS = 16


def from_schema(schema: Any, document: Any, depth: int = 0) -> Known:
    if depth > 32:
        return FREE
    ref_alone = _ref_alone(document)
    parts = _applying(schema, document, ref_alone, [_REF_HOPS]) or []
    properties = _properties(parts, document, ref_alone)
    if properties is not None:
        return Known(
            "map",
            {k: from_schema({"allOf": v}, document, depth + 1) for k, v in properties.items()},
        )
    types: set[Any] | None = None
    for part in parts:
        if (declared := part.get("type")) is not None:
            declared = set(declared) if isinstance(declared, list) else {declared}
            types = declared if types is None else types & declared
    types = types or set()
    if "array" in types:
        items = [part["items"] for part in parts if "items" in part]
        return Known("list", items=from_schema({"allOf": items}, document, depth + 1))
    if types and "object" not in types:
        return Known("scalar", what=f"a {'/'.join(sorted(str(t) for t in types))}")
    return FREE


def _properties(parts: list[Any], document: Any, ref_alone: bool) -> dict[str, list[Any]] | None:
    """The keys `parts` together know, each with every part's schema for it (None: none, or
    the object is open)."""
    open_parts = [
        p
        for p in parts
        if p.get("additionalProperties", False) is not False or p.get("patternProperties")
    ]
    # the keys of each part that closes the object (`additionalProperties: false`)
    closed = [
        set(p.get("properties") or {})
        for p in parts
        if p.get("additionalProperties", True) is False and not p.get("patternProperties")
    ]
    properties: dict[str, list[Any]] = {}
    for part in parts:
        own = dict(part.get("properties") or {})
        for combined in ("anyOf", "oneOf"):
            for alternative in part.get(combined) or []:
                for inner in _applying(alternative, document, ref_alone, [_REF_HOPS]) or []:
                    own.update(inner.get("properties") or {})
        for key, value in own.items():
            properties.setdefault(key, []).append(value)
    if not properties or (open_parts and not closed):
        return None
    return {k: v for k, v in properties.items() if all(k in keys for keys in closed)}


def _ref_alone(document: Any) -> bool:
    """Whether a `$ref` replaces the keywords beside it: draft-04, -06 or -07 named."""
    named = document.get("$schema") if isinstance(document, dict) else None
    if not isinstance(named, str):
        return False
    url, _, fragment = named.partition("#")
    # No `$schema`: 2020-12 (jsonschema v6.0.2 roots.go, `defaultDraft: draftLatest`); one it
    # does not name, a meta-schema it would load: read as 2020-12 too.
    return not fragment and url.removeprefix("http://").removeprefix("https://") in _REF_ALONE


def _applying(schema: Any, document: Any, ref_alone: bool, hops: list[int]) -> list[Any] | None:
    """Each schema object a value under `schema` must meet (None: one is not known)."""
    if not isinstance(schema, dict):
        return []
    ref = schema.get("$ref")
    replaced = ref_alone and ref is not None
    found: list[Any] = [] if replaced else [schema]
    targets: list[Any] = []
    if isinstance(ref, str):
        if not (ref == "#" or ref.startswith("#/")) or hops[0] == 0:
            return None  # another document, an `$anchor`, or too deep: not known
        hops[0] -= 1
        target = document
        # a JSON pointer (RFC 6901): `~1` is `/`, `~0` is `~`
        for step in ref[2:].split("/") if ref != "#" else []:
            key = step.replace("~1", "/").replace("~0", "~")
            target = target.get(key) if isinstance(target, dict) else None
        if not isinstance(target, dict):
            return None
        targets.append(target)
    for part in targets + ([] if replaced else list(schema.get("allOf") or [])):
        more = _applying(part, document, ref_alone, hops)
        if more is None:
            return None
        found += more
    return found
