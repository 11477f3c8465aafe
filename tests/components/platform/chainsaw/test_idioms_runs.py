"""The expectations gpu-ci writes itself (`documents.established`, `available`), decided
by the pinned chainsaw binary on recorded objects (`chainsaw_runs.py`): a CRD passes only
when that CRD is Established, a DaemonSet only when scheduled somewhere and fully ready, a
StatefulSet only with a ready replica, a Deployment only with an available one."""

from __future__ import annotations

from typing import Any

import pytest

from components.platform.chainsaw import documents
from tests.components.platform.chainsaw_runs import run_check

CRD = "clusterpolicies.nvidia.com"


def _test(kind: str, resource: dict[str, Any]) -> dict[str, Any]:
    return documents.test_doc("t", 60, [documents.step("s", (kind, resource))])


def _crd(name: str, established: str) -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": name},
        "status": {
            "conditions": [
                {"type": "NamesAccepted", "status": "True"},
                {"type": "Established", "status": established},
            ]
        },
    }


def test_a_crd_passes_only_when_that_crd_is_established() -> None:
    check = _test("assert", documents.established(CRD))
    assert run_check(check, [_crd(CRD, "True")]).passed
    outcome = run_check(check, [_crd(CRD, "False"), _crd("other.example.com", "True")])
    assert (outcome.passed, outcome.step) == (False, "s")
    # another CRD established is no answer for a missing one
    missing = run_check(check, [_crd("other.example.com", "True")])
    assert (missing.passed, missing.reason) == (False, "actual resource not found")


def _workload(kind: str, status: dict[str, int]) -> dict[str, Any]:
    meta = {"name": "w", "namespace": "gpu-operator"}
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": meta, "status": status}


@pytest.mark.parametrize(
    ("kind", "status", "serves"),
    [
        ("DaemonSet", {"desiredNumberScheduled": 2, "numberReady": 2}, True),
        ("DaemonSet", {"desiredNumberScheduled": 2, "numberReady": 1}, False),
        ("DaemonSet", {"desiredNumberScheduled": 0, "numberReady": 0}, False),
        ("StatefulSet", {"replicas": 1, "readyReplicas": 1}, True),
        ("StatefulSet", {"replicas": 1, "readyReplicas": 0, "availableReplicas": 1}, False),
        ("Deployment", {"replicas": 1, "availableReplicas": 1}, True),
        ("Deployment", {"replicas": 1, "readyReplicas": 1, "availableReplicas": 0}, False),
    ],
    ids=[
        "daemonset-ready",
        "daemonset-half-ready",
        "daemonset-nowhere",
        "statefulset-ready",
        "statefulset-not-ready",
        "deployment-available",
        "deployment-not-available",
    ],
)
def test_a_workload_serves_as_aicr_checks_it(
    kind: str, status: dict[str, int], serves: bool
) -> None:
    expectation = documents.available(kind, "w", "gpu-operator")
    outcome = run_check(_test("assert", expectation), [_workload(kind, status)])
    assert outcome.passed is serves, outcome.output
