"""collect_cluster: which namespaces, what of each is shipped, and the failures read from
the check Jobs and the pods, asked of collect_sandbox's kubectl stand-in in this process
(collect_in_process.py), so collect_cluster's mutants run here.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from ..action_sandbox import ActionSandbox
from .collect_in_process import InProcess, in_process
from .collect_modules import module
from .collect_sandbox import CHECKS, KUBECTL, STUB, items, pod

cluster_mod = module("collect_cluster")
Failure = cluster_mod.Failure
Record = module("collect_run").Record
JOB = "platform-checks-gpu-count-0c1d2e3"


@pytest.fixture
def stands(runner: ActionSandbox, monkeypatch: pytest.MonkeyPatch) -> InProcess:
    return in_process(runner, monkeypatch)


def test_the_plan_names_each_kubernetes_resources_namespace() -> None:
    plan = {
        "resources": [
            {"type": "command:local:Command", "name": "host", "inputs": {"namespace": "no"}},
            {"name": "typeless", "inputs": {"metadata": {"namespace": "no"}}},
            {
                "type": "kubernetes:core/v1:Namespace",
                "name": "ns-gpu-operator",
                "inputs": {"metadata": {"name": "gpu-operator"}},
            },
            {
                "type": "kubernetes:helm.sh/v3:Release",
                "name": "kubeflow-trainer",
                "inputs": {"namespace": "kubeflow-system", "metadata": {"namespace": "no"}},
            },
            {
                "type": "kubernetes:batch/v1:Job",
                "inputs": {"metadata": {"namespace": "gpu-ci-checks", "name": "j"}},
            },
            {
                "type": "kubernetes:core/v1:ConfigMap",
                "name": "second",
                "inputs": {"metadata": {"namespace": "gpu-operator"}},
            },
            {"type": "kubernetes:core/v1:Namespace", "name": "nameless", "inputs": {}},
            {"type": "kubernetes:core/v1:ConfigMap", "name": "bad", "inputs": {"metadata": []}},
            {"type": "kubernetes:core/v1:ConfigMap", "name": "cm", "inputs": "not inputs"},
            {"type": "kubernetes:core/v1:Secret", "name": "s", "inputs": None},
            {
                "type": "kubernetes:core/v1:Service",
                "name": "e",
                "inputs": {"metadata": {"namespace": ""}},
            },
        ]
    }
    assert cluster_mod.plan_namespaces(plan) == {
        "gpu-operator": "the plan: ns-gpu-operator",
        "kubeflow-system": "the plan: kubeflow-trainer",
        "gpu-ci-checks": "the plan: kubernetes:batch/v1:Job",
    }
    assert cluster_mod.plan_namespaces(None) == {}
    assert cluster_mod.plan_namespaces({}) == {}


def test_the_stacks_exports_name_the_releases_and_monitorings_namespaces() -> None:
    outputs = {
        "platform": {
            "releases": {
                "gpu-operator": {"namespace": "gpu-operator"},
                "again": {"namespace": "gpu-operator"},
                "odd": {"namespace": 3},
                "bad": "not a release",
            }
        },
        "observability": {"namespace": "monitoring"},
    }
    assert cluster_mod.output_namespaces(outputs) == {
        "gpu-operator": "the stack's platform export: gpu-operator",
        "monitoring": "the stack's observability export",
    }
    assert cluster_mod.output_namespaces(None) == {}
    assert cluster_mod.output_namespaces({"platform": [], "observability": {"namespace": 1}}) == {}
    assert cluster_mod.output_namespaces({"platform": {"releases": []}}) == {}


CRASHING = pod(
    "kubeflow-system",
    "trainer-5d9c",
    "2026-09-01T09:58:00Z",
    "Running",
    containerStatuses=[
        {
            "name": "main",
            "ready": False,
            "imageID": "docker.io/example/trainer-5d9c@sha256:" + "1" * 64,
            "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 40s"}},
        }
    ],
)
PENDING = pod("gpu-operator", "plugin-abcde", "2026-09-01T09:50:00Z", "Pending")


def a_cluster(stands: InProcess) -> None:
    stands.rig.cluster(
        ["gpu-operator", "kubeflow-system"],
        {"kubeflow-system": [CRASHING], "gpu-operator": [PENDING]},
    )
    stands.rig.check_job(JOB, "gpu-count", "gpu-ci check gpu-count: FAILED (1 of 2)\n")


def test_the_cluster_collect_ships_each_namespace_and_finds_the_failures(
    stands: InProcess,
) -> None:
    a_cluster(stands)
    ran = stands.runner()
    known = {"kubeflow-system": "the plan: kubeflow-trainer", "monitoring": "the plan: x"}
    stands.rig.kubectl("get pods -n monitoring -o json", items())
    stands.rig.kubectl("get events -n monitoring --sort-by=.lastTimestamp", "none\n")
    stands.rig.kubectl("get pods -n monitoring -o wide", "none\n")
    stands.rig.kubectl("describe pods -n monitoring", "none\n")
    findings = cluster_mod.Cluster(ran, "kubectl").collect(known)
    assert findings.namespaces == {
        "gpu-operator": "label app.kubernetes.io/managed-by=gpu-ci",
        "kubeflow-system": "the plan: kubeflow-trainer",
        "monitoring": "the plan: x",
    }
    assert findings.failures == [
        Failure(
            "check Job",
            f"check gpu-count (Job {CHECKS}/{JOB}) failed: BackoffLimitExceeded (Job has "
            "reached the specified backoff limit); gpu-ci check gpu-count: FAILED (1 of 2)",
            f"checks/{JOB}.log",
        ),
        Failure(
            "pod", "pod gpu-operator/plugin-abcde: Pending", "cluster/gpu-operator/describe.txt"
        ),
        Failure(
            "pod",
            "pod kubeflow-system/trainer-5d9c: Running, container main CrashLoopBackOff: "
            "back-off 40s",
            "cluster/kubeflow-system/describe.txt",
        ),
    ]
    assert findings.images == {
        "example/trainer-5d9c:1": "docker.io/example/trainer-5d9c@sha256:" + "1" * 64
    }
    shipped = stands.shipped()
    assert shipped["cluster/namespaces.txt"] == (
        "gpu-operator\tlabel app.kubernetes.io/managed-by=gpu-ci\n"
        "kubeflow-system\tthe plan: kubeflow-trainer\n"
        "monitoring\tthe plan: x\n"
    )
    assert shipped["cluster/nodes-gpus.txt"] == (
        "node\tready\tallocatable nvidia.com/gpu\tcapacity nvidia.com/gpu\tgpu product\n"
        "kind-control-plane\tTrue\t0\t0\tNVIDIA-A10\n"
        "kind-worker\tTrue\t1\t1\tNVIDIA-A10\n"
    )
    assert (
        shipped["cluster/kubeflow-system/events.txt"] == "LAST SEEN TYPE REASON (kubeflow-system)\n"
    )
    assert shipped["cluster/kubeflow-system/pods.txt"] == "NAME STATUS\ntrainer-5d9c\n"
    assert (
        shipped["cluster/kubeflow-system/describe.txt"]
        == "Namespace: kubeflow-system\ntrainer-5d9c\n"
    )
    assert shipped[f"checks/{JOB}-describe.txt"] == f"Name: {JOB}\nPods Statuses: 0 Failed\n"
    assert shipped[f"checks/{JOB}.log"] == "gpu-ci check gpu-count: FAILED (1 of 2)\n"
    assert sorted(shipped) == sorted(
        [
            "cluster/namespaces.txt",
            "cluster/nodes-gpus.txt",
            "cluster/nodes.txt",
            *(
                f"cluster/{ns}/{f}"
                for ns in ("gpu-operator", "kubeflow-system", "monitoring")
                for f in ("events.txt", "pods.txt", "describe.txt")
            ),
            f"checks/{JOB}-describe.txt",
            f"checks/{JOB}.log",
        ]
    )
    k = KUBECTL
    assert stands.calls() == [
        f"{k} get namespaces -l app.kubernetes.io/managed-by=gpu-ci -o json",
        f"{k} get nodes -o json",
        f"{k} describe nodes",
        *(
            call
            for ns in ("gpu-operator", "kubeflow-system", "monitoring")
            for call in (
                f"{k} get events -n {ns} --sort-by=.lastTimestamp",
                f"{k} get pods -n {ns} -o wide",
                f"{k} describe pods -n {ns}",
                f"{k} get pods -n {ns} -o json",
            )
        ),
        f"{k} get jobs -A -l gpu-ci/check -o json",
        f"{k} describe job -n {CHECKS} {JOB}",
        f"{k} get pods -n {CHECKS} -l batch.kubernetes.io/job-name={JOB} -o json",
        f"{k} logs -n {CHECKS} {JOB}-x7k2p --all-containers",
    ]
    names = [r.name for r in ran.records]
    assert names[:3] == ["managed namespaces", "nodes", "describe nodes"]
    assert names[3:7] == [
        "events gpu-operator",
        "pods gpu-operator",
        "describe pods gpu-operator",
        "pods gpu-operator (JSON)",
    ]
    assert names[-4:] == [
        "check Jobs",
        f"describe Job {JOB}",
        f"pods of Job {JOB}",
        f"logs of Job {JOB}",
    ]
    assert [r.path for r in ran.records][:7] == [
        "",
        "",
        "cluster/nodes.txt",
        "cluster/gpu-operator/events.txt",
        "cluster/gpu-operator/pods.txt",
        "cluster/gpu-operator/describe.txt",
        "",
    ]


def test_an_answer_that_is_not_json_is_a_failed_source(stands: InProcess) -> None:
    stands.rig.kubectl("get nodes -o json", "error: not json\n")
    stands.rig.kubectl("describe nodes", "Name: kind-worker\n")
    ran = stands.runner()
    cluster_mod.Cluster(ran, "kubectl").nodes()
    assert ran.records == [
        Record("nodes", "ok", ""),
        Record("nodes", "failed", "", "the answer is not JSON"),
        Record("describe nodes", "ok", "cluster/nodes.txt"),
    ]
    assert "cluster/nodes-gpus.txt" not in stands.shipped()


def test_a_node_without_conditions_labels_or_gpus_is_still_a_row(stands: InProcess) -> None:
    node: dict[str, Any] = {
        "metadata": {"name": "bare"},
        "status": {"conditions": [{"type": "DiskPressure", "status": "False"}]},
    }
    stands.rig.kubectl("get nodes -o json", items(node, {"metadata": {"name": "empty"}}))
    stands.rig.kubectl("describe nodes", "x\n")
    (stands.staging / "ship" / "cluster").mkdir(parents=True)
    cluster_mod.Cluster(stands.runner(), "kubectl").nodes()
    assert stands.shipped()["cluster/nodes-gpus.txt"].splitlines()[1:] == [
        "bare\t?\t0\t0\t",
        "empty\t?\t0\t0\t",
    ]


def failed_job(name: str, when: str, **status: Any) -> dict[str, Any]:
    conditions = [
        {"type": "Complete", "status": "True"},
        {"type": "Failed", "status": "False", "reason": "NotYet"},
        {"type": "Failed", "status": "True", "lastTransitionTime": when, **status},
    ]
    return {
        "metadata": {"namespace": CHECKS, "name": name, "labels": {"gpu-ci/check": name[:5]}},
        "status": {"conditions": conditions},
    }


def test_the_failed_checks_come_first_by_when_they_failed(stands: InProcess) -> None:
    later = failed_job("later-job", "2026-09-01T10:09:00Z", reason="DeadlineExceeded")
    first = failed_job("first-job", "2026-09-01T10:01:00Z", message="Job was active longer")
    unlabelled = failed_job("nolabel", "2026-09-01T10:05:00Z")
    unlabelled["metadata"].pop("labels")
    passed = {"metadata": {"name": "ok"}, "status": {"succeeded": 1}}
    stands.rig.kubectl(
        "get jobs -A -l gpu-ci/check -o json", items(later, passed, first, unlabelled)
    )
    for name in ("later-job", "first-job", "nolabel"):
        stands.rig.kubectl(f"describe job -n {CHECKS} {name}", f"Name: {name}\n")
        stands.rig.kubectl(
            f"get pods -n {CHECKS} -l batch.kubernetes.io/job-name={name} -o json", items()
        )
    ran = stands.runner()
    found = cluster_mod.Cluster(ran, "kubectl").checks()
    assert found == [
        Failure(
            "check Job",
            f"check first (Job {CHECKS}/first-job) failed: Failed (Job was active longer)",
            "checks/first-job-describe.txt",
        ),
        Failure(
            "check Job",
            f"check nolabel (Job {CHECKS}/nolabel) failed: Failed",
            "checks/nolabel-describe.txt",
        ),
        Failure(
            "check Job",
            f"check later (Job {CHECKS}/later-job) failed: DeadlineExceeded",
            "checks/later-job-describe.txt",
        ),
    ]
    assert (
        Record("logs of Job first-job", "skipped", "", "no pod of the Job is left") in ran.records
    )


def test_a_jobs_failure_is_its_failed_condition_else_its_failed_count() -> None:
    assert cluster_mod.job_failure(
        {"status": {"failed": 2}, "metadata": {"creationTimestamp": "T0"}}
    ) == (
        "Failed",
        "2 pod(s) failed",
        "T0",
    )
    assert cluster_mod.job_failure({"status": {"failed": 0, "conditions": None}}) is None
    assert cluster_mod.job_failure({}) is None
    assert cluster_mod.job_failure(
        failed_job("j", "T1", reason="BackoffLimitExceeded", message="m")
    ) == (
        "BackoffLimitExceeded",
        "m",
        "T1",
    )
    assert cluster_mod.job_failure(failed_job("j", "")) == ("Failed", "", "")


def test_a_jobs_step_from_the_termination_message_when_its_log_is_empty(stands: InProcess) -> None:
    job_pod = pod(
        CHECKS,
        "j-pod",
        "T",
        "Failed",
        containerStatuses=[
            {"name": "a"},
            {"name": "b", "state": {"terminated": {"message": "gpu-ci check x: FAILED (said)"}}},
            {"name": "c", "state": {"terminated": {"message": "later one"}}},
        ],
    )
    stands.rig.kubectl(
        f"get pods -n {CHECKS} -l batch.kubernetes.io/job-name=j -o json",
        items(job_pod, pod(CHECKS, "second", "T", "Failed")),
    )
    stands.rig.kubectl(f"logs -n {CHECKS} j-pod --all-containers", "")
    ran = stands.runner()
    assert cluster_mod.Cluster(ran, "kubectl").job_logs(CHECKS, "j") == (
        "gpu-ci check x: FAILED (said)",
        "checks/j.log",
    )


def test_a_failed_log_call_still_reads_the_termination_message(stands: InProcess) -> None:
    job_pod = pod(
        CHECKS,
        "j-pod",
        "T",
        "Failed",
        containerStatuses=[{"name": "b", "state": {"terminated": {"message": "ended: FAILED"}}}],
    )
    stands.rig.kubectl(
        f"get pods -n {CHECKS} -l batch.kubernetes.io/job-name=j -o json", items(job_pod)
    )
    stands.rig.kubectl(f"logs -n {CHECKS} j-pod --all-containers", "log says FAILED too\n")
    assert (
        cluster_mod.Cluster(stands.runner(), "kubectl").job_logs(CHECKS, "j")[0]
        == "log says FAILED too"
    )
    # Without an answer for the logs, the stand-in fails the call.
    for path in (stands.rig.state / "answers").iterdir():
        if "logs" in path.name:
            path.unlink()
    assert (
        cluster_mod.Cluster(stands.runner(), "kubectl").job_logs(CHECKS, "j")[0] == "ended: FAILED"
    )


def test_images_are_those_a_container_ran() -> None:
    pods = [
        {
            "spec": {
                "containers": [
                    {"name": "a", "image": "x:1"},
                    {"name": "b", "image": "y:1"},
                    {"name": "c"},
                ]
            },
            "status": {
                "containerStatuses": [
                    {"name": "a", "imageID": "docker.io/x@sha256:1"},
                    {"name": "b", "imageID": ""},
                    {"name": "c", "imageID": "docker.io/c@sha256:3"},
                    {"name": "z", "imageID": "docker.io/z@sha256:9"},
                ]
            },
        },
        {},
    ]
    assert cluster_mod.images_of(pods) == {"x:1": "docker.io/x@sha256:1"}


REPORT = (
    "| 10:03:12 | gpu-ci-gpu-count | cluster-advertises-2 | ASSERT    | ERROR | v1/Node @ *\n"
    "=== ERROR\n"
    "  Invalid value: 1: Expected value: 2\n"
    "\n"
    "  second line\n"
    "| 10:03:13 | gpu-ci-gpu-count | cleanup | DELETE    | DONE  |\n"
)


@pytest.mark.parametrize(
    ("log", "step"),
    [
        (
            "| 10:03:11 | t | s | APPLY | DONE |\n" + REPORT,
            "Test gpu-ci-gpu-count, step cluster-advertises-2 (ASSERT): Invalid value: 1: "
            "Expected value: 2 second line",
        ),
        (
            "| 10:03:12 | t | s | ASSERT | ERROR |\nfirst error\n--- FAIL: chainsaw\nnot it\n",
            "Test t, step s (ASSERT): first error",
        ),
        (
            "| 10:03:12 | t | s | ASSERT | ERROR |\nfirst error\nFAIL\nnot it\n",
            "Test t, step s (ASSERT): first error",
        ),
        (
            "| 10:03:12 | t | s | ASSERT | ERROR |\n" + "e" * 600 + "\n",
            "Test t, step s (ASSERT): " + "e" * 500,
        ),
        ("a FAILED one\nthen FAILED two\nlast\n", "then FAILED two"),
        ("first\n  last line  \n\n", "last line"),
        ("x" * 600, "x" * 500),
        ("", ""),
        ("\n   \n", ""),
        ("FAILED " + "y" * 600, ("FAILED " + "y" * 600)[:500]),
    ],
    ids=[
        "chainsaw",
        "until-dashes",
        "until-fail",
        "long-error",
        "failed-line",
        "last-line",
        "long-line",
        "empty",
        "blank",
        "long-failed",
    ],
)
def test_the_failing_step_of_a_log(log: str, step: str) -> None:
    assert cluster_mod.failing_step(log) == step


@pytest.mark.parametrize(
    ("status", "reason"),
    [
        ({}, "Unknown"),
        ({"phase": "Pending", "reason": "Unschedulable"}, "Pending, Unschedulable"),
        ({"phase": "Failed", "message": "gone"}, "Failed: gone"),
        (
            {
                "phase": "Pending",
                "initContainerStatuses": [
                    {"name": "init", "state": {"waiting": {"reason": "Init:Error"}}}
                ],
                "containerStatuses": [
                    {"name": "main", "state": {"waiting": {"reason": "PodInitializing"}}}
                ],
            },
            "Pending, container init Init:Error",
        ),
        (
            {
                "phase": "Running",
                "containerStatuses": [
                    {"name": "a", "state": {"terminated": {"exitCode": 0}}, "ready": True},
                    {"name": "b", "state": {"terminated": {"exitCode": 137}}},
                ],
            },
            "Running, container b terminated (Error, exit 137)",
        ),
        (
            {
                "phase": "Running",
                "containerStatuses": [
                    {"name": "a", "ready": False},
                    {"name": "b", "ready": True},
                    {"name": "c", "ready": False},
                    {"name": "d"},
                ],
            },
            "Running, container a, c not ready",
        ),
        (
            {"phase": "Running", "initContainerStatuses": [{"name": "i", "ready": False}]},
            "",
        ),
        (
            {
                "phase": "Running",
                "initContainerStatuses": [
                    {"name": "i", "state": {"terminated": {"reason": "Completed"}}}
                ],
                "containerStatuses": [{"name": "c", "ready": True}],
            },
            "",
        ),
        (
            {
                "phase": "Failed",
                "containerStatuses": [
                    {"name": "c", "state": {"terminated": {"reason": "OOMKilled", "exitCode": 137}}}
                ],
            },
            "Failed, container c terminated (OOMKilled, exit 137)",
        ),
        (
            {
                "phase": "Pending",
                "conditions": [
                    {
                        "type": "PodScheduled",
                        "status": "False",
                        "reason": "Unschedulable",
                        "message": "0/1 nodes fit: node gpu-X",
                    }
                ],
            },
            "Pending, Unschedulable: 0/1 nodes fit: node gpu-X",
        ),
        (
            {
                "phase": "Pending",
                "conditions": [
                    {"type": "Ready", "status": "True", "reason": "x"},
                    {"type": "PodScheduled", "status": "False"},
                    {"type": "PodScheduled", "status": "False", "reason": "Unschedulable"},
                ],
            },
            "Pending, Unschedulable",
        ),
    ],
    ids=[
        "nothing",
        "reason",
        "message",
        "init-first",
        "terminated",
        "unready",
        "init-unready",
        "init-done",
        "oom",
        "condition-message",
        "condition",
    ],
)
def test_more_of_a_pods_reasons(status: dict[str, Any], reason: str) -> None:
    assert cluster_mod.pod_problem({"status": status}) == reason


def test_pod_failures_are_oldest_first_then_by_name() -> None:
    pods = [
        pod("b", "z", "2026-09-01T10:00:00Z", "Pending"),
        pod("a", "y", "2026-09-01T10:00:00Z", "Failed"),
        pod("a", "x", "2026-09-01T09:00:00Z", "Succeeded"),
        pod("a", "w", "2026-09-01T11:00:00Z", "Unknown"),
    ]
    assert cluster_mod.pod_failures(pods) == [
        Failure("pod", "pod a/y: Failed", "cluster/a/describe.txt"),
        Failure("pod", "pod b/z: Pending", "cluster/b/describe.txt"),
        Failure("pod", "pod a/w: Unknown", "cluster/a/describe.txt"),
    ]


def test_a_list_answer_keeps_only_its_objects() -> None:
    answer = json.loads(items({"metadata": {"name": "a"}}))
    answer["items"].append("not an object")
    assert cluster_mod._items(answer) == [{"metadata": {"name": "a"}}]
    assert cluster_mod._items({"items": "x"}) == []
    assert cluster_mod._items([]) == []
    assert cluster_mod._meta({"metadata": {"n": 0}}, "n") == "0"
    assert cluster_mod._meta({"metadata": None}, "n") == ""


def test_checks_that_failed_at_once_come_by_name(stands: InProcess) -> None:
    b = failed_job("b-job", "2026-09-01T10:01:00Z")
    a = failed_job("a-job", "2026-09-01T10:01:00Z")
    stands.rig.kubectl("get jobs -A -l gpu-ci/check -o json", items(b, a))
    for name in ("a-job", "b-job"):
        stands.rig.kubectl(f"describe job -n {CHECKS} {name}", f"Name: {name}\n")
        stands.rig.kubectl(
            f"get pods -n {CHECKS} -l batch.kubernetes.io/job-name={name} -o json", items()
        )
    found = cluster_mod.Cluster(stands.runner(), "kubectl").checks()
    assert [f.path for f in found] == ["checks/a-job-describe.txt", "checks/b-job-describe.txt"]


def test_a_log_call_that_fails_midway_is_not_read(stands: InProcess, runner: ActionSandbox) -> None:
    """`kubectl logs` that printed part of a log and then failed (the connection went):
    the step comes from the pod's termination message instead."""
    job_pod = pod(
        CHECKS,
        "j-pod",
        "T",
        "Failed",
        containerStatuses=[{"name": "b", "state": {"terminated": {"message": "ended: FAILED"}}}],
    )
    stands.rig.kubectl(
        f"get pods -n {CHECKS} -l batch.kubernetes.io/job-name=j -o json", items(job_pod)
    )
    stand_in = runner.sandbox.base / "stand-in" / "kubectl"
    stand_in.parent.mkdir()
    stand_in.symlink_to(STUB)
    kubectl = runner.sandbox.bin / "kubectl"
    kubectl.unlink()
    kubectl.write_text(
        '#!/bin/bash\nif [ "$2" = logs ]; then echo "partial: FAILED"; exit 1; fi\n'
        f'exec {stand_in} "$@"\n'
    )
    kubectl.chmod(0o755)
    assert cluster_mod.Cluster(stands.runner(), "kubectl").job_logs(CHECKS, "j") == (
        "ended: FAILED",
        "checks/j.log",
    )
