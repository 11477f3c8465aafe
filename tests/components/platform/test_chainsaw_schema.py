"""gpu-ci's JSON-schema evaluator says what the `jsonschema` library says, on Chainsaw's Test
schema, for every AICR and gpu-ci health check and broken variants of each."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # dev dependency without stubs
import pytest

from components.platform.chainsaw_schema import SCHEMA_FILE, errors, first_error, load_schema
from core import yaml_text
from recipes import PROJECT_CATALOG

Doc = dict[str, Any]
LIBRARY = jsonschema.Draft202012Validator(load_schema())


@pytest.fixture(scope="module")
def files(upstream: Path) -> list[Path]:
    """gpu-ci's health checks and every one of both shared AICR catalogs."""
    found = sorted(PROJECT_CATALOG.glob("components/*/health-check.yaml"))
    for catalog in ("aicr-v0.11.1", "aicr-main-2026-07-09"):
        found += sorted((upstream / catalog / "recipes" / "checks").glob("*/health-check.yaml"))
    assert len(found) >= 50
    return found


def _first_try(doc: Doc) -> Doc:
    """The first step with a `try` (one is added to a Test with no steps)."""
    steps = [s for s in doc["spec"]["steps"] if s.get("try")]
    if not steps:
        doc["spec"]["steps"].append({"try": [{"assert": {"resource": {}}}]})
        return _first_try(doc)
    step: Doc = steps[0]
    return step


def _typo(doc: Doc) -> None:
    entry = _first_try(doc)["try"][0]
    entry["asert"] = entry.pop("assert", entry.pop("error", {}))


def _two_operations(doc: Doc) -> None:
    entry = _first_try(doc)["try"][0]
    entry["error"] = entry["assert"] = {"resource": {"apiVersion": "v1", "kind": "Pod"}}


def _file_and_resource(doc: Doc) -> None:
    entry = _first_try(doc)["try"][0]
    entry.clear()
    entry["assert"] = {"file": "x.yaml", "resource": {"apiVersion": "v1", "kind": "Pod"}}


BREAKS: dict[str, Callable[[Doc], None]] = {
    "unknown operation": _typo,
    "two operations in one entry": _two_operations,
    "file and resource": _file_and_resource,
    "empty try": lambda d: _first_try(d).update({"try": []}),
    "use with try": lambda d: _first_try(d).update({"use": {"template": "t.yaml"}}),
    "wrong apiVersion": lambda d: d.update({"apiVersion": "chainsaw.kyverno.io/v1"}),
    "wrong kind": lambda d: d.update({"kind": "StepTemplate"}),
    "unknown top-level key": lambda d: d.update({"status": {}}),
    "no spec": lambda d: d.pop("spec"),
    "no steps": lambda d: d["spec"].pop("steps"),
    "steps not a list": lambda d: d["spec"].update({"steps": {"a": 1}}),
    "timeout not a string": lambda d: d["spec"].update({"timeouts": {"assert": 300}}),
    "unknown timeout": lambda d: d["spec"].update({"timeouts": {"asert": "5m"}}),
    "bad binding name": lambda d: d["spec"].update({"bindings": [{"name": "a b", "value": 1}]}),
    "binding without value": lambda d: d["spec"].update({"bindings": [{"name": "a"}]}),
    "bad propagation": lambda d: d["spec"].update({"deletionPropagationPolicy": "Now"}),
    "unknown metadata key": lambda d: d.setdefault("metadata", {}).update({"nam": "x"}),
    "label not a string": lambda d: d.setdefault("metadata", {}).update({"labels": {"a": 1}}),
    "catch with assert": lambda d: _first_try(d).update({"catch": [{"assert": {}}]}),
}


def _load(path: Path) -> Doc:
    doc: Doc = yaml_text.load(path.read_text(encoding="utf-8"))
    return doc


def test_every_health_check_is_valid_for_both(files: list[Path]) -> None:
    for path in files:
        doc = _load(path)
        assert list(LIBRARY.iter_errors(doc)) == [], path
        assert errors(doc, load_schema()) == [], path


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_every_break_of_every_health_check_is_invalid_for_both(
    name: str, files: list[Path]
) -> None:
    for path in files:
        doc = copy.deepcopy(_load(path))
        BREAKS[name](doc)
        library = [e.message for e in LIBRARY.iter_errors(doc)]
        ours = errors(doc, load_schema())
        assert bool(library) == bool(ours), (path, library, ours)
        assert library, (path, name)  # each break is one the schema refuses


def test_the_deepest_error_is_the_one_reported() -> None:
    doc = _load(PROJECT_CATALOG / "components/gpu-operator/health-check.yaml")
    _typo(doc)
    problem = first_error(doc)
    assert problem is not None
    assert str(problem).startswith("spec.steps[0].try[0].asert: unknown key (allowed: apply, ")
    doc = _load(PROJECT_CATALOG / "components/gpu-operator/health-check.yaml")
    doc["spec"]["timeouts"]["assert"] = 300
    assert str(first_error(doc)) == "spec.timeouts.assert: expected string, got integer"


def test_the_schema_is_chainsaws_test_schema() -> None:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert schema["properties"]["apiVersion"]["enum"] == ["chainsaw.kyverno.io/v1alpha1"]
    assert schema["properties"]["kind"]["enum"] == ["Test"]
    assert schema["additionalProperties"] is False
    operation = schema["properties"]["spec"]["properties"]["steps"]["items"]["properties"]["try"]
    assert len(operation["items"]["oneOf"]) == 15
    readme = (SCHEMA_FILE.parent / "README.md").read_text(encoding="utf-8")
    assert "kyverno/chainsaw/blob/2013d11b17a77de9e8469da08a43992de0f20128" in readme
