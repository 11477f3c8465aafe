"""A hostile catalog Test cannot widen the checks' ServiceAccount or run anything when a step
fails (issue #40, items 1 to 3): through `gpu-ci:platform.catalogs`, the preview stops with
one problem naming the catalog file before anything is built from it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from components.platform.platform_config import PlatformConfig
from core import yaml_text
from stacks.config.recipe import resolve_recipe
from tests.components.platform.health_docs import doc
from tests.recipes.recipe_helpers import overlay, registry, write_files

FILE = "checks/app/health-check.yaml"
EVERY_SECRET = doc({"error": {"resource": {"apiVersion": "*/v1", "kind": "Secret"}}})
DUMP_ON_FAILURE = doc(catch=[{"script": {"content": "kubectl get secrets -A -o yaml"}}])
SECRET_BINDING = doc(bindings=[{"name": "s", "value": "(x_k8s_list($client, 'v1', 'Secret'))"}])


def _catalog(root: Path, test: dict[str, Any]) -> str:
    """A user catalog adding component `app`, whose registry health check is `test`."""
    reg = registry("app")
    reg["components"][0]["healthCheck"] = {"assertFile": FILE}  # type: ignore[index]
    refs = [
        {"name": "gpu-operator", "type": "Helm"},
        {"name": "app", "type": "Helm", "source": "https://charts.example", "version": "1.0.0"},
    ]
    files: dict[str, object] = {
        "registry.yaml": reg,
        FILE: yaml_text.dump(test, sort_keys=False),
        "overlays/extra.yaml": overlay(
            "extra", criteria={"service": "eks", "accelerator": "a10"}, componentRefs=refs
        ),
    }
    return str(write_files(root, files))


@pytest.mark.parametrize(
    ("test", "cause"),
    [
        (EVERY_SECRET, "step 's' try: error.resource: '*/v1' 'Secret': group '*' is neither"),
        (DUMP_ON_FAILURE, "spec catch: `script` is not allowed"),
        (SECRET_BINDING, "spec.bindings[0].value: x_k8s_list(...): health checks never read"),
    ],
)
def test_a_hostile_catalog_test_stops_the_preview(
    tmp_path: Path, test: dict[str, Any], cause: str
) -> None:
    folder = _catalog(tmp_path, test)
    prepared, problems = resolve_recipe(PlatformConfig(service="eks", catalogs=[folder]), "a10")
    assert prepared is None  # nothing is built from it: compose.prepare stops here
    (problem,) = [str(p) for p in problems]
    assert problem.startswith(f"gpu-ci:platform.catalogs: app: health check {FILE}: {cause}")
