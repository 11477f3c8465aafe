"""What the health checks decide on recorded cluster objects, as Chainsaw v0.2.15 itself
decides them (`chainsaw_runs.py`: the Job's `chainsaw test` against a read-only API server
serving the objects): gpu-ci's, AICR's and the generated checks pass on a settled cluster
and fail, at the step that should, on each not-ready state."""

from __future__ import annotations

import copy
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import yaml

from components.platform.checks.plan import plan_checks
from core import yaml_text
from recipes import PROJECT_CATALOG, Catalog, RecipeResult
from tests.components.platform.chainsaw_runs import Outcome, run_check
from tests.components.platform.platform_helpers import project_recipe
from tests.stacks.offline.charts.chart_helpers import problems_of, render_chart
from tests.upstream_tools import tool

Objects = list[dict[str, Any]]
ON_DISK = "health-check.yaml"
READY: Objects = yaml.safe_load(
    (Path(__file__).parents[1] / "data" / "cluster-ready.yaml").read_text()
)


def _one(objects: Objects, kind: str, name: str, namespace: str = "") -> dict[str, Any]:
    (found,) = [
        o
        for o in objects
        if o["kind"] == kind
        and o["metadata"]["name"] == name
        and o["metadata"].get("namespace", "") == namespace
    ]
    return found


def _without(kind: str, name: str, namespace: str = "") -> Callable[[Objects], None]:
    def change(objects: Objects) -> None:
        objects.remove(_one(objects, kind, name, namespace))

    return change


def _policy_not_ready(objects: Objects) -> None:
    _one(objects, "ClusterPolicy", "cluster-policy")["status"]["state"] = "notReady"


def _no_gpu(objects: Objects) -> None:
    node = _one(objects, "Node", "gpu-ci-worker")
    del node["status"]["allocatable"]["nvidia.com/gpu"]


def _not_sliced(objects: Objects) -> None:
    labels = _one(objects, "Node", "gpu-ci-worker")["metadata"]["labels"]
    labels.update({"nvidia.com/gpu.sharing-strategy": "none", "nvidia.com/gpu.replicas": "1"})


def _crash(namespace: str, pod: str, field: str = "containerStatuses") -> Callable[[Objects], None]:
    def change(objects: Objects) -> None:
        status = _one(objects, "Pod", pod, namespace)["status"]
        status[field][-1]["state"] = {"waiting": {"reason": "CrashLoopBackOff"}}

    return change


def _pending(namespace: str, pod: str) -> Callable[[Objects], None]:
    def change(objects: Objects) -> None:
        _one(objects, "Pod", pod, namespace)["status"] = {"phase": "Pending"}

    return change


def _unavailable(name: str, namespace: str) -> Callable[[Objects], None]:
    def change(objects: Objects) -> None:
        _one(objects, "Deployment", name, namespace)["status"] = {"replicas": 1}

    return change


def _not_established(crd: str) -> Callable[[Objects], None]:
    def change(objects: Objects) -> None:
        conditions = _one(objects, "CustomResourceDefinition", crd)["status"]["conditions"]
        conditions[-1]["status"] = "False"

    return change


def _plugin_config_unset(objects: Objects) -> None:
    del _one(objects, "ClusterPolicy", "cluster-policy")["spec"]["devicePlugin"]["config"]


def _endpoint_not_ready(objects: Objects) -> None:
    (slice_,) = [o for o in objects if o["kind"] == "EndpointSlice"]
    slice_["endpoints"][0]["conditions"]["ready"] = False


def _half_ready_workers(objects: Objects) -> None:
    worker = _one(
        objects, "DaemonSet", "nfd-node-feature-discovery-worker", "node-feature-discovery"
    )
    worker["status"]["numberReady"] = 1


OPERATOR_POD = "nvidia-device-plugin-daemonset-5xj7m"
TRAINER_DEPLOYMENT = "kubeflow-trainer-controller-manager"
TRAINER_POD = f"{TRAINER_DEPLOYMENT}-6b8f4-vq7ls"
GPU_CI = {
    "gpu-operator": [
        (_not_established("clusterpolicies.nvidia.com"), "cluster-policy-crd-established"),
        (_unavailable("gpu-operator", "gpu-operator"), "operator-available"),
        (_without("Deployment", "gpu-operator", "gpu-operator"), "operator-available"),
        (_policy_not_ready, "cluster-policy-ready"),
        (_without("ClusterPolicy", "cluster-policy"), "cluster-policy-ready"),
        (_no_gpu, "device-plugin-advertises-gpus"),
        (_pending("gpu-operator", OPERATOR_POD), "pods-healthy"),
        (_crash("gpu-operator", OPERATOR_POD), "pods-healthy"),  # the second container
        (_crash("gpu-operator", OPERATOR_POD, "initContainerStatuses"), "pods-healthy"),
    ],
    "gpu-time-slicing": [
        (_without("ConfigMap", "gpu-time-slicing-config", "gpu-operator"), "config-map-present"),
        (_plugin_config_unset, "device-plugin-uses-it"),
        (_not_sliced, "node-time-sliced"),
    ],
    "kubeflow-trainer": [
        (_not_established("trainjobs.trainer.kubeflow.org"), "crds-established"),
        (
            _unavailable("kubeflow-trainer-controller-manager", "kubeflow-system"),
            "controller-available",
        ),
        (_without("ClusterTrainingRuntime", "jax-distributed"), "runtimes-present"),
        (_crash("kubeflow-system", TRAINER_POD), "pods-healthy"),
    ],
}


