"""Each Helm release a planned stack registers, as `helm template` takes it.

The offline plan records every `kubernetes:helm.sh/v3:Release` with the inputs gpu-ci gave
pulumi-kubernetes (chart, version, namespace, values): those records, not a second reading
of the config, are what gets rendered, so the render is of exactly what gpu-ci passes.
pulumi-kubernetes hands them to the Helm library it embeds (Helm v3.20.2, provider/go.mod
of pulumi/pulumi-kubernetes @ 94977969): an install of the chart with `values` as the one
user values layer, the same as `helm template NAME CHART -n NS -f values`.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from core.errors import GpuCiError
from stacks.offline.engine.records import ProgramRun
from stacks.offline.engine.values import reveal

RELEASE = "kubernetes:helm.sh/v3:Release"
PLATFORM_PARENT = "gpu-ci:platform:RecipeReleases"


class ChartCheckError(GpuCiError):
    """A chart check cannot run as asked (a missing chart, helm failing, no version)."""


def run_tool(
    args: list[str], *, what: str, timeout: int, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """Run an upstream tool (helm, kubectl-validate) with `env` added to this environment;
    the finished process, or a ChartCheckError when it cannot start or runs past `timeout`."""
    try:
        return subprocess.run(
            args,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            env={**os.environ, **env},
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        raise ChartCheckError(f"{args[0]}: cannot run {what} ({err})") from None


class HelmRelease(BaseModel):
    """One release as the plan records it."""

    model_config = ConfigDict(frozen=True)

    stack: str
    resource: str
    """The Pulumi resource name (`platform-gpu-operator`)."""
    name: str
    """The Helm release name."""
    chart: str
    """The chart reference as given (`oci://.../gha-runner-scale-set`, `gpu-operator`)."""
    version: str
    namespace: str
    values: dict[str, Any]
    source: str
    """Where the program registered it (`file:line`)."""
    component: str | None = None
    """The recipe component it deploys (`RecipeReleases`' children), else None."""

    @property
    def chart_name(self) -> str:
        return self.chart.rstrip("/").rsplit("/", 1)[-1]

    @property
    def label(self) -> str:
        return f"{self.stack}/{self.resource} ({self.chart_name} {self.version})"


def releases_of(run: ProgramRun) -> list[HelmRelease]:
    """Every Helm release `run` registered, in registration order."""
    parents = {r.urn: r.type for r in run.registrations}
    found = []
    for reg in run.by_type(RELEASE):
        inputs = reg.inputs
        platform = parents.get(reg.parent) == PLATFORM_PARENT
        found.append(
            HelmRelease(
                stack=run.stack,
                resource=reg.name,
                name=str(inputs.get("name") or reg.name),
                chart=str(inputs["chart"]),
                version=str(inputs.get("version") or ""),
                namespace=str(inputs.get("namespace") or "default"),
                values=reveal(inputs.get("values") or {}),
                source=reg.source,
                component=str(inputs.get("name")) if platform else None,
            )
        )
    return found


def find_chart(release: HelmRelease, folders: list[Path]) -> Path | None:
    """The chart of `release` in one of `folders`: `<chart>-<version>/` (an unpacked chart,
    dependencies in its `charts/`) or `<chart>-<version>.tgz` (what `helm pull` and Helm's
    repository cache hold), the version with or without its `v`."""
    versions = dict.fromkeys(
        (release.version, release.version.removeprefix("v"), f"v{release.version}")
    )
    for folder in folders:
        for version in versions:
            stem = f"{release.chart_name}-{version}"
            if (folder / stem / "Chart.yaml").is_file():
                return folder / stem
            if (folder / f"{stem}.tgz").is_file():
                return folder / f"{stem}.tgz"
    return None


def kube_version(run: ProgramRun, runs: Mapping[str, ProgramRun]) -> str | None:
    """The Kubernetes version of the cluster `run` deploys to, as the program knows it: its
    own cluster's export (kind), its OKE cluster's input, or the stack it reads its cluster
    from (`clusterStack`, planned in `runs`)."""
    cluster = run.exports.get("cluster")
    if isinstance(cluster, Mapping) and cluster.get("kubernetesVersion"):
        return str(cluster["kubernetesVersion"])
    for reg in run.by_type("oci:ContainerEngine/cluster:Cluster"):
        if reg.inputs.get("kubernetesVersion"):
            return str(reg.inputs["kubernetesVersion"])
    for reg in run.by_type("pulumi:pulumi:StackReference"):
        # `STACK` or `ORGANIZATION/PROJECT/STACK` (a StackReference always has its name)
        other = runs.get(str(reg.inputs["name"]).rpartition("/")[2])
        if other is not None and other is not run:
            found = kube_version(other, runs)
            if found:
                return found
    return None
