"""The package schema: what the SDK's analyzer infers from the components, checked in as
`gpu_ci_package/schema.json`, valid against Pulumi's package metaschema, and described
everywhere a generated SDK shows documentation."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # dev dependency without stubs
import pytest

from core import read_json
from gpu_ci_package.provider import SCHEMA_FILE, SCHEMA_LIMITS, schema, schema_text

REPO = Path(__file__).resolve().parents[2]
METASCHEMA = Path("/work/shared/upstream/schemas/pulumi-v3.259.0/pulumi.json")
"""pulumi/pulumi pkg/codegen/schema/pulumi.json @ v3.259.0 (the newest stored tag; the SDK
is 3.272.0: /work/shared/upstream/README.md)."""
PACKAGE = REPO / "gpu_ci_package"


def test_the_checked_in_schema_is_the_analyzers() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema_text(), (
        "regenerate it: .venv/bin/python -m gpu_ci_package.provider"
    )


def _python_patterns(value: Any) -> Any:
    """The metaschema with its ECMA-262 named groups, `(?<name>...)`, in Python's syntax,
    `(?P<name>...)` (the JSON Schema `pattern` dialect; Python's `re` reads only its own)."""
    if isinstance(value, dict):
        return {
            k: v.replace("(?<", "(?P<")
            if k == "pattern" and isinstance(v, str)
            else _python_patterns(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_python_patterns(v) for v in value]
    return value


def _metaschema() -> Any:
    if not METASCHEMA.is_file():
        pytest.skip(f"{METASCHEMA} is not in this checkout's shared data")
    raw = read_json.read(METASCHEMA, name="pulumi.json", limits=SCHEMA_LIMITS)
    return _python_patterns(raw)


def test_the_schema_is_a_valid_pulumi_package_schema() -> None:
    metaschema = _metaschema()
    validator = jsonschema.Draft202012Validator(metaschema)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(schema())]
    assert errors == []


def test_a_broken_schema_is_refused_by_the_metaschema() -> None:
    """The check itself: a property type the metaschema does not allow fails it."""
    metaschema = _metaschema()
    broken = schema()
    broken["resources"]["gpu-ci:index:GpuCluster"]["inputProperties"]["host"] = {"type": "tuple"}
    assert list(jsonschema.Draft202012Validator(metaschema).iter_errors(broken))


def _properties(spec: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for token, resource in spec["resources"].items():
        out += [(f"{token} input {k}", v) for k, v in resource["inputProperties"].items()]
        out += [(f"{token} output {k}", v) for k, v in resource["properties"].items()]
    for token, typ in spec["types"].items():
        out += [(f"{token}.{k}", v) for k, v in typ.get("properties", {}).items()]
    return out


def test_every_input_output_and_type_is_described() -> None:
    spec = schema()
    undescribed = [name for name, prop in _properties(spec) if not prop.get("description")]
    undescribed += [t for t, v in spec["resources"].items() if not v.get("description")]
    undescribed += [t for t, v in spec["types"].items() if not v.get("description")]
    assert undescribed == []
    assert sorted(spec["resources"]) == [
        "gpu-ci:index:ArcRunnerScaleSets",
        "gpu-ci:index:GpuCluster",
        "gpu-ci:index:GpuRunnerHost",
        "gpu-ci:index:RecipePlatform",
    ]


def test_no_input_is_a_union_and_the_kubeconfig_is_an_output() -> None:
    """What another language cannot type is `Any` with its values described, never a
    union the analyzer refuses; the cluster's kubeconfig is an output (its secret-ness
    travels with its value: the schema has no per-output secret flag from the analyzer)."""
    spec = schema()
    cluster = spec["resources"]["gpu-ci:index:GpuCluster"]
    assert cluster["properties"]["kubeconfig"]["type"] == "string"
    assert "kubeconfig" in cluster["required"]
    anys = sorted(
        name
        for name, prop in _properties(spec)
        if prop.get("$ref") == "pulumi.json#/Any" and " output " not in name
    )
    assert anys == ["gpu-ci:index:ClusterInput.gpus"]


def test_the_analyzed_modules_keep_their_annotations_as_objects() -> None:
    """`from __future__ import annotations` would hand the analyzer strings it cannot
    read (every existing component module has it, so none is analyzed directly)."""
    future = [
        p.name
        for p in sorted(PACKAGE.glob("*.py"))
        if p.name not in {"build.py"}
        and any(
            isinstance(node, ast.ImportFrom) and node.module == "__future__"
            for node in ast.parse(p.read_text(encoding="utf-8")).body
        )
    ]
    assert future == []
