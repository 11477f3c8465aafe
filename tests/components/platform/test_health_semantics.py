"""What the health checks decide on recorded cluster objects, where Chainsaw cannot run:
gpu-ci's and AICR's asserts pass on a settled cluster and fail, at the step that should,
on each not-ready state (`tests/oracles/chainsaw_assert.py` gives Chainsaw's semantics)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from components.platform.check_plan import plan_checks
from core import yaml_text
from recipes import PROJECT_CATALOG, RecipeResult
from tests.oracles.chainsaw_assert import (
    InternalError,
    assert_tree,
    match,
    parse_expression,
    run_test,
)
from tests.oracles.crd_schema import at, crd_schema, load_crd, validate
from tests.oracles.jmespath_subset import search

Objects = list[dict[str, Any]]
READY: Objects = yaml.safe_load((Path(__file__).parent / "data" / "cluster-ready.yaml").read_text())


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


def _gpu_ci_test(component: str) -> dict[str, Any]:
    path = PROJECT_CATALOG / "components" / component / "health-check.yaml"
    test: dict[str, Any] = yaml_text.load(path.read_text(encoding="utf-8"))
    return test


@pytest.mark.parametrize("component", sorted(GPU_CI))
def test_gpu_ci_checks_pass_on_a_settled_cluster(component: str) -> None:
    assert run_test(_gpu_ci_test(component), READY).passed


CASES = [(c, i) for c, changes in sorted(GPU_CI.items()) for i in range(len(changes))]


@pytest.mark.parametrize(("component", "index"), CASES)
def test_gpu_ci_checks_fail_at_the_step_that_sees_the_fault(component: str, index: int) -> None:
    change, step = GPU_CI[component][index]
    objects = copy.deepcopy(READY)
    change(objects)
    outcome = run_test(_gpu_ci_test(component), objects)
    assert (outcome.passed, outcome.step) == (False, step), outcome.reason


def test_generated_checks_pass_and_fail(recipe: RecipeResult) -> None:
    plan = plan_checks(recipe, recipe.componentRefs)
    robust = yaml_text.load(plan.by_name["robust-controller"].test)
    operator = yaml_text.load(plan.by_name["operator-health"].test)
    assert run_test(robust, READY).passed
    assert run_test(operator, READY).passed
    broken = copy.deepcopy(READY)
    _endpoint_not_ready(broken)
    assert run_test(robust, broken).step == "validating-webhook"
    broken = copy.deepcopy(READY)
    _crash("gpu-operator", "gpu-operator-7c9d6c7b5d-x2kq9")(broken)
    assert run_test(operator, broken).step == "operator-pods-not-failing"


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


@pytest.mark.parametrize(("catalog", "component"), sorted(AICR))
def test_aicr_checks_pass_and_fail_on_recorded_objects(
    upstream: Path, catalog: str, component: str
) -> None:
    path = upstream / catalog / "recipes" / "checks" / component / "health-check.yaml"
    test = yaml_text.load(path.read_text(encoding="utf-8"))
    assert run_test(test, READY).passed
    change, step = AICR[(catalog, component)]
    objects = copy.deepcopy(READY)
    change(objects)
    outcome = run_test(test, objects)
    assert (outcome.passed, outcome.step) == (False, step), outcome.reason


def test_the_recorded_cluster_policy_fields_are_the_crds(upstream: Path) -> None:
    """The fields the checks read exist in the upstream ClusterPolicy CRD, and the recorded
    and broken values are ones it admits (the object is partial: spec is not whole)."""
    schema = crd_schema(load_crd(upstream, "nvidia.com_clusterpolicies.yaml"), "v1")
    policy = _one(READY, "ClusterPolicy", "cluster-policy")
    assert validate(policy["status"], at(schema, "status"), "status") == []
    assert {"ready", "notReady"} <= set(at(schema, "status.state")["enum"])
    config = at(schema, "spec.devicePlugin.config")
    assert validate(policy["spec"]["devicePlugin"]["config"], config, "config") == []


# -- the oracle's own semantics, from kyverno-json and the JMESPath specification ----------


def test_maps_are_subsets_lists_element_wise() -> None:
    actual = {"a": 1, "b": [{"x": 1, "y": 2}], "c": "s"}
    assert assert_tree({"a": 1, "b": [{"x": 1}]}, actual) == []
    assert assert_tree({"b": [{"x": 1}, {"x": 2}]}, actual) == ["b: lengths of slices don't match"]
    assert assert_tree({"d": 1}, actual) == [
        "d: Required value: field not found in the input object"
    ]
    assert assert_tree({"a": {}}, {"a": None}) == ["a: invalid value, must not be null"]
    assert assert_tree({"a": 1.0}, actual) == []  # numbers compare across int and float
    with pytest.raises(InternalError, match="types are not comparable"):
        assert_tree({"a": "1"}, actual)
    with pytest.raises(InternalError, match="expected a slice"):
        assert_tree({"c": ["s"]}, actual)


def test_expressions_project_keys_and_values() -> None:
    actual = {"status": {"availableReplicas": 2, "replicas": 2}}
    assert assert_tree({"status": {"(availableReplicas > `0`)": True}}, actual) == []
    assert assert_tree({"status": {"(missing > `0`)": True}}, actual) != []  # null > 0: null
    assert assert_tree({"status": {"replicas": "(@)"}}, actual) == []  # against the leaf
    assert assert_tree({"status": {"replicas": "(availableReplicas)"}}, actual) != []
    assert assert_tree({"\\(x)\\": 1}, {"(x)": 1}) == []  # escaped: a plain key
    assert parse_expression("~item.(spec.containers)").foreach
    assert assert_tree({"~.(items)": {"a": 1}}, {"items": [{"a": 1}, {"a": 2}]}) == [
        "~.(items)[1].a: Invalid value: 2: Expected value: 1"
    ]
    assert match({"a": [1, 2]}, {"a": [1, 2], "b": 3})


def test_jmespath_subset_follows_the_specification() -> None:
    data = {
        "conditions": [
            {"type": "Ready", "status": "True"},
            {"type": "Established", "status": "False"},
        ],
        "allocatable": {"nvidia.com/gpu": "2"},
        "n": 3,
    }
    assert search("conditions[?type == 'Established'].status", data) == ["False"]
    assert search("to_number(allocatable.\"nvidia.com/gpu\" || '0') > `1`", data) is True
    assert search("(missing || `[]`)[?a] | length(@) > `0`", data) is False
    assert search("conditions[*].type", data) == ["Ready", "Established"]
    assert search("conditions[0].status", data) == "True"
    assert search("n > 'a'", data) is None
    assert search("!missing && n", data) == 3
    assert search("[n, n]", data) == [3, 3]
