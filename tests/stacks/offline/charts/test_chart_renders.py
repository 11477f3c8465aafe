"""Every Helm release of every example stack, rendered by Helm from the complete vendored
chart with exactly the values the plan records, for its cluster's Kubernetes version."""

from __future__ import annotations

from typing import Any

from stacks.offline.charts.check import StackCharts
from stacks.offline.charts.release import RELEASE, releases_of
from stacks.offline.engine.records import ProgramRun


def _only(found: StackCharts, resource: str) -> Any:
    (item,) = [r for r in found.renders if r.release.resource == resource]
    return item


def test_every_release_of_every_example_stack_renders(
    rendered: dict[str, StackCharts], example_runs: dict[str, ProgramRun]
) -> None:
    assert sorted(rendered) == sorted(example_runs)
    for name, found in rendered.items():
        assert found.problems == [], name
        assert found.unchecked == [], name
        assert len(found.renders) == len(example_runs[name].by_type(RELEASE)), name
    assert sum(len(f.renders) for f in rendered.values()) >= 10


def test_each_stack_renders_for_its_own_clusters_kubernetes(
    rendered: dict[str, StackCharts],
) -> None:
    """kind's node image for the nvkind stacks (apps-dev reads gpu-dev's cluster), the OKE
    cluster's version for arc."""
    versions = {name: f.kube_version for name, f in rendered.items() if f.renders}
    assert versions == {
        "apps-dev": "v1.35.0",
        "arc": "v1.33.1",
        "dev": "v1.35.0",
        "multi-gpu": "v1.35.0",
    }
    for found in rendered.values():
        for item in found.renders:
            assert item.target.kube_version == found.kube_version.removeprefix("v")  # type: ignore[union-attr]


def test_the_render_is_of_exactly_the_values_the_plan_records(
    example_runs: dict[str, ProgramRun], rendered: dict[str, StackCharts]
) -> None:
    for name, run in example_runs.items():
        recorded = {r.resource: r.values for r in releases_of(run)}
        assert {r.release.resource: r.release.values for r in rendered[name].renders} == recorded


def test_values_gpu_ci_sets_land_in_the_objects(rendered: dict[str, StackCharts]) -> None:
    policy = _only(rendered["dev"], "platform-gpu-operator").rendered.find("ClusterPolicy")
    assert [p["spec"]["devicePlugin"]["config"] for p in policy] == [
        {"name": "gpu-time-slicing-config", "default": "any"}
    ]
    assert policy[0]["spec"]["driver"]["enabled"] is False
    (prometheus,) = _only(rendered["arc"], "monitoring").rendered.find("Prometheus")
    assert prometheus["spec"]["retention"] == "30d"
    assert prometheus["spec"]["nodeSelector"] == {"gpu-ci/pool": "cpu"}
    (runner_set,) = _only(rendered["arc"], "scale-set-oke-gpu-a10-pod").rendered.find(
        "AutoscalingRunnerSet"
    )
    assert runner_set["spec"]["runnerScaleSetName"] == "oke-gpu-a10-pod"
    assert runner_set["spec"]["githubConfigUrl"] == "https://github.com/kubeflow"
    assert runner_set["spec"]["maxRunners"] == 1