AICR = {
    ("aicr-main-2026-07-09", "gpu-operator"): (_policy_not_ready, "validate-cluster-policy-ready"),
    ("aicr-main-2026-07-09", "kubeflow-trainer"): (
        _unavailable("kubeflow-trainer-controller-manager", "kubeflow"),
        "validate-deployment-exists",
    ),
    ("aicr-main-2026-07-09", "nfd"): (_half_ready_workers, "validate-worker-daemonset"),
    ("aicr-main-2026-07-09", "cert-manager"): (
        _without("Deployment", "cert-manager-webhook", "cert-manager"),
        "validate-webhook-deployment",
    ),
    ("aicr-v0.11.1", "gpu-operator"): (
        _pending("gpu-operator", OPERATOR_POD),
        "validate-all-pods-healthy",
    ),
    ("aicr-v0.11.1", "kubeflow-trainer"): (
        _without("Deployment", "kubeflow-trainer-controller-manager", "kubeflow"),
        "validate-deployment-exists",
    ),
}
GENERATED = {
    "robust-controller": (_endpoint_not_ready, "validating-webhook"),
    "operator-health": (
        _crash("gpu-operator", "gpu-operator-7c9d6c7b5d-x2kq9"),
        "operator-pods-not-failing",
    ),
}
Case = tuple[str, str, str]
"""(where the Test is from, the component or check, `ready` or the fault's index)."""


def _load(path: Path) -> dict[str, Any]:
    test: dict[str, Any] = yaml_text.load(path.read_text(encoding="utf-8"))
    return test


def _changed(change: Callable[[Objects], None]) -> Objects:
    objects = copy.deepcopy(READY)
    change(objects)
    return objects


def _runs(upstream: Path, recipe: RecipeResult) -> dict[Case, tuple[dict[str, Any], Objects]]:
    """Every Test on the settled cluster and on each of its not-ready states."""
    runs: dict[Case, tuple[dict[str, Any], Objects]] = {}
    tests: dict[tuple[str, str], dict[str, Any]] = {}
    faults = {("gpu-ci", c): changes for c, changes in GPU_CI.items()}
    faults |= {key: [fault] for key, fault in AICR.items()}
    faults |= {("generated", name): [fault] for name, fault in GENERATED.items()}
    for component in GPU_CI:
        tests["gpu-ci", component] = _load(PROJECT_CATALOG / "components" / component / ON_DISK)
    for catalog, component in AICR:
        path = upstream / catalog / "recipes" / "checks" / component / ON_DISK
        tests[catalog, component] = _load(path)
    plan = plan_checks(recipe, recipe.componentRefs)
    for name in GENERATED:
        tests["generated", name] = yaml_text.load(plan.by_name[name].test)
    for (source, name), test in tests.items():
        runs[source, name, "ready"] = (test, READY)
        for index, (change, _) in enumerate(faults[source, name]):
            runs[source, name, str(index)] = (test, _changed(change))
    return runs


@pytest.fixture(scope="module")
def verdicts(upstream: Path, catalog: Catalog) -> dict[Case, Outcome]:
    """Chainsaw's verdict on every run of `_runs`, a few processes at a time."""
    tool("chainsaw")  # skips (or fails under CI) here, not in a worker
    runs = _runs(upstream, project_recipe(catalog))
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = {case: pool.submit(run_check, *run) for case, run in runs.items()}
        return {case: future.result() for case, future in futures.items()}


READY_CASES = sorted(
    [("gpu-ci", c) for c in GPU_CI] + list(AICR) + [("generated", n) for n in GENERATED]
)


@pytest.mark.parametrize(("source", "name"), READY_CASES)
def test_every_check_passes_on_a_settled_cluster(
    verdicts: dict[Case, Outcome], source: str, name: str
) -> None:
    outcome = verdicts[source, name, "ready"]
    assert outcome.passed, outcome.output


FAULTS = sorted(
    [("gpu-ci", c, i, step) for c, changes in GPU_CI.items() for i, (_, step) in enumerate(changes)]
    + [(catalog, c, 0, step) for (catalog, c), (_, step) in AICR.items()]
    + [("generated", n, 0, step) for n, (_, step) in GENERATED.items()]
)


@pytest.mark.parametrize(("source", "name", "index", "step"), FAULTS)
def test_each_check_fails_at_the_step_that_sees_the_fault(
    verdicts: dict[Case, Outcome], source: str, name: str, index: int, step: str
) -> None:
    outcome = verdicts[source, name, str(index)]
    assert (outcome.passed, outcome.step) == (False, step), outcome.output


def test_the_recorded_cluster_policy_fields_are_the_crds(upstream: Path) -> None:
    """The fields the checks read exist in the upstream ClusterPolicy CRD, and the recorded
    values are ones it admits: the ClusterPolicy the pinned chart renders, given the recorded
    status and device plugin config, passes kubectl-validate; a state the CRD does not list
    does not (the recorded object is partial, so it is checked inside a whole one)."""
    chart = upstream / "helm-charts" / "gpu-operator-v26.7.0"
    (rendered,) = render_chart(chart, {}, name="gpu-operator").find("ClusterPolicy")
    recorded = _one(READY, "ClusterPolicy", "cluster-policy")
    whole = copy.deepcopy(rendered)
    whole["status"] = recorded["status"]
    whole["spec"]["devicePlugin"]["config"] = recorded["spec"]["devicePlugin"]["config"]
    assert problems_of([whole], upstream) == []
    whole["status"] = {**recorded["status"], "state": "halfway"}
    (problem,) = problems_of([whole], upstream)
    assert "status.state" in problem and "halfway" in problem
