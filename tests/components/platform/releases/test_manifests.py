"""Manifest files: parsed objects, namespaces, rejected templates, and why not ConfigGroup."""

from __future__ import annotations

from pathlib import Path

import pulumi
import pulumi_kubernetes as k8s
import pytest
import yaml

from components.platform.releases.manifests import load_manifests
from components.platform.releases.overrides import PlatformError
from recipes import Catalog, RecipeResult, load_catalog
from recipes.model.overlays import ComponentRef
from stacks.offline.engine.mocks import run_program
from tests.components.platform.platform_helpers import KUBECONFIG
from tests.recipes.recipe_helpers import WriteCatalog, registry


def _catalog(write_catalog: WriteCatalog, text: str) -> Catalog:
    files: dict[str, object] = {"registry.yaml": registry(), "components/c/manifests/m.yaml": text}
    return load_catalog([write_catalog(files)])


REF = ComponentRef(name="c", namespace="ns-c", manifestFiles=["components/c/manifests/m.yaml"])


def test_project_manifest_is_the_upstream_time_slicing_config(
    catalog: Catalog, recipe: RecipeResult, upstream: Path
) -> None:
    ref = recipe.component("gpu-time-slicing")
    assert ref is not None
    (obj,) = load_manifests(catalog, ref)
    upstream_doc = yaml.safe_load(
        (upstream / "kubeflow-trainer" / "gpu-time-slicing.yml").read_text(encoding="utf-8")
    )
    assert obj.obj["data"] == upstream_doc["data"]
    assert obj.namespace == "gpu-operator"
    assert obj.type_token == "kubernetes:core/v1:ConfigMap"


def test_documents_lists_and_scopes(write_catalog: WriteCatalog) -> None:
    text = (
        "apiVersion: v1\nkind: List\nitems:\n"
        "- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n"
        "- {apiVersion: v1, kind: ConfigMap, metadata: {name: b, namespace: other}}\n"
        "---\n"
        "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: nvidia}\n"
        "handler: nvidia\n"
        "---\n"
    )
    objs = load_manifests(_catalog(write_catalog, text), REF)
    assert [(o.kind, o.name, o.namespace) for o in objs] == [
        ("ConfigMap", "a", "ns-c"),
        ("ConfigMap", "b", "other"),
        ("RuntimeClass", "nvidia", None),
    ]
    assert objs[2].type_token == "kubernetes:node.k8s.io/v1:RuntimeClass"


def test_aicr_helm_templated_manifests_are_rejected(upstream: Path) -> None:
    aicr = load_catalog([upstream / "aicr-v0.11.1" / "recipes"])
    ref = ComponentRef(
        name="gpu-operator",
        namespace="gpu-operator",
        manifestFiles=["components/gpu-operator/manifests/dcgm-exporter.yaml"],
    )
    with pytest.raises(PlatformError, match=r"dcgm-exporter.yaml is a Helm template"):
        load_manifests(aicr, ref)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- a\n", "expected a Kubernetes object, got list"),
        ("kind: ConfigMap\nmetadata: {name: a}\n", "an object has no apiVersion"),
        ("apiVersion: v1\nkind: ConfigMap\n", "ConfigMap has no metadata.name"),
        ("apiVersion: v1\nkind: [\n", "malformed YAML"),
    ],
)
def test_bad_manifests_name_the_component_and_file(
    write_catalog: WriteCatalog, text: str, message: str
) -> None:
    with pytest.raises(
        PlatformError, match=f"c: manifest components/c/manifests/m.yaml.*{message}"
    ):
        load_manifests(_catalog(write_catalog, text), REF)


def test_config_group_cannot_run_under_the_mocks(tmp_path: Path) -> None:
    """Why manifests are parsed here: ConfigGroup decodes YAML through a provider invoke."""

    def program() -> None:
        provider = k8s.Provider("kind", kubeconfig=KUBECONFIG)
        k8s.yaml.ConfigGroup(
            "cg",
            yaml=["apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"],
            opts=pulumi.ResourceOptions(provider=provider),
        )

    with pytest.raises(Exception, match="kubernetes:yaml:decode"):
        run_program(program, project="gpu-ci", stack="cg", config={}, preview=False)
