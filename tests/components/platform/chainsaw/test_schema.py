"""The preview-time schema is Chainsaw v0.2.15's own Test schema (the version the check Jobs
run), and gpu-ci's JSON-schema evaluator says what the `jsonschema` library says on it, for
every AICR and gpu-ci health check and broken variants of each."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # dev dependency without stubs
import pytest

from components.pins import CHECK_PINS
from components.platform.chainsaw.schema import SCHEMA_FILE, errors, first_error, load_schema
from components.platform.checks.health_checks import parse_health_test
from components.platform.platform_config import PlatformConfig
from components.platform.releases.overrides import PlatformError
from core import yaml_text
from recipes import PROJECT_CATALOG
from stacks.config.recipe import resolve_recipe
from tests.recipes.recipe_helpers import overlay, registry, write_files
from tools.chainsaw_schema import extract

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


def test_the_schema_is_chainsaw_v0_2_15s_own(upstream: Path) -> None:
    """The file of the tag the Jobs run (the shared copy of kyverno/chainsaw v0.2.15
    `.schemas/json/`) less its descriptions, every validating keyword kept; its README names
    that source."""
    assert CHECK_PINS.chainsaw_version == "v0.2.15"  # a new pin needs its schema here
    shared = upstream / "schemas" / f"chainsaw-{CHECK_PINS.chainsaw_version}" / SCHEMA_FILE.name
    assert SCHEMA_FILE.read_text(encoding="utf-8") == extract(shared)
    assert SCHEMA_FILE.stat().st_size < shared.stat().st_size / 5
    assert load_schema() == _drop_descriptions(json.loads(shared.read_text(encoding="utf-8")))
    assert "description" in load_schema()["properties"]["spec"]["properties"]
    readme = (SCHEMA_FILE.parent / "README.md").read_text(encoding="utf-8")
    assert "kyverno/chainsaw tag `v0.2.15` @ e166f775" in readme
    data = [p.name for p in SCHEMA_FILE.parent.iterdir() if p.suffix not in (".py", "")]
    assert sorted(data) == ["README.md", "test-chainsaw-v1alpha1.json"]  # beside the modules


def _drop_descriptions(node: Any) -> Any:
    """An independent walk, so the test does not trust the extractor's own: every
    `description` whose value is text (a property named `description` is a schema)."""
    if isinstance(node, dict):
        return {
            k: _drop_descriptions(v)
            for k, v in node.items()
            if not (k == "description" and isinstance(v, str))
        }
    return [_drop_descriptions(v) for v in node] if isinstance(node, list) else node


V0215: dict[str, Any] = {
    "fastNamespaceDeletion": True,
    "scenarios": [{"name": "a10", "bindings": [{"name": "gpus", "value": 1}]}],
}
"""`spec` keys of v0.2.15 that the old extract (chainsaw @ 2013d11b) refused."""


def _check(spec: Doc | None = None, entry: Doc | None = None) -> str:
    """A gpu-ci style health check with extra `spec` keys and `try` entry keys."""
    pods = {"apiVersion": "v1", "kind": "Pod", "metadata": {"namespace": "n"}}
    doc = {
        "apiVersion": "chainsaw.kyverno.io/v1alpha1",
        "kind": "Test",
        "metadata": {"name": "t"},
        "spec": {
            **(spec or {}),
            "steps": [{"name": "s", "try": [{"assert": {"resource": pods}, **(entry or {})}]}],
        },
    }
    return yaml_text.dump(doc)


def _plan(root: Path, check: str) -> list[str]:
    """The problems of resolving an `eks`/`a10` recipe that deploys component `app` with
    `check` as its registry health check (none: it plans)."""
    reg = registry("app")
    reg["components"][0]["healthCheck"] = {"assertFile": "checks/app/health-check.yaml"}  # type: ignore[index]
    refs = [{"name": "app", "type": "Helm", "source": "https://charts.example", "version": "1"}]
    files: dict[str, object] = {
        "registry.yaml": reg,
        "checks/app/health-check.yaml": check,
        "overlays/extra.yaml": overlay(
            "extra", criteria={"service": "eks", "accelerator": "a10"}, componentRefs=refs
        ),
    }
    config = PlatformConfig(service="eks", catalogs=[str(write_files(root, files))])
    prepared, problems = resolve_recipe(config, "a10")
    assert (prepared is None) == bool(problems)
    return [str(p) for p in problems]


@pytest.mark.parametrize("key", sorted(V0215))
def test_a_check_using_a_v0_2_15_key_plans(key: str, tmp_path: Path) -> None:
    check = _check(spec={key: V0215[key]})
    assert _plan(tmp_path, check) == []


def test_a_get_beside_an_assert_is_refused_by_the_allowlist_not_the_schema() -> None:
    """v0.2.15 knows `try[].get`; a health check still may not use it (read-only
    `assert` and `error` only, AICR validators/chainsaw/allowlist.go)."""
    doc = yaml_text.load(_check(entry={"get": {"apiVersion": "v1", "kind": "Pod"}}))
    assert first_error(doc) is None
    with pytest.raises(PlatformError) as caught:
        parse_health_test("app", "f.yaml", yaml_text.dump(doc))
    assert str(caught.value) == (
        "app: health check f.yaml: step 's' try: `get` is not allowed; health checks run "
        "read-only, with `assert` and `error` in `try` only (AICR validators/chainsaw/allowlist.go)"
    )
