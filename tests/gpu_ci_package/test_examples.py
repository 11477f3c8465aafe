"""The documented examples against the schema: every property a program sets exists on the
component (or type) it sets it on, and every required one is given. What this cannot
check: that the Pulumi CLI generates the SDKs and runs them (docs/multi-language.md)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from core import read_yaml
from core.read_limits import STACK_FILE
from gpu_ci_package.provider import schema

REPO = Path(__file__).resolve().parents[2]
TYPESCRIPT = REPO / "examples" / "package-typescript" / "index.ts"
YAML = REPO / "examples" / "package-yaml" / "Pulumi.yaml"
EXPRESSION = object()
"""A value a program computes (`config.requireSecret(...)`, `${other.output}`): its type is
the language's to check."""


def problems(value: Any, spec: dict[str, Any], where: str, required: list[str]) -> list[str]:
    """What in `value` (an object for properties `spec`) the schema does not take."""
    if value is EXPRESSION:
        return []
    if not isinstance(value, dict):
        return [f"{where}: an object is expected, got {value!r}"]
    types = schema()["types"]
    found = [f"{where}.{k}: no such property" for k in value if k not in spec]
    found += [f"{where}.{k}: required, not given" for k in required if k not in value]
    for key, item in value.items():
        prop = spec.get(key)
        if prop is None:
            continue
        for ref, inner in _refs(prop, item):
            typ = types[ref.removeprefix("#/types/")]
            found += problems(
                inner, typ.get("properties", {}), f"{where}.{key}", typ.get("required", [])
            )
    return found


def _refs(prop: dict[str, Any], value: Any) -> list[tuple[str, Any]]:
    """Each object in `value` with the type reference it must match."""
    ref = prop.get("$ref", "")
    if ref.startswith("#/types/"):
        return [(ref, value)]
    items = prop.get("items", {})
    if prop.get("type") == "array" and items.get("$ref", "").startswith("#/types/"):
        return [(items["$ref"], v) for v in value] if isinstance(value, list) else []
    return []


def check(resources: dict[str, tuple[str, Any]]) -> list[str]:
    """Problems of each `name -> (type token, properties)`."""
    spec = schema()["resources"]
    found = []
    for name, (token, properties) in resources.items():
        if token not in spec:
            found.append(f"{name}: {token} is no resource of the package")
            continue
        resource = spec[token]
        found += problems(properties, resource["inputProperties"], name, resource["requiredInputs"])
    return found


# --- TypeScript: `new gpuci.Component("name", { ... })`, its object literal read as data.


def _balanced(text: str, start: int) -> str:
    depth = 0
    for index in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        if depth == 0:
            return text[start : index + 1]
    raise AssertionError("an unbalanced object literal")


def typescript_literal(text: str) -> Any:
    """A TypeScript object literal of keys, strings, numbers, booleans, arrays and calls
    (each call an EXPRESSION), as data."""
    tokens = [
        token
        for token in re.findall(
            r'"(?:[^"\\]|\\.)*"|//[^\n]*|[A-Za-z_][\w.]*\([^()]*\)|[A-Za-z_]\w*'
            r"|-?\d+(?:\.\d+)?|[{}\[\]:,]",
            text,
        )
        if not token.startswith("//")  # a comment (a string's `//` is in its token)
    ]
    position = 0

    def value() -> Any:
        nonlocal position
        token = tokens[position]
        position += 1
        if token == "{":
            out: dict[str, Any] = {}
            while tokens[position] != "}":
                key = tokens[position].strip('"')
                assert tokens[position + 1] == ":", f"no ':' after {key}"
                position += 2
                out[key] = value()
                if tokens[position] == ",":
                    position += 1
            position += 1
            return out
        if token == "[":
            items = []
            while tokens[position] != "]":
                items.append(value())
                if tokens[position] == ",":
                    position += 1
            position += 1
            return items
        if token.startswith('"'):
            return token[1:-1]
        if token in ("true", "false"):
            return token == "true"
        if re.fullmatch(r"-?\d+(?:\.\d+)?", token):
            return float(token) if "." in token else int(token)
        return EXPRESSION

    return value()


def typescript_resources(text: str) -> dict[str, tuple[str, Any]]:
    found = {}
    for match in re.finditer(r'new gpuci\.(\w+)\(\s*"([^"]+)",\s*', text):
        literal = _balanced(text, match.end())
        found[match.group(2)] = (f"gpu-ci:index:{match.group(1)}", typescript_literal(literal))
    return found


def yaml_resources(path: Path) -> dict[str, tuple[str, Any]]:
    data = read_yaml.read(path, name=str(path), limits=STACK_FILE, schema=read_yaml.SAFE).data

    def computed(value: Any) -> Any:
        if isinstance(value, str) and value.startswith("${"):
            return EXPRESSION
        if isinstance(value, dict):
            return {k: computed(v) for k, v in value.items()}
        if isinstance(value, list):
            return [computed(v) for v in value]
        return value

    return {
        name: (resource["type"], computed(resource.get("properties", {})))
        for name, resource in data["resources"].items()
    }


def test_the_typescript_example_sets_what_the_schema_has() -> None:
    resources = typescript_resources(TYPESCRIPT.read_text(encoding="utf-8"))
    assert sorted(resources) == ["arc", "cluster", "workstation"]
    assert check(resources) == []


def test_the_yaml_example_sets_what_the_schema_has() -> None:
    resources = yaml_resources(YAML)
    assert sorted(resources) == ["cluster", "platform"]
    assert check(resources) == []
    outputs = read_yaml.read(YAML, name="yaml", limits=STACK_FILE, schema=read_yaml.SAFE).data
    spec = schema()["resources"]
    for ref in re.findall(r"\$\{(\w+)\.(\w+)\}", str(outputs["outputs"])):
        assert ref[1] in spec[resources[ref[0]][0]]["properties"], ref


@pytest.mark.parametrize(
    ("properties", "expected"),
    [
        ({"host": {"target": "local", "gpu": 1}}, ["c.host.gpu: no such property"]),
        ({"cluster": {}}, ["c.host: required, not given"]),
        (
            {"host": {"proxy": {"address": "a"}, "target": "ssh"}, "cluster": {}},
            ["c.host.proxy.user: required, not given"],
        ),
    ],
)
def test_the_check_finds_what_the_schema_does_not_take(
    properties: dict[str, Any], expected: list[str]
) -> None:
    """The check itself, on the TypeScript reader too."""
    assert check({"c": ("gpu-ci:index:GpuCluster", {"cluster": {}, **properties})}) == expected
    literal = 'x = new gpuci.GpuCluster("c", { host: { target: "local", gpu: 1 }, cluster: {} })'
    assert check(typescript_resources(literal)) == ["c.host.gpu: no such property"]
