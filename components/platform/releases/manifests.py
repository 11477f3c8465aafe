"""A component's `manifestFiles`, parsed into the objects RecipeReleases applies.

`pulumi_kubernetes.yaml.ConfigGroup` is not used: it parses YAML through the provider's
`kubernetes:yaml:decode` invoke and registers the objects inside an apply, so a preview (and
the in-process mocks) see no objects at all. Parsing here keeps every object a visible,
diffable resource with the component's namespace filled in.

Manifests must be plain Kubernetes YAML (one or more documents, `List` kinds expanded).
AICR's own catalog also ships Helm-templated manifests (`{{ .Values ... }}`); rendering them
needs the chart's template engine, so they are rejected with a message naming the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

from components.platform.releases.overrides import PlatformError
from recipes.catalogs.catalog import Catalog
from recipes.catalogs.yamlfiles import load_text_all
from recipes.model.overlays import ComponentRef

CLUSTER_SCOPED = frozenset(
    {
        "APIService",
        "ClusterIssuer",
        "ClusterPolicy",
        "ClusterRole",
        "ClusterRoleBinding",
        "ClusterTrainingRuntime",
        "CSIDriver",
        "CustomResourceDefinition",
        "GatewayClass",
        "IngressClass",
        "MutatingWebhookConfiguration",
        "Namespace",
        "NodeFeatureRule",
        "PersistentVolume",
        "PriorityClass",
        "RuntimeClass",
        "StorageClass",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "ValidatingWebhookConfiguration",
        "VolumeAttachment",
    }
)
"""Kinds without a namespace. Other kinds get the component's namespace when they name none."""

_TEMPLATE = re.compile(r"\{\{-?\s")


@dataclass(frozen=True)
class ManifestObject:
    """One Kubernetes object from a component's manifest file."""

    component: str
    source: str
    obj: dict[str, Any]

    @property
    def api_version(self) -> str:
        return str(self.obj["apiVersion"])

    @property
    def kind(self) -> str:
        return str(self.obj["kind"])

    @property
    def name(self) -> str:
        return str(self.obj["metadata"]["name"])

    @property
    def namespace(self) -> str | None:
        ns = self.obj["metadata"].get("namespace")
        return str(ns) if ns else None

    @property
    def type_token(self) -> str:
        """The pulumi-kubernetes type, e.g. `kubernetes:core/v1:ConfigMap`."""
        group_version = self.api_version if "/" in self.api_version else f"core/{self.api_version}"
        return f"kubernetes:{group_version}:{self.kind}"


def load_manifests(
    catalog: Catalog, ref: ComponentRef, files: list[str] | None = None
) -> list[ManifestObject]:
    """Every object in `ref`'s manifest files (or `files`, e.g. its `preManifestFiles`), in
    file order, namespaces filled in."""
    out: list[ManifestObject] = []
    for rel in ref.manifestFiles if files is None else files:
        if rel not in catalog.files:
            raise PlatformError(f"{ref.name}: manifest {rel} is not in the catalog")
        text = catalog.read_text(rel)  # the careful reader: inside the catalog, bounded
        if _TEMPLATE.search(text):
            raise PlatformError(
                f"{ref.name}: manifest {rel} is a Helm template ({{{{ ... }}}}); only plain "
                "Kubernetes YAML manifests are supported"
            )
        try:
            docs = load_text_all(text, rel)
        except yaml.YAMLError as exc:
            raise PlatformError(f"{ref.name}: manifest {rel}: malformed YAML: {exc}") from None
        for doc in docs:
            for obj in _expand(doc, rel, ref.name):
                out.append(ManifestObject(ref.name, rel, _namespaced(obj, ref.namespace)))
    return out


def _expand(doc: Any, rel: str, component: str) -> list[dict[str, Any]]:
    if doc is None:
        return []
    where = f"{component}: manifest {rel}"
    if not isinstance(doc, dict):
        raise PlatformError(f"{where}: expected a Kubernetes object, got {type(doc).__name__}")
    if str(doc.get("kind", "")).endswith("List") and "items" in doc:
        return [o for item in doc["items"] or [] for o in _expand(item, rel, component)]
    for field in ("apiVersion", "kind"):
        if not doc.get(field):
            raise PlatformError(f"{where}: an object has no {field}")
    metadata = doc.get("metadata")
    if not isinstance(metadata, dict) or not metadata.get("name"):
        raise PlatformError(f"{where}: {doc['kind']} has no metadata.name")
    return [doc]


def _namespaced(obj: dict[str, Any], namespace: str) -> dict[str, Any]:
    if obj["kind"] in CLUSTER_SCOPED or obj["metadata"].get("namespace") or not namespace:
        return obj
    return {**obj, "metadata": {**obj["metadata"], "namespace": namespace}}
