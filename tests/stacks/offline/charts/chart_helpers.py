"""Helm and kubectl-validate, the pinned upstream tools, as the tests call them."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from stacks.offline.charts.render import Rendered, RenderTarget, render
from stacks.offline.charts.validate import validate
from tests.upstream_tools import tool

KUBERNETES = "1.35.0"
"""kind 0.31.0's default node image (components/cluster/node_images.py): the dev stacks'."""


def render_chart(
    chart: Path,
    values: dict[str, Any],
    *,
    name: str = "release",
    namespace: str = "default",
    kube_version: str = KUBERNETES,
) -> Rendered:
    """`helm template` of `chart` with `values`, as a release `name` in `namespace`."""
    return render(RenderTarget(tool("helm"), chart, name, namespace, kube_version), values)


def problems_of(
    objects: list[dict[str, Any]], upstream: Path, kube_version: str = KUBERNETES
) -> list[str]:
    """kubectl-validate's verdict on `objects`: one line per invalid object (CRDs from the
    upstream folder and any among the objects)."""
    pairs = [("test", obj) for obj in objects]
    return validate(tool("kubectl-validate"), pairs, kube_version, [upstream / "crds"])


def list_map_keys(schema: Any, field: str) -> set[tuple[str, ...]]:
    """The `x-kubernetes-list-map-keys` of every property named `field` in a CRD schema."""
    found: set[tuple[str, ...]] = set()
    if isinstance(schema, dict):
        for name, sub in (schema.get("properties") or {}).items():
            if name == field and sub.get("x-kubernetes-list-type") == "map":
                found.add(tuple(sub["x-kubernetes-list-map-keys"]))
        for value in schema.values():
            found |= list_map_keys(value, field)
    elif isinstance(schema, list):
        for value in schema:
            found |= list_map_keys(value, field)
    return found


def _merge_by(key: str, live: list[dict[str, Any]], applied: list[dict[str, Any]]) -> None:
    """Server-side apply of a list-map: applied items merge into the live item of the same
    key, or are appended (only the keys the CRD declares, asserted below)."""
    for item in applied:
        match = next((i for i in live if i.get(key) == item[key]), None)
        if match is None:
            live.append(copy.deepcopy(item))
        else:
            for field, value in item.items():
                if isinstance(value, list) and field in ("volumes", "containers"):
                    _merge_by("name", match.setdefault(field, []), value)
                elif field == "volumeMounts":
                    _merge_by("mountPath", match.setdefault(field, []), value)
                elif field == "template":
                    pod = match["template"]["spec"]["template"]["spec"]
                    patch = value["spec"]["template"]["spec"]
                    pod["runtimeClassName"] = patch["runtimeClassName"]
                    _merge_by("name", pod.setdefault("volumes", []), patch["volumes"])
                    _merge_by("name", pod["containers"], patch["containers"])
                elif field != key:
                    match[field] = value


def patched_runtime(runtime: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """A ClusterTrainingRuntime with a runtime patch applied as server-side apply applies it
    over the CRD's list-maps (replicatedJobs, containers and volumes by name, volumeMounts by
    mountPath: `list_map_keys` shows the CRD says so)."""
    merged = copy.deepcopy(runtime)
    _merge_by(
        "name",
        merged["spec"]["template"]["spec"]["replicatedJobs"],
        patch["spec"]["template"]["spec"]["replicatedJobs"],
    )
    return merged
