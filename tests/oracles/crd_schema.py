"""A structural validator for CRD OpenAPI v3 schemas, and server-side-apply merging.

`jsonschema` is not a project dependency, and it would not know Kubernetes' extensions
anyway. This covers the subset the upstream CRDs in `shared/upstream/crds/` use: type,
properties, additionalProperties, required, items, enum, anyOf, pattern, min/max
Length/Items/Properties, minimum, nullable, x-kubernetes-int-or-string,
x-kubernetes-preserve-unknown-fields and x-kubernetes-list-type (map keys unique).
CEL rules (x-kubernetes-validations) and formats are not evaluated.

Unlike the API server, an unknown field is an error here: the server would silently prune
it, which for a patch means the fix would silently not happen.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import yaml

Schema = dict[str, Any]


def load_crd(upstream: Path, filename: str) -> dict[str, Any]:
    """A CRD document from `shared/upstream/crds/`."""
    doc = yaml.safe_load((upstream / "crds" / filename).read_text(encoding="utf-8"))
    assert isinstance(doc, dict)
    return doc


def crd_schema(crd: dict[str, Any], version: str) -> Schema:
    """The openAPIV3Schema of `version` in `crd`."""
    for v in crd["spec"]["versions"]:
        if v["name"] == version:
            schema = v["schema"]["openAPIV3Schema"]
            assert isinstance(schema, dict)
            return schema
    raise KeyError(f"{crd['metadata']['name']} has no version {version}")


def validate_object(crd: dict[str, Any], obj: dict[str, Any]) -> list[str]:
    """Problems with `obj` as an instance of `crd` (apiVersion picks the version)."""
    group = crd["spec"]["group"]
    api_version = str(obj.get("apiVersion", ""))
    problems = []
    if not api_version.startswith(f"{group}/"):
        problems.append(f"apiVersion: {api_version!r} is not in group {group}")
        return problems
    if obj.get("kind") != crd["spec"]["names"]["kind"]:
        problems.append(f"kind: {obj.get('kind')!r} != {crd['spec']['names']['kind']}")
    version = api_version.split("/", 1)[1]
    return problems + validate(obj, crd_schema(crd, version))


def _type_ok(value: Any, kind: str) -> bool:
    checks = {
        "object": lambda v: isinstance(v, dict),
        "array": lambda v: isinstance(v, list),
        "string": lambda v: isinstance(v, str),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
        "boolean": lambda v: isinstance(v, bool),
    }
    return bool(checks[kind](value))


def validate(value: Any, schema: Schema, path: str = "") -> list[str]:
    """Problems with `value` under `schema`, each prefixed by its dotted path."""
    where = path or "(root)"
    problem = _shape_problem(value, schema, path, where)
    if problem:
        return [problem]
    if isinstance(value, dict):
        return _object(value, schema, path)
    if isinstance(value, list):
        return _array(value, schema, path)
    return [] if value is None else _scalar_rules(value, schema, where)


def _shape_problem(value: Any, schema: Schema, path: str, where: str) -> str | None:
    """Null, type, anyOf and enum problems: the ones that make deeper checks pointless."""
    if value is None:
        return None if schema.get("nullable") else f"{where}: null is not allowed"
    if schema.get("x-kubernetes-int-or-string"):
        ok = isinstance(value, int | str) and not isinstance(value, bool)
        return None if ok else f"{where}: expected an integer or a string"
    if "anyOf" in schema and all(validate(value, s, path) for s in schema["anyOf"]):
        return f"{where}: matches none of anyOf"
    kind = schema.get("type")
    if kind and not _type_ok(value, kind):
        return f"{where}: expected {kind}, got {type(value).__name__}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{where}: {value!r} is not one of {schema['enum']}"
    return None


def _scalar_rules(value: Any, schema: Schema, where: str) -> list[str]:
    out = []
    if isinstance(value, str):
        if "pattern" in schema and not re.search(schema["pattern"], value):
            out.append(f"{where}: {value!r} does not match {schema['pattern']}")
        if len(value) < schema.get("minLength", 0):
            out.append(f"{where}: shorter than {schema['minLength']}")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            out.append(f"{where}: longer than {schema['maxLength']}")
    elif "minimum" in schema and value < schema["minimum"]:
        out.append(f"{where}: {value} < minimum {schema['minimum']}")
    return out


def _object(value: dict[str, Any], schema: Schema, path: str) -> list[str]:
    out = []
    where = path or "(root)"
    props: dict[str, Schema] = schema.get("properties", {})
    extra = schema.get("additionalProperties")
    free = schema.get("x-kubernetes-preserve-unknown-fields") or (not props and extra is None)
    for key in schema.get("required", []):
        if key not in value:
            out.append(f"{where}: missing required field {key!r}")
    if len(value) < schema.get("minProperties", 0):
        out.append(f"{where}: fewer than {schema['minProperties']} properties")
    for key, item in value.items():
        sub = f"{path}.{key}" if path else str(key)
        if key in props:
            out.extend(validate(item, props[key], sub))
        elif isinstance(extra, dict):
            out.extend(validate(item, extra, sub))
        elif not free:
            out.append(f"{sub}: unknown field")
    return out


def _array(value: list[Any], schema: Schema, path: str) -> list[str]:
    out = []
    where = path or "(root)"
    if len(value) < schema.get("minItems", 0):
        out.append(f"{where}: fewer than {schema['minItems']} items")
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        out.append(f"{where}: more than {schema['maxItems']} items")
    items = schema.get("items")
    if isinstance(items, dict):
        for i, item in enumerate(value):
            out.extend(validate(item, items, f"{path}[{i}]"))
    list_type = schema.get("x-kubernetes-list-type")
    if list_type == "map":
        keys = [tuple(i.get(k) for k in schema["x-kubernetes-list-map-keys"]) for i in value]
        if len(set(keys)) != len(keys):
            out.append(f"{where}: duplicate list-map keys {keys}")
    elif list_type == "set" and len({repr(v) for v in value}) != len(value):
        out.append(f"{where}: duplicate set entries")
    return out


def at(schema: Schema, path: str) -> Schema:
    """The sub-schema at a dotted property path (`spec.devicePlugin`)."""
    node = schema
    for key in path.split("."):
        node = node["properties"][key]
    return node


def ssa_merge(live: Any, patch: Any, schema: Schema) -> Any:
    """`patch` applied over `live` the way server-side apply merges (list-maps by key)."""
    if isinstance(live, dict) and isinstance(patch, dict):
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        out = copy.deepcopy(live)
        for key, value in patch.items():
            sub = props.get(key) or (extra if isinstance(extra, dict) else {})
            out[key] = ssa_merge(live[key], value, sub) if key in live else copy.deepcopy(value)
        return out
    if (
        isinstance(live, list)
        and isinstance(patch, list)
        and schema.get("x-kubernetes-list-type") == "map"
    ):
        keys = schema["x-kubernetes-list-map-keys"]
        items = schema.get("items", {})
        merged = copy.deepcopy(live)
        index = {tuple(i.get(k) for k in keys): n for n, i in enumerate(merged)}
        for entry in patch:
            key = tuple(entry.get(k) for k in keys)
            if key in index:
                merged[index[key]] = ssa_merge(merged[index[key]], entry, items)
            else:
                merged.append(copy.deepcopy(entry))
        return merged
    return copy.deepcopy(patch)
