"""The project catalog's health checks say what the rest of the catalog deploys."""

from __future__ import annotations

import re
from typing import Any

from components.pins import CHECK_PINS
from components.platform.chainsaw.documents import operations
from components.platform.checks.health_checks import parse_health_test
from components.platform.releases.runtime_patch import installed_runtimes
from core import yaml_text
from recipes import Catalog, RecipeResult

COMPONENTS = ("gpu-operator", "gpu-time-slicing", "kubeflow-trainer")


def _test(catalog: Catalog, component: str) -> dict[str, Any]:
    doc: dict[str, Any] = yaml_text.load(
        catalog.read_text(f"components/{component}/health-check.yaml")
    )
    return doc


def test_each_component_of_the_catalog_has_a_runnable_health_check(catalog: Catalog) -> None:
    for name in COMPONENTS:
        entry = catalog.registry[name]
        path = f"components/{name}/health-check.yaml"
        assert entry.healthCheck.assertFile == path
        test = parse_health_test(name, path, catalog.read_text(path))
        assert test.budget_s == 300  # AICR's own checks wait 5m


def test_trainer_check_names_the_runtimes_the_chart_installs(
    catalog: Catalog, recipe: RecipeResult
) -> None:
    trainer = recipe.component("kubeflow-trainer")
    assert trainer is not None
    values = yaml_text.load(catalog.read_text("components/kubeflow-trainer/values-gpu-ci.yaml"))
    wanted = {r.name for r in installed_runtimes(trainer.version, values)}
    asserted = {
        op.resource["metadata"]["name"]
        for op in operations(_test(catalog, "kubeflow-trainer"))
        if op.resource.get("kind") == "ClusterTrainingRuntime"
    }
    assert asserted == wanted
    namespaces = {
        op.resource["metadata"]["namespace"]
        for op in operations(_test(catalog, "kubeflow-trainer"))
        if (op.resource.get("metadata") or {}).get("namespace")
    }
    assert namespaces == {trainer.namespace}


def test_time_slicing_check_matches_its_config_map_and_the_operator_values(
    catalog: Catalog,
) -> None:
    (manifest,) = [
        yaml_text.load(catalog.read_text(rel))
        for rel in catalog.files
        if rel.startswith("components/gpu-time-slicing/manifests/")
    ]
    sharing = yaml_text.load(manifest["data"]["any"])["sharing"]["timeSlicing"]["resources"]
    (gpu,) = [r for r in sharing if r["name"] == "nvidia.com/gpu"]
    ops = {op.step: op.resource for op in operations(_test(catalog, "gpu-time-slicing"))}
    labels = ops["node-time-sliced"]["metadata"]["labels"]
    assert labels["nvidia.com/gpu.replicas"] == str(gpu["replicas"])
    assert ops["config-map-present"]["metadata"]["name"] == manifest["metadata"]["name"]
    for values_file in ("values-kind-a10.yaml", "values-oke-a10.yaml"):
        values = yaml_text.load(catalog.read_text(f"components/gpu-operator/{values_file}"))
        config = values.get("devicePlugin", {}).get("config")
        if config:
            assert ops["device-plugin-uses-it"]["spec"]["devicePlugin"]["config"] == config


def test_the_chainsaw_pin_is_one_release_by_digest() -> None:
    image = CHECK_PINS.chainsaw_image
    assert image.startswith(f"ghcr.io/kyverno/chainsaw:{CHECK_PINS.chainsaw_version}@sha256:")
    assert re.fullmatch(r"[^@]+@sha256:[0-9a-f]{64}", image)
