"""Values that change nothing Helm renders, found by rendering, reported at the key to fix.

The example stacks have no such problem, and one warning: multi-gpu turns the device
plugin's config off, so the recipe's `devicePlugin.config.default` prints nowhere. A
misspelt `gpu-ci:platform.set` path, and a value behind a switch the stack turns off, are
reported at their `set` entry, with a did-you-mean from the real chart's keys.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from recipes import PROJECT_CATALOG, load_catalog
from stacks.offline.charts.check import ChartTools, StackCharts, check_stack, dead_values
from stacks.offline.charts.release import releases_of
from stacks.offline.charts.value_keys import value_sources
from stacks.offline.engine.records import ProgramRun
from stacks.offline.plan import REPO, plan_run


@pytest.fixture(scope="module")
def example_dead(
    rendered: dict[str, StackCharts], helm: Path
) -> dict[str, tuple[list[str], list[str]]]:
    """(problems, warnings) of each example stack with releases."""
    found = {}
    for stack, charts in rendered.items():
        sources = value_sources(REPO, stack)
        problems: list[str] = []
        warnings: list[str] = []
        for item in charts.renders:
            more, less = dead_values(item, sources, helm)
            problems += more
            warnings += less
        found[stack] = (problems, warnings)
    return found


def test_no_example_stack_sets_a_value_that_renders_nothing(
    example_dead: dict[str, tuple[list[str], list[str]]],
) -> None:
    assert {stack: problems for stack, (problems, _) in example_dead.items() if problems} == {}


def test_the_one_warning_is_the_recipe_value_multi_gpu_turns_off(
    example_dead: dict[str, tuple[list[str], list[str]]],
) -> None:
    warned = {stack: warnings for stack, (_, warnings) in example_dead.items() if warnings}
    assert list(warned) == ["multi-gpu"]
    (line,) = warned["multi-gpu"]
    values_file = "recipes/catalog/components/gpu-operator/values-kind-a10.yaml"
    assert line.startswith(f"{values_file}: devicePlugin.config.default: ")
    assert "the gpu-operator chart (v26.7.0)" in line


def test_a_typo_and_a_value_its_switch_turns_off_are_each_reported_at_their_entry(
    typo_project: Path, chart_tools: ChartTools
) -> None:
    """The typo (under gpu-operator's bundled NFD chart, whose keys the plan cannot know
    without the chart) with the chart's own key as a guess; the JobSet replicas, rendered
    nowhere once `jobset.install` (the dependency's condition) is off, as dead; the switch
    itself is live."""
    run: ProgramRun = plan_run("t", typo_project)
    found = check_stack(run, {"t": run}, chart_tools, value_sources(typo_project, "t"))
    assert (found.unchecked, found.warnings) == ([], [])
    typo, dead = found.problems
    assert typo.startswith(
        "gpu-ci:platform.set[0] (gpu-operator:node-feature-discovery.workr.enable): the "
        "gpu-operator chart (v26.7.0) has no value 'node-feature-discovery.workr' (did you "
        "mean 'node-feature-discovery.worker.enable'?)"
    )
    assert typo.endswith("so it changes nothing Helm renders: fix the path or remove it")
    assert dead.startswith(
        "gpu-ci:platform.set[2] (kubeflow-trainer:jobset.controller.replicas): "
        "'jobset.controller.replicas' changes nothing the kubeflow-trainer chart (2.3.0) renders"
    )
    assert dead.endswith("(a dead value): remove it, or also set what makes the chart use it")


def _paths(values: Any, path: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    if isinstance(values, dict) and values:
        return {p for k, v in values.items() for p in _paths(v, (*path, str(k)))}
    return {path}


def test_every_catalog_value_is_in_a_checked_example_release(
    example_runs: dict[str, ProgramRun],
) -> None:
    """So the check above covers the project's catalog: each path of each values file and
    overlay override reaches some example stack's release of its component."""
    catalog = load_catalog([PROJECT_CATALOG])
    deployed: dict[str, set[tuple[str, ...]]] = {}
    for run in example_runs.values():
        for release in releases_of(run):
            if release.component:
                deployed.setdefault(release.component, set()).update(_paths(release.values))
    sources = []
    for overlay in catalog.overlays.values():
        for ref in overlay.doc.spec.componentRefs:
            if ref.valuesFile:
                sources.append((ref.name, ref.valuesFile, catalog.read_yaml(ref.valuesFile)))
            if ref.overrides:
                sources.append((ref.name, f"{overlay.rel} overrides", ref.overrides))
    assert {name for name, _, _ in sources} == {"gpu-operator", "kubeflow-trainer"}
    for name, source, values in sources:
        assert _paths(values) - deployed[name] == set(), source
