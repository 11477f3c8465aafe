"""A release rendered by Helm itself: `helm template` of the real chart with gpu-ci's values.

What a chart makes of its values is decided by its templates, so the oracle is Helm, not a
reading of values.yaml: each release is rendered from its complete chart (dependencies in
its `charts/`) with exactly the values the plan recorded, for the cluster's Kubernetes
version (`--kube-version`: `.Capabilities.KubeVersion` in templates) and the API versions
the stack's own charts add (`--api-versions`: a chart that asks
`.Capabilities.APIVersions.Has "monitoring.coreos.com/v1/ServiceMonitor"` sees what the
live cluster would show it). Helm runs in a scratch home, so the user's repositories and
registry logins play no part; a local chart needs neither.
"""

from __future__ import annotations

import functools
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.read_limits import RENDERED_CHART
from core.read_yaml import CORE, parse_all
from stacks.offline.charts.release import ChartCheckError, HelmRelease, run_tool

HELM_TIMEOUT_S = 300


@dataclass(frozen=True)
class RenderTarget:
    """Everything `helm template` is given, besides the values."""

    helm: Path
    chart: Path
    name: str
    namespace: str
    kube_version: str
    api_versions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rendered:
    """One render: Helm's exact output and the objects in it."""

    text: str

    @functools.cached_property
    def objects(self) -> list[dict[str, Any]]:
        docs = parse_all(self.text, name="helm template output", limits=RENDERED_CHART, schema=CORE)
        return [d for d in docs if isinstance(d, dict) and d.get("kind")]

    def find(self, kind: str, name: str | None = None) -> list[dict[str, Any]]:
        return [
            o
            for o in self.objects
            if o.get("kind") == kind and (name is None or o["metadata"].get("name") == name)
        ]


class RenderError(ChartCheckError):
    """Helm refused the chart with these values (its own message follows)."""


def target_for(release: HelmRelease, helm: Path, chart: Path, kube_version: str) -> RenderTarget:
    """`release` to render for Kubernetes `kube_version` (`v1.35.0` or `1.35.0`); the API
    versions of the stack's CRDs are added once its first renders show them."""
    return RenderTarget(
        helm, chart, release.name, release.namespace, kube_version.removeprefix("v")
    )


def render(target: RenderTarget, values: dict[str, Any], *, crds: bool = False) -> Rendered:
    """`helm template` of `target` with `values` (cached: the same inputs render once)."""
    return Rendered(_render(target, json.dumps(values, sort_keys=True), crds))


@functools.lru_cache(maxsize=512)
def _render(target: RenderTarget, values_json: str, crds: bool) -> str:
    with tempfile.TemporaryDirectory(prefix="gpu-ci-helm-") as scratch:
        values_file = Path(scratch) / "values.json"  # JSON is YAML: Helm reads it as given
        values_file.write_text(values_json, encoding="utf-8")
        args = [
            str(target.helm),
            "template",
            target.name,
            str(target.chart),
            "--namespace",
            target.namespace,
            "--kube-version",
            target.kube_version,
            "--values",
            str(values_file),
        ]
        args += [f"--api-versions={api}" for api in target.api_versions]
        args += ["--include-crds"] if crds else []
        home = {
            f"HELM_{what}_HOME": str(Path(scratch) / what.lower())
            for what in ("CACHE", "CONFIG", "DATA")
        }
        done = run_tool(args, what="helm", timeout=HELM_TIMEOUT_S, env=home)
    if done.returncode != 0:
        raise RenderError(" ".join(done.stderr.split()) or f"helm exited {done.returncode}")
    return done.stdout


def api_versions_of(objects: list[dict[str, Any]]) -> tuple[str, ...]:
    """`group/version` and `group/version/Kind` of every CRD in `objects`, as
    `--api-versions` takes them (what a cluster with those CRDs would report)."""
    found: set[str] = set()
    for obj in objects:
        if obj.get("kind") != "CustomResourceDefinition":
            continue
        spec = obj.get("spec") or {}
        kind = (spec.get("names") or {}).get("kind")
        for version in spec.get("versions") or []:
            if version.get("served", True):
                group_version = f"{spec.get('group')}/{version.get('name')}"
                found |= {group_version, f"{group_version}/{kind}"} if kind else {group_version}
    return tuple(sorted(found))
