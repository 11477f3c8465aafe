"""Chainsaw v0.2.15 itself (`chainsaw lint test`, the image the check Jobs run) accepts every
Chainsaw Test gpu-ci renders or reads, refuses what it should, and agrees with the preview
validator (`chainsaw/schema.py`) on each.

What gpu-ci renders: the health-check ConfigMaps of every example stack's offline plan, the
generated checks in all their forms (operator-health, expected-resources of every kind it
knows, robust-controller, gpu-count shared and multi-GPU), and every health check of the
project's catalog and both shared AICR catalogs. Where the lint and loading a Test differ
(a `metadata` timestamp), loading it (`chainsaw test`) decides.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from components.platform.chainsaw.schema import first_error
from components.platform.checks.aicr_validators import EXPECTED_KINDS
from components.platform.checks.gpu_count import GpuExpectation
from components.platform.checks.jobs import TEST_FILE
from components.platform.checks.plan import gpu_checks, plan_checks
from components.platform.releases.gpu_sharing import GpuSharing
from core import yaml_text
from recipes import PROJECT_CATALOG, Catalog, RecipeResult
from recipes.model.overlays import ExpectedResource
from stacks.offline.plan import REPO, plan_run
from stacks.offline.stack_file.read import stacks_here
from tests.components.platform.chainsaw.test_schema import BREAKS, V0215
from tests.components.platform.platform_helpers import project_recipe
from tests.upstream_tools import run_tool, tool

Rendered = dict[str, str]
CONFIG_MAP = "kubernetes:core/v1:ConfigMap"
SHARED = GpuSharing("timeSlicing", 2, "gpu-operator", "devicePlugin.config", "cfg", "ts")


def _planned() -> Iterator[tuple[str, str]]:
    for stack in stacks_here(REPO):
        for reg in plan_run(stack).registrations:
            data = reg.inputs.get("data") or {} if reg.type == CONFIG_MAP else {}
            if TEST_FILE in data:
                yield f"stack {stack}: {reg.name}", data[TEST_FILE]


def _generated(recipe: RecipeResult) -> Iterator[tuple[str, str]]:
    trainer = recipe.component("kubeflow-trainer")
    assert trainer is not None
    trainer.expectedResources = [ExpectedResource(kind=k, name="x") for k in EXPECTED_KINDS]
    for check in plan_checks(recipe, recipe.componentRefs).checks:
        if check.kind == "chainsaw":
            yield f"generated {check.name}", check.test
    for label, expected, sharing in (
        ("multi-gpu", GpuExpectation(2, multi=True, per_node=2), None),
        ("time-sliced", GpuExpectation(1, multi=False, per_node=1), SHARED),
    ):
        (count, *_), _ = gpu_checks(expected, sharing, ("gpu-operator",))
        yield f"generated {count.name} ({label})", count.test


def _files(upstream: Path) -> Iterator[tuple[str, str]]:
    paths = sorted(PROJECT_CATALOG.glob("components/*/health-check.yaml"))
    for catalog in ("aicr-v0.11.1", "aicr-main-2026-07-09"):
        paths += sorted((upstream / catalog / "recipes" / "checks").glob("*/health-check.yaml"))
    for path in paths:
        yield str(path), path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def rendered(upstream: Path, catalog: Catalog) -> Rendered:
    found = dict([*_planned(), *_generated(project_recipe(catalog)), *_files(upstream)])
    assert sum(k.startswith("stack ") for k in found) >= 15
    assert sum(k.startswith("generated ") for k in found) >= 5
    return found


def lint(folder: Path, text: str) -> tuple[bool, str]:
    """`chainsaw lint test -f FILE` on `text` (written into `folder`): (valid, its output)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / TEST_FILE
    path.write_text(text, encoding="utf-8")
    done = run_tool("chainsaw", "lint", "test", "-f", path)
    output = done.stdout + done.stderr
    valid = done.returncode == 0 and "The document is valid" in output
    return valid, output


