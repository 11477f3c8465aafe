"""A health check that cannot run is one error naming the component and the file, at
preview, before anything registers; one that can is read for its RBAC and timeout."""

from __future__ import annotations

from pathlib import Path

import pytest

from components.platform.chainsaw.documents import budget_s, duration_s, go_duration
from components.platform.chainsaw.reads import Read, plural, read_of
from components.platform.checks.health_checks import INLINE, parse_health_test, source_of
from components.platform.platform_config import PlatformConfig
from components.platform.releases.overrides import PlatformError
from recipes import Catalog, RecipeResult
from stacks.config.recipe import resolve_recipe
from tests.recipes.recipe_helpers import overlay, registry, write_files

HEAD = "apiVersion: chainsaw.kyverno.io/v1alpha1\nkind: Test\nmetadata: {name: t}\n"


def _test(*ops: str, block: str = "try") -> str:
    body = "".join(f"        - {op}\n" for op in ops)
    return f"{HEAD}spec:\n  steps:\n    - name: s\n      {block}:\n{body}"


POD = "assert: {resource: {apiVersion: v1, kind: Pod, metadata: {namespace: n}}}"


def _refused(text: str) -> str:
    with pytest.raises(PlatformError) as caught:
        parse_health_test("app", "checks/app/health-check.yaml", text)
    return str(caught.value)


def test_a_valid_check_gives_its_reads_and_budget() -> None:
    text = _test(
        POD,
        "error: {resource: {apiVersion: nvidia.com/v1, kind: ClusterPolicy}, timeout: 90s}",
    )
    test = parse_health_test("app", "f.yaml", text)
    assert test.reads == (Read("", "pods"), Read("nvidia.com", "clusterpolicies"))
    assert test.budget_s == 90
    assert test.name == "t"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: [", "is not YAML: while parsing a flow node"),
        (f"{HEAD}---\n{HEAD}", "expected one Chainsaw Test document, found 2"),
        (
            HEAD,
            "is not a valid Chainsaw Test (chainsaw.kyverno.io/v1alpha1 schema, "
            "components/platform/chainsaw/): spec: is required",
        ),
        (_test("asert: {resource: {}}"), "spec.steps[0].try[0].asert: unknown key"),
        (
            _test("script: {content: kubectl delete ns x}"),
            "step 's' try: `script` is not allowed; health checks run read-only, with "
            "`assert` and `error` in `try` only (AICR validators/chainsaw/allowlist.go)",
        ),
        (_test("podLogs: {selector: a=b}", block="catch"), "step 's' catch: `podLogs` is not"),
        (
            f"{HEAD}spec:\n  steps:\n    - use: {{template: t.yaml}}\n",
            "spec.steps[0] uses a step template",
        ),
        (_test("assert: {file: pod.yaml}"), "assert.file is not supported; inline the resource"),
        (
            _test("assert: {resource: {apiVersion: v1, kind: ($kind)}}"),
            "assert.resource needs a literal apiVersion and kind (the check's read-only RBAC "
            "is derived from them) [given: 'v1', '($kind)']",
        ),
        (_test("error: {resource: {apiVersion: v1, kind: Secret}}"), "never read Secret"),
    ],
)
def test_a_check_that_cannot_run_is_one_error_naming_component_and_file(
    text: str, message: str
) -> None:
    error = _refused(text)
    assert error.startswith("app: health check checks/app/health-check.yaml")
    assert message in error
    assert "\n" not in error


def test_kinds_name_their_resources_as_the_api_server_guesses() -> None:
    assert [plural(k) for k in ("ClusterPolicy", "Endpoints", "Ingress", "Node")] == [
        "clusterpolicies",
        "endpoints",
        "ingresses",
        "nodes",
    ]
    assert read_of("apps/v1", "DaemonSet") == Read("apps", "daemonsets")
    assert read_of("v1", "Pod") == Read("", "pods")


def test_durations_are_go_durations() -> None:
    assert [duration_s(d) for d in ("5m", "1m30s", "250ms", "1h", "5", "", "m")] == [
        300,
        90,
        0.25,
        3600,
        None,
        None,
        None,
    ]
    assert [go_duration(s) for s in (300, 90, 45, 0)] == ["5m", "1m30s", "45s", "0s"]
    assert budget_s({"spec": {"steps": []}}) is None
    step_timeouts = {
        "spec": {"timeouts": {"assert": "1m"}, "steps": [{"timeouts": {"error": "2m"}}]}
    }
    assert budget_s(step_timeouts) == 120


def test_the_source_is_the_registry_file_unless_an_overlay_wrote_the_asserts(
    catalog: Catalog, recipe: RecipeResult
) -> None:
    operator = recipe.component("gpu-operator")
    assert operator is not None
    assert source_of(catalog, operator) == "components/gpu-operator/health-check.yaml"
    operator.healthCheckAsserts += "# changed\n"
    assert source_of(catalog, operator) == INLINE
    assert source_of(None, operator) == INLINE


def _catalog(root: Path, app_check: str) -> str:
    """A catalog adding component `app` (with `app_check` as its registry health check) to
    an `eks`/`a10` overlay that also deploys the GPU operator."""
    reg = registry("app")
    reg["components"][0]["healthCheck"] = {"assertFile": "checks/app/health-check.yaml"}  # type: ignore[index]
    refs = [
        {"name": "gpu-operator", "type": "Helm"},
        {"name": "app", "type": "Helm", "source": "https://charts.example", "version": "1.0.0"},
    ]
    files: dict[str, object] = {
        "registry.yaml": reg,
        "checks/app/health-check.yaml": app_check,
        "overlays/extra.yaml": overlay(
            "extra", criteria={"service": "eks", "accelerator": "a10"}, componentRefs=refs
        ),
    }
    return str(write_files(root, files))


def test_an_invalid_check_stops_the_preview_with_one_problem(tmp_path: Path) -> None:
    folder = _catalog(tmp_path, _test("asert: {resource: {}}"))
    prepared, problems = resolve_recipe(PlatformConfig(service="eks", catalogs=[folder]), "a10")
    assert prepared is None  # nothing is built from it: compose.prepare stops here
    (problem,) = [str(p) for p in problems]
    assert problem.startswith(
        "gpu-ci:platform.catalogs: app: health check checks/app/health-check.yaml is not a "
        "valid Chainsaw Test"
    )
    assert "spec.steps[0].try[0].asert: unknown key" in problem


def test_a_valid_check_of_an_added_component_resolves(tmp_path: Path) -> None:
    folder = _catalog(tmp_path, _test(POD))
    prepared, problems = resolve_recipe(PlatformConfig(service="eks", catalogs=[folder]), "a10")
    assert problems == []
    assert prepared is not None
