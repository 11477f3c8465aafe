"""What the collector reads out of a failure: the failing step in the pinned Chainsaw's own
output, a pod's reason, and what its redaction takes (and leaves) in a line."""

from __future__ import annotations

from typing import Any

import pytest

from components.platform.checks.gpu_count import GpuExpectation, gpu_count_check
from core import yaml_text
from tests.components.platform.chainsaw_runs import run_check

from ..action_sandbox import ActionSandbox
from .collect_modules import module
from .test_collect_step import a_failed_run

cluster = module("collect_cluster")
redact = module("collect_redact")


def one_gpu_node() -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "kind-worker"},
            "status": {"allocatable": {"cpu": "30", "nvidia.com/gpu": "1"}},
        }
    ]


def test_the_failing_step_is_read_from_the_pinned_chainsaws_output(runner: ActionSandbox) -> None:
    """`chainsaw test --quiet` v0.2.15, the gpu-count check on a cluster with one GPU of
    two: its output is the check Job's log, and the summary names the Test, the step and
    the field Chainsaw reports."""
    check = gpu_count_check(GpuExpectation(2, multi=False, per_node=2), None, ("gpu-operator",))
    outcome = run_check(yaml_text.load(check.test), one_gpu_node())
    assert (outcome.passed, outcome.step) == (False, "cluster-advertises-2-nvidia-gpu")
    step = cluster.failing_step(outcome.output)
    assert step == (
        "Test gpu-ci-gpu-count, step cluster-advertises-2-nvidia-gpu (ASSERT): "
        "(x_k8s_list($client, 'v1', 'Node', '')).(sum(items[].to_number(status.allocatable."
        "\"nvidia.com/gpu\" || '0'))): Invalid value: 1: Expected value: 2"
    )
    rig = a_failed_run(runner)
    rig.check_job("platform-checks-gpu-count-0c1d2e3", "gpu-count", outcome.output)
    assert runner.run("collect").returncode == 0
    assert runner.step_outputs()["first-failure"] == (
        "check gpu-count (Job gpu-ci-checks/platform-checks-gpu-count-0c1d2e3) failed: "
        f"BackoffLimitExceeded (Job has reached the specified backoff limit); {step}"
    )


def test_a_gpu_checks_failed_line_is_its_step() -> None:
    log = "rank 0 on NVIDIA A10\ngpu-ci check nccl-all-reduce: FAILED (timeout: no result)\n"
    assert cluster.failing_step(log) == "gpu-ci check nccl-all-reduce: FAILED (timeout: no result)"
    assert cluster.failing_step("") == ""


@pytest.mark.parametrize(
    ("status", "reason"),
    [
        (
            {
                "phase": "Pending",
                "conditions": [
                    {
                        "type": "PodScheduled",
                        "status": "False",
                        "reason": "Unschedulable",
                        "message": "0/2 nodes are available: 2 Insufficient nvidia.com/gpu.",
                    }
                ],
            },
            "Pending, Unschedulable: 0/2 nodes are available: 2 Insufficient nvidia.com/gpu.",
        ),
        (
            {
                "phase": "Pending",
                "containerStatuses": [
                    {"name": "c", "state": {"waiting": {"reason": "ImagePullBackOff"}}}
                ],
            },
            "Pending, container c ImagePullBackOff",
        ),
        (
            {
                "phase": "Failed",
                "containerStatuses": [
                    {"name": "c", "state": {"terminated": {"reason": "Error", "exitCode": 3}}}
                ],
            },
            "Failed, container c terminated (Error, exit 3)",
        ),
        (
            {"phase": "Failed", "reason": "Evicted", "message": "low on memory"},
            "Failed, Evicted: low on memory",
        ),
        ({"phase": "Succeeded"}, ""),
        ({"phase": "Running", "containerStatuses": [{"name": "c", "ready": True}]}, ""),
    ],
)
def test_a_pods_reason(status: dict[str, Any], reason: str) -> None:
    assert cluster.pod_problem({"status": status}) == reason


def test_redaction_takes_the_credential_and_leaves_the_structure() -> None:
    redactor = redact.Redactor()
    kubeconfig = (
        "apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: Q0EtREFUQS1YWVo=\n"
        "    server: https://127.0.0.1:6443\nusers:\n- name: kind-kind\n  user:\n"
        "    client-key-data: S0VZLURBVEEtMTIzNDU2\n"
    )
    redactor.add([kubeconfig])
    assert redactor.literals == {
        kubeconfig.strip().encode(),
        b"Q0EtREFUQS1YWVo=",
        b"S0VZLURBVEEtMTIzNDU2",
    }
    assert redactor.line(b"apiVersion: v1 server: https://127.0.0.1:6443") == (
        b"apiVersion: v1 server: https://127.0.0.1:6443"
    )
    assert redactor.line(b'{"token": "eyJhbGciOiJSUzI1NiJ9.abc", "kind": "Config"}') == (
        b'{"token": "[REDACTED]", "kind": "Config"}'
    )
    assert redactor.line(b"seen S0VZLURBVEEtMTIzNDU2 again") == b"seen [REDACTED] again"
    assert redactor.line(b"github_pat_11ABCDEFG0123456789abcdefghij") == b"github_pat_[REDACTED]"
    assert redactor.line(b"automountServiceAccountToken: false") == (
        b"automountServiceAccountToken: false"
    )
    assert list(redactor.stream([b"-----BEGIN PRIVATE KEY-----\n", b"MIIEvQ\n"])) == [
        b"-----BEGIN PRIVATE KEY-----\n[REDACTED]\n"
    ]  # a block never closed is cut to the end


def test_only_the_outputs_marked_secret_are_taken() -> None:
    shown = {"cluster": {"name": "kind"}, "kubeconfig": "apiVersion: v1", "nested": {"t": "x1"}}
    public = {"cluster": {"name": "kind"}, "kubeconfig": "[secret]", "nested": {"t": "[secret]"}}
    assert sorted(redact.secret_values(public, shown)) == ["apiVersion: v1", "x1"]