def test_every_test_gpu_ci_renders_passes_chainsaws_own_lint(
    rendered: Rendered, tmp_path: Path
) -> None:
    tool("chainsaw")  # skips (or fails under CI) here, not in a worker
    names = sorted(rendered)
    with ThreadPoolExecutor(max_workers=4) as pool:  # one process each: run a few at once
        results = pool.map(lambda i: lint(tmp_path / str(i), rendered[names[i]]), range(len(names)))
        refused = {
            name: out for name, (valid, out) in zip(names, results, strict=True) if not valid
        }
    assert refused == {}
    for name in names:
        assert first_error(yaml_text.load(rendered[name])) is None, name  # the preview agrees


def test_the_project_ships_the_schema_the_linter_embeds(tmp_path: Path) -> None:
    """Every key v0.2.15 added over the old extract is accepted by both."""
    for key, value in V0215.items():
        doc = _minimal()
        doc["spec"][key] = value
        assert lint(tmp_path, yaml_text.dump(doc))[0], key
        assert first_error(doc) is None, key


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_the_lint_fails_where_the_preview_refuses(name: str, tmp_path: Path) -> None:
    doc = _minimal()
    BREAKS[name](doc)
    valid, output = lint(tmp_path, yaml_text.dump(doc))
    assert not valid, output
    if name == "wrong apiVersion":  # the lint looks for a schema of that version
        assert "Error: open test-chainsaw-v1.json: file does not exist" in output
    else:
        assert "The schema is not valid. See errors:\n- " in output
    assert first_error(doc) is not None


def test_a_get_alone_in_try_is_refused_by_both(tmp_path: Path) -> None:
    """v0.2.15 lists `get` among an operation's properties but not in its `oneOf`
    (`pkg/apis/v1alpha1/operation.go`): a `try` entry holding only `get` is invalid."""
    doc = _minimal()
    doc["spec"]["steps"][0]["try"] = [{"get": {"apiVersion": "v1", "kind": "Pod"}}]
    valid, output = lint(tmp_path, yaml_text.dump(doc))
    assert not valid
    assert "Must validate one and only one schema (oneOf)" in output
    assert str(first_error(doc)).startswith("spec.steps[0].try[0]: needs exactly one of apply,")


def _minimal() -> dict[str, Any]:
    return copy.deepcopy(
        {
            "apiVersion": "chainsaw.kyverno.io/v1alpha1",
            "kind": "Test",
            "metadata": {"name": "t"},
            "spec": {
                "steps": [
                    {
                        "name": "s",
                        "try": [{"assert": {"resource": {"apiVersion": "v1", "kind": "Pod"}}}],
                    }
                ]
            },
        }
    )


TIMES = [
    "2026-01-31T12:00:00Z",
    "2026-01-31T12:00:00.123+02:00",
    "2026-01-31T12:00:00,5Z",
    "2026-01-31T12:00:00+24:00",
    "0000-01-01T00:00:00Z",
    "2024-02-29T00:00:00Z",
    "yesterday",
    "2026-01-31",  # the lint's format checker takes a date; loading the Test does not
    "2026-01-31t12:00:00Z",
    "2026-01-31T12:00:00",
    "2026-02-30T00:00:00Z",
    "2026-01-31T24:00:00Z",
    "2026-01-31T12:00:60Z",
    "2026-01-31T12:00:00+25:00",
]


def test_a_timestamp_chainsaw_cannot_load_is_refused_at_preview(tmp_path: Path) -> None:
    """`metadata` timestamps (`format: date-time`): what `chainsaw test` fails to load (its
    `metav1.Time`) the preview refuses, and the rest it accepts."""
    loads = {}
    for index, when in enumerate(TIMES):
        doc = _minimal()
        doc["metadata"]["creationTimestamp"] = when
        folder = tmp_path / str(index)
        folder.mkdir()
        (folder / TEST_FILE).write_text(yaml_text.dump(doc), encoding="utf-8")
        done = run_tool("chainsaw", "test", "--test-dir", folder, "--no-cluster", "--no-color")
        loads[when] = "Error: failed to parse document" not in done.stdout + done.stderr
        assert (first_error(doc) is None) is loads[when], when
    assert list(loads.values()) == [True] * 6 + [False] * 8
