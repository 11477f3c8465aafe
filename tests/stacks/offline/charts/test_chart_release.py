"""The releases a recorded run holds, the chart each one needs, the Kubernetes version of the
cluster it goes to, and how an upstream tool is run, on small recorded runs."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from stacks.offline.charts.release import (
    ChartCheckError,
    HelmRelease,
    find_chart,
    kube_version,
    releases_of,
    run_tool,
)
from stacks.offline.engine.values import Secret
from tests.stacks.offline.charts.synthetic_runs import (
    platform_parent,
    program_run,
    registration,
    release,
)

OKE = "oci:ContainerEngine/cluster:Cluster"
REFERENCE = "pulumi:pulumi:StackReference"


def _helm_release(chart: str, version: str) -> HelmRelease:
    return HelmRelease(
        stack="t",
        resource="r",
        name="r",
        chart=chart,
        version=version,
        namespace="default",
        values={},
        source="x.py:1",
    )


def test_each_release_as_recorded_in_registration_order() -> None:
    parent = platform_parent()
    run = program_run(
        "t",
        [
            release(
                "gpu-operator",
                "gpu-operator",
                "v26.7.0",
                {"driver": {"enabled": False}, "token": Secret("s3cret")},
                namespace="gpu-operator",
                parent=parent.urn,
                resource="platform-gpu-operator",
            ),
            parent,
            registration("kubernetes:core/v1:Namespace", "ns", {}),
            registration(
                "kubernetes:helm.sh/v3:Release",
                "monitoring",
                {"chart": "oci://ghcr.io/x/kube-prometheus-stack/"},
                source="stacks/layers/observability.py:7",
            ),
        ],
    )
    operator, monitoring = releases_of(run)
    assert operator == HelmRelease(
        stack="t",
        resource="platform-gpu-operator",
        name="gpu-operator",
        chart="gpu-operator",
        version="v26.7.0",
        namespace="gpu-operator",
        values={"driver": {"enabled": False}, "token": "s3cret"},
        source="stacks/layers/gpu-operator.py:10",
        component="gpu-operator",
    )
    assert monitoring == HelmRelease(
        stack="t",
        resource="monitoring",
        name="monitoring",
        chart="oci://ghcr.io/x/kube-prometheus-stack/",
        version="",
        namespace="default",
        values={},
        source="stacks/layers/observability.py:7",
        component=None,
    )
    assert monitoring.chart_name == "kube-prometheus-stack"
    assert operator.label == "t/platform-gpu-operator (gpu-operator v26.7.0)"


def test_a_release_under_another_parent_deploys_no_recipe_component() -> None:
    other = registration("gpu-ci:arc:ScaleSets", "arc", {})
    run = program_run("t", [other, release("arc", "gha", "0.14.2", {}, parent=other.urn)])
    assert [r.component for r in releases_of(run)] == [None]


def _chart_dir(folder: Path, stem: str) -> Path:
    (folder / stem).mkdir(parents=True)
    (folder / stem / "Chart.yaml").write_text("name: x\n", encoding="utf-8")
    return folder / stem


def _tgz(folder: Path, stem: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{stem}.tgz").write_bytes(b"")
    return folder / f"{stem}.tgz"


def test_a_chart_is_found_unpacked_or_packed_with_or_without_its_v(tmp_path: Path) -> None:
    unpacked = _chart_dir(tmp_path / "a", "gpu-operator-26.7.0")
    assert find_chart(_helm_release("gpu-operator", "v26.7.0"), [tmp_path / "a"]) == unpacked
    packed = _tgz(tmp_path / "b", "gpu-operator-v26.7.0")
    assert find_chart(_helm_release("nvidia/gpu-operator", "26.7.0"), [tmp_path / "b"]) == packed
    exact = _tgz(tmp_path / "b", "gpu-operator-26.7.0")
    assert find_chart(_helm_release("gpu-operator", "26.7.0"), [tmp_path / "b"]) == exact


def test_the_first_folder_with_the_chart_wins_unpacked_before_packed(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    (empty / "gpu-operator-1.0.0").mkdir(parents=True)  # no Chart.yaml: not a chart
    packed = _tgz(tmp_path / "second", "gpu-operator-1.0.0")
    unpacked = _chart_dir(tmp_path / "second", "gpu-operator-1.0.0")
    later = _chart_dir(tmp_path / "third", "gpu-operator-1.0.0")
    folders = [empty, tmp_path / "second", tmp_path / "third"]
    assert find_chart(_helm_release("gpu-operator", "1.0.0"), folders) == unpacked
    assert find_chart(_helm_release("gpu-operator", "1.0.0"), [empty, later.parent]) == later
    assert packed.is_file()


def test_no_chart_of_that_name_and_version_is_none(tmp_path: Path) -> None:
    _chart_dir(tmp_path, "gpu-operator-1.0.1")
    _tgz(tmp_path, "gpu-operators-1.0.0")
    assert find_chart(_helm_release("gpu-operator", "1.0.0"), [tmp_path]) is None


def test_the_kubernetes_version_is_the_clusters_own_export_first() -> None:
    oke = registration(OKE, "oke", {"kubernetesVersion": "v1.33.1"})
    kind = program_run("t", [oke], {"cluster": {"kubernetesVersion": "v1.35.0"}})
    assert kube_version(kind, {}) == "v1.35.0"
    no_version = program_run("t", [oke], {"cluster": {"name": "x"}})
    assert kube_version(no_version, {}) == "v1.33.1"
    not_a_map = program_run("t", [oke], {"cluster": "v9"})
    assert kube_version(not_a_map, {}) == "v1.33.1"


def test_an_oke_cluster_without_a_version_says_nothing() -> None:
    run = program_run("t", [registration(OKE, "oke", {"kubernetesVersion": ""})])
    assert kube_version(run, {}) is None


def test_a_stack_reads_its_clusters_version_from_the_stack_it_references() -> None:
    """apps-dev deploys onto gpu-dev's cluster; a reference to itself or to a stack not
    planned, or to one that knows no version either, tells nothing."""
    cluster = program_run("gpu-dev", [], {"cluster": {"kubernetesVersion": "v1.35.0"}})
    silent = program_run("silent", [])
    refs = [
        registration(REFERENCE, "self", {"name": "org/gpu-ci/apps"}),
        registration(REFERENCE, "gone", {"name": "org/gpu-ci/gone"}),
        registration(REFERENCE, "silent", {"name": "org/gpu-ci/silent"}),
        registration(REFERENCE, "cluster", {"name": "org/gpu-ci/gpu-dev"}),
    ]
    apps = program_run("apps", refs)
    runs = {"apps": apps, "gpu-dev": cluster, "silent": silent}
    assert kube_version(apps, runs) == "v1.35.0"
    alone = program_run("apps", refs[:3])
    assert kube_version(alone, {**runs, "apps": alone}) is None


def test_a_reference_by_bare_name_and_a_chain_of_references_are_followed() -> None:
    """`clusterStack: gpu-dev` (a stack of this project), read through a stack that reads
    its own cluster from another."""
    cluster = program_run("gpu-dev", [], {"cluster": {"kubernetesVersion": "v1.35.0"}})
    middle = program_run("mid", [registration(REFERENCE, "c", {"name": "gpu-dev"})])
    apps = program_run("apps", [registration(REFERENCE, "m", {"name": "org/gpu-ci/mid"})])
    assert kube_version(apps, {"gpu-dev": cluster, "mid": middle, "apps": apps}) == "v1.35.0"


def test_a_tool_that_fails_is_returned_for_its_output_to_be_read() -> None:
    """kubectl-validate exits 1 when an object is invalid, with its verdict on stdout."""
    done = run_tool(
        [sys.executable, "-c", "import sys; print('{}'); sys.exit(1)"],
        what="kubectl-validate",
        timeout=60,
        env={},
    )
    assert (done.returncode, done.stdout) == (1, "{}\n")


def test_a_tool_runs_with_the_environment_given_over_this_one() -> None:
    done = run_tool(
        [sys.executable, "-c", "import os; print(os.environ['GIVEN'], 'PATH' in os.environ)"],
        what="a probe",
        timeout=60,
        env={"GIVEN": "yes"},
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "yes True\n", "")


def test_a_tool_that_cannot_start_is_one_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "helm"
    with pytest.raises(ChartCheckError, match=rf"^{missing}: cannot run helm \(.*No such file"):
        run_tool([str(missing), "template"], what="helm", timeout=60, env={})


def test_a_tool_that_runs_past_its_limit_is_one_error_naming_it() -> None:
    with pytest.raises(ChartCheckError) as raised:
        run_tool(
            [sys.executable, "-c", "import time; time.sleep(30)"],
            what="kubectl-validate",
            timeout=1,
            env={},
        )
    assert str(raised.value).startswith(f"{sys.executable}: cannot run kubectl-validate (")
    assert "timed out after 1 second" in str(raised.value)
