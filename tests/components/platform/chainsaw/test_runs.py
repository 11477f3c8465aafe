"""Chainsaw v0.2.15 runs a Test on recorded objects as on a cluster (`chainsaw_runs.py` and
its read-only API server, `recorded_cluster.py`): a missing object, a list by namespace and
labels, an `error` that matches, a type mismatch, and the `gpu-count` check's non-resource
assertion over `x_k8s_list`, each decided by the binary."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from components.platform.checks.gpu_count import GpuExpectation, gpu_count_check
from components.platform.releases.gpu_sharing import GpuSharing
from core import yaml_text
from tests.components.platform.chainsaw_runs import run_check

Objects = list[dict[str, Any]]
READY: Objects = yaml.safe_load(
    (Path(__file__).parents[1] / "data" / "cluster-ready.yaml").read_text()
)


def _test(*ops: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    steps = [{"name": f"s{i}", "try": [{kind: {"resource": r}}]} for i, (kind, r) in enumerate(ops)]
    return {
        "apiVersion": "chainsaw.kyverno.io/v1alpha1",
        "kind": "Test",
        "metadata": {"name": "t"},
        "spec": {"steps": steps},
    }


POLICY = {"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy"}


def test_a_missing_object_fails_an_assert_and_passes_an_error() -> None:
    missing = {**POLICY, "metadata": {"name": "absent"}}
    outcome = run_check(_test(("assert", missing)), READY)
    assert (outcome.passed, outcome.step, outcome.reason) == (
        False,
        "s0",
        "actual resource not found",
    )
    assert run_check(_test(("error", missing)), READY).passed


def test_an_error_fails_on_the_object_it_matches() -> None:
    ready = {**POLICY, "status": {"state": "ready"}}
    outcome = run_check(_test(("error", ready)), READY)
    assert (outcome.passed, outcome.reason) == (
        False,
        "nvidia.com/v1/ClusterPolicy/cluster-policy - resource matches expectation",
    )


def test_a_list_is_read_by_namespace_and_labels() -> None:
    pods: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod"}
    pods["metadata"] = {"namespace": "gpu-operator"}
    labelled = {**pods, "metadata": {"namespace": "gpu-operator", "labels": {"app": "none"}}}
    assert run_check(_test(("assert", pods)), READY).passed
    outcome = run_check(_test(("assert", labelled)), READY)
    assert (outcome.passed, outcome.reason) == (False, "no actual resource found")


def test_a_type_mismatch_is_chainsaws_error_not_a_pass() -> None:
    """A number compared with the string the API server returns fails the step."""
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "gpu-ci-worker"}}
    wrong = {**node, "status": {"allocatable": {"nvidia.com/gpu": 2}}}
    right = {**node, "status": {"allocatable": {"nvidia.com/gpu": "2"}}}
    assert run_check(_test(("assert", right)), READY).passed
    outcome = run_check(_test(("assert", wrong)), READY)
    assert (outcome.passed, outcome.reason) == (
        False,
        "status.allocatable.nvidia.com/gpu: Internal error: types are not comparable, "
        "float64 - string",
    )


def _nodes(*gpus: str | None) -> Objects:
    others = [o for o in READY if o["kind"] != "Node"]
    return others + [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": f"node-{i}"},
            "status": {"allocatable": {"cpu": "30", **({"nvidia.com/gpu": g} if g else {})}},
        }
        for i, g in enumerate(gpus)
    ]


SHARED = GpuSharing("timeSlicing", 2, "gpu-operator", "devicePlugin.config", "cfg", "ts")


def test_gpu_count_counts_a_shared_gpus_replicas() -> None:
    check = gpu_count_check(GpuExpectation(1, multi=False, per_node=1), SHARED, ("gpu-operator",))
    assert run_check(yaml_text.load(check.test), _nodes(None, "2")).passed
    outcome = run_check(yaml_text.load(check.test), _nodes(None, "1"))
    assert (outcome.passed, outcome.step) == (False, "cluster-advertises-2-nvidia-gpu")


@pytest.mark.parametrize(
    ("gpus", "passes"),
    [
        ((None, "2"), True),  # gpus: all
        ((None, "1", "1"), True),  # one-per-gpu
        ((None, "1"), False),  # one GPU visible
        ((None, None), False),  # no device plugin yet
        ((None, "4"), False),  # time-sliced after all
    ],
)
def test_gpu_count_sums_every_node(gpus: tuple[str | None, ...], passes: bool) -> None:
    """The non-resource assertion over `x_k8s_list($client, 'v1', 'Node', '')`."""
    check = gpu_count_check(GpuExpectation(2, multi=False, per_node=2), None, ("gpu-operator",))
    outcome = run_check(yaml_text.load(check.test), _nodes(*gpus))
    assert outcome.passed is passes, outcome.output
    if not passes:
        assert outcome.step == "cluster-advertises-2-nvidia-gpu"


def test_the_jobs_arguments_only_read() -> None:
    """With the Job's own arguments Chainsaw only reads, the checks namespace included (it
    exists, so it is neither created nor deleted): read-only RBAC is enough."""
    outcome = run_check(_test(("assert", {**POLICY, "metadata": {"name": "absent"}})), READY)
    assert outcome.requests
    assert [r for r in outcome.requests if not r.startswith("GET ")] == []
    assert "GET /api/v1/namespaces/gpu-ci-checks" in outcome.requests
