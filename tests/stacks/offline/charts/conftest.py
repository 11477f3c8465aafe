"""Every example stack planned once, and each of its Helm releases rendered by Helm itself
from the complete vendored chart (`../shared/upstream/helm-charts`), once per session."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from stacks.offline.charts.check import ChartTools, StackCharts, render_stack
from stacks.offline.engine.records import ProgramRun
from stacks.offline.plan import REPO
from stacks.offline.plan_all import plan_all
from tests.upstream_tools import tool


@pytest.fixture(scope="session")
def charts(upstream: Path) -> Path:
    return upstream / "helm-charts"


@pytest.fixture(scope="session")
def helm() -> Path:
    return tool("helm")


@pytest.fixture(scope="session")
def validator() -> Path:
    return tool("kubectl-validate")


@pytest.fixture(scope="session")
def example_runs() -> dict[str, ProgramRun]:
    """Every Pulumi.*.yaml of the checkout, planned as `plan --all` plans them."""
    runs = dict(plan_all(REPO))
    failed = {name: run for name, run in runs.items() if not isinstance(run, ProgramRun)}
    assert failed == {}
    return {name: run for name, run in runs.items() if isinstance(run, ProgramRun)}


@pytest.fixture(scope="session")
def chart_tools(helm: Path, charts: Path) -> ChartTools:
    return ChartTools(helm, (charts,))


@pytest.fixture(scope="session")
def rendered(
    example_runs: dict[str, ProgramRun], chart_tools: ChartTools
) -> dict[str, StackCharts]:
    """Each example stack's releases, rendered (cached: later renders of the same release and
    values reuse Helm's output)."""
    return {
        name: render_stack(run, example_runs, chart_tools) for name, run in example_runs.items()
    }


TYPO_SETS = [
    "gpu-operator:node-feature-discovery.workr.enable=false",
    "kubeflow-trainer:jobset.install=false",
    "kubeflow-trainer:jobset.controller.replicas=3",
]
"""A typo under a subchart (the plan's own check cannot know its keys), a switch, and a value
that switch makes dead."""


@pytest.fixture(scope="session")
def typo_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout's dev stack as `Pulumi.t.yaml` in a project folder of its own, with
    TYPO_SETS as its `gpu-ci:platform.set`."""
    root = tmp_path_factory.mktemp("typo-project")
    shutil.copy(REPO / "Pulumi.yaml", root / "Pulumi.yaml")
    doc = yaml.safe_load((REPO / "Pulumi.dev.yaml").read_text(encoding="utf-8"))
    doc["config"]["gpu-ci:platform"]["set"] = TYPO_SETS
    (root / "Pulumi.t.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    return root
