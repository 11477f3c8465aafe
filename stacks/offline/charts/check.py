"""`python -m stacks check-charts`: every Helm release of a planned stack, rendered by Helm
from its real chart and checked, with nothing deployed.

Per stack: each release the plan records is rendered (`render`) for the cluster's
Kubernetes version, with the API versions of the CRDs the stack's own charts install (one
render of them all first, CRDs included, gives those); then

- every value gpu-ci passes must change what Helm renders (`dead_values`): one that
  does not is a problem at the key that set it (`value_keys`), with a did-you-mean
  from the chart's own keys (`keys`), except a recipe value that only this stack turns
  off (a warning: `dead_values`);
- with a validator, every rendered object must be valid for that Kubernetes version, CRDs
  included (`validate`).

A release whose chart is in none of the folders is listed as not checked, never guessed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from components.platform.chart_values.paths import Segment
from components.platform.chart_values.paths import render as render_path
from stacks.offline.charts.dead_values import dead_leaves
from stacks.offline.charts.keys import chart_keys
from stacks.offline.charts.release import (
    HelmRelease,
    find_chart,
    kube_version,
    releases_of,
)
from stacks.offline.charts.render import (
    Rendered,
    RenderError,
    RenderTarget,
    api_versions_of,
    render,
    target_for,
)
from stacks.offline.charts.validate import validate
from stacks.offline.charts.value_keys import ValueSources, value_key
from stacks.offline.engine.records import ProgramRun


@dataclass(frozen=True)
class ChartTools:
    """What the check runs and reads: Helm, the chart folders, optionally a validator."""

    helm: Path
    charts: tuple[Path, ...]
    validator: Path | None = None
    crd_folders: tuple[Path, ...] = ()
    dead_values: bool = True


@dataclass
class ReleaseRender:
    release: HelmRelease
    target: RenderTarget
    rendered: Rendered


@dataclass
class StackCharts:
    """What the check found for one stack."""

    stack: str
    kube_version: str | None = None
    renders: list[ReleaseRender] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    """Recipe values dead in this stack only: something the stack sets turns them off."""
    unchecked: list[str] = field(default_factory=list)


def render_stack(run: ProgramRun, runs: Mapping[str, ProgramRun], tools: ChartTools) -> StackCharts:
    """Every release of `run` rendered as its cluster would install it."""
    found = StackCharts(run.stack, kube_version(run, runs))
    releases = releases_of(run)
    if not releases:
        return found
    if found.kube_version is None:
        found.problems.append(
            f"{run.stack}: the plan says no Kubernetes version for its cluster, so no chart "
            "can be rendered for it"
        )
        return found
    targets: list[tuple[HelmRelease, RenderTarget]] = []
    for release in releases:
        chart = find_chart(release, list(tools.charts))
        if chart is None:
            found.unchecked.append(
                f"{release.label}: no {release.chart_name}-{release.version}/ or .tgz in "
                f"{', '.join(map(str, tools.charts))} (`helm pull {release.chart} --version "
                f"{release.version}` there)"
            )
            continue
        targets.append((release, target_for(release, tools.helm, chart, found.kube_version)))
    first = _rendered(found, _each(targets))
    apis = api_versions_of([o for _, _, done in first for o in done.objects])
    if apis:
        again = [(release, replace(target, api_versions=apis)) for release, target, _ in first]
        first = _rendered(found, _each(again))
    found.renders = [ReleaseRender(release, target, done) for release, target, done in first]
    return found


Attempt = tuple[HelmRelease, RenderTarget, Rendered | RenderError]


def _each(targets: list[tuple[HelmRelease, RenderTarget]]) -> list[Attempt]:
    """Each release rendered (CRDs included), Helm runs side by side; an error in its place."""

    def one(item: tuple[HelmRelease, RenderTarget]) -> Attempt:
        release, target = item
        try:
            return release, target, render(target, release.values, crds=True)
        except RenderError as err:
            return release, target, err

    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        return list(pool.map(one, targets))


def _rendered(
    found: StackCharts, attempts: list[Attempt]
) -> list[tuple[HelmRelease, RenderTarget, Rendered]]:
    """The renders Helm made; a problem of `found` at each release it refused."""
    done: list[tuple[HelmRelease, RenderTarget, Rendered]] = []
    for release, target, result in attempts:
        if isinstance(result, RenderError):
            found.problems.append(f"{release.label}: helm template refuses it: {result}")
        else:
            done.append((release, target, result))
    return done


def check_stack(
    run: ProgramRun,
    runs: Mapping[str, ProgramRun],
    tools: ChartTools,
    sources: ValueSources,
) -> StackCharts:
    """Render, then look for dead values and invalid objects (see the module docstring)."""
    found = render_stack(run, runs, tools)
    if tools.dead_values:
        for item in found.renders:
            problems, warnings = dead_values(item, sources, tools.helm)
            found.problems += problems
            found.warnings += warnings
    if tools.validator is not None and found.renders and found.kube_version:
        objects = [(r.release.label, o) for r in found.renders for o in r.rendered.objects]
        found.problems += validate(
            tools.validator, objects, found.kube_version, list(tools.crd_folders)
        )
    return found


def dead_values(
    item: ReleaseRender, sources: ValueSources, helm: Path
) -> tuple[list[str], list[str]]:
    """(problems, warnings): one per value of the release that changes nothing Helm renders.

    A path the chart does not have is always a problem (a typo). A path it has is a problem
    where this stack's config or gpu-ci's code sets it, and a warning where the recipe does:
    the recipe's values serve every stack that deploys it, and a value dead here is live
    where the stack does not turn its feature off (multi-gpu clears the device plugin's
    config name, so the recipe's `devicePlugin.config.default` prints nowhere)."""
    release, target = item.release, item.target

    def again(values: dict[str, Any]) -> Rendered:
        return render(target, values, crds=True)

    problems: list[str] = []
    warnings: list[str] = []
    keys = chart_keys(helm, target.chart, release.version)
    for leaf in dead_leaves(release.values, again, item.rendered):
        key = value_key(sources, release, leaf.path)
        miss = keys.miss(list(leaf.path))
        line = f"{key.where}: {_why_dead(release, miss, leaf.path, key.recipe)}"
        (warnings if key.recipe and miss is None else problems).append(line)
    return problems, warnings


def _why_dead(release: HelmRelease, miss: str | None, path: Sequence[Segment], recipe: bool) -> str:
    chart = f"the {release.chart_name} chart ({release.version})"
    if miss is not None:
        return f"{miss}; so it changes nothing Helm renders: fix the path or remove it"
    said = f"'{render_path(path)}' changes nothing {chart} renders with this stack's other values"
    if recipe:
        return (
            f"{said}: the recipe's value, for the stacks that leave its feature on; this one "
            "turns it off (nothing to fix unless the stack meant to use it)"
        )
    return f"{said} (a dead value): remove it, or also set what makes the chart use it"
