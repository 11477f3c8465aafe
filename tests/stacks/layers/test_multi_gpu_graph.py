"""The multi-GPU stack's graph (issue #32): `expectGpus` adds the GPU checks to the platform's
check Jobs, pinned by digest and run after everything they check; without it, a stack's
checks are what they were."""

from __future__ import annotations

from functools import cache
from typing import Any

from components.pins import CHECK_PINS
from components.platform.checks.gpu_count import GPU_COUNT_CHECK
from components.platform.checks.nccl_all_reduce import NCCL_CHECK
from stacks.offline.engine.records import ProgramRun
from stacks.offline.plan import REPO, plan_run
from tests.stacks.stack_helpers import SSH_KEY, dev_stack, run_stack

JOB = "kubernetes:batch/v1:Job"
CONFIGMAP = "kubernetes:core/v1:ConfigMap"
RELEASE = "kubernetes:helm.sh/v3:Release"
ROLE = "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole"
COMPONENT = "gpu-ci:platform:RecipeReleases"
REMOTE = "command:remote:Command"
NO_SHARING = ["gpu-time-slicing:enabled=false", "gpu-operator:devicePlugin.config.name="]


@cache
def multi_gpu() -> ProgramRun:
    return plan_run("multi-gpu", REPO)


def check_jobs(run: ProgramRun) -> dict[str, Any]:
    return {
        r.name.removeprefix("platform-checks-"): r
        for r in run.by_type(JOB)
        if r.name.startswith("platform-checks-")
    }


def test_the_stack_runs_both_gpu_checks_after_what_they_check() -> None:
    run = multi_gpu()
    jobs = check_jobs(run)
    assert {GPU_COUNT_CHECK, NCCL_CHECK} <= set(jobs)
    namespace = run.one("kubernetes:core/v1:Namespace", "platform-checks-ns")
    releases = {r.urn for r in run.by_type(RELEASE) if r.name.startswith("platform-")}
    assert releases <= set(namespace.dependencies)  # every check waits for the namespace
    for name in (GPU_COUNT_CHECK, NCCL_CHECK):
        assert namespace.urn in jobs[name].dependencies
    nccl = jobs[NCCL_CHECK].inputs["spec"]["template"]["spec"]["containers"][0]
    assert nccl["image"] == CHECK_PINS.torch_image
    count = jobs[GPU_COUNT_CHECK].inputs["spec"]["template"]["spec"]["containers"][0]
    assert count["image"] == CHECK_PINS.chainsaw_image
    data = run.one(CONFIGMAP, f"platform-checks-{GPU_COUNT_CHECK}").inputs["data"]
    assert (
        "(sum(items[].to_number(status.allocatable.\"nvidia.com/gpu\" || '0'))): 2\n"
        in (data["chainsaw-test.yaml"])
    )


def test_the_checks_may_list_nodes_and_nothing_more_for_the_count() -> None:
    rules = multi_gpu().one(ROLE, "platform-checks-reader").inputs["rules"]
    assert {"apiGroups": [""], "resources": ["nodes", "pods"], "verbs": ["get", "list"]} in rules


def test_the_readiness_wait_and_the_trainjob_image_agree_with_the_stack() -> None:
    script = multi_gpu().one(REMOTE, "cluster-cluster-ready").inputs["stdin"]
    assert "readonly EXPECTED_GPUS=2" in str(script)
    trainjob = (REPO / "examples" / "multi-gpu" / "nccl-trainjob.yaml").read_text()
    assert f"image: {CHECK_PINS.torch_image}\n" in trainjob


def test_without_expect_gpus_the_checks_are_unchanged() -> None:
    """A derived count (dev's A10.1, or an A10.2 with `gpus: all`) adds no check: the
    readiness wait already waits for it."""
    a10_2 = dev_stack(
        **{
            "gpu-ci:vm": {"shape": "VM.GPU.A10.2", "sshAuthorizedKeys": [SSH_KEY]},
            "gpu-ci:platform": {"set": NO_SHARING},
        }
    )
    jobs = check_jobs(run_stack(a10_2))
    assert GPU_COUNT_CHECK not in jobs and NCCL_CHECK not in jobs


def test_one_gpu_per_worker_says_why_the_nccl_check_does_not_run() -> None:
    values = dev_stack(
        **{
            "gpu-ci:vm": {"shape": "VM.GPU.A10.2", "sshAuthorizedKeys": [SSH_KEY]},
            "gpu-ci:cluster": {"name": "gpu-ci", "gpus": "one-per-gpu", "expectGpus": 2},
            "gpu-ci:platform": {"set": NO_SHARING},
        }
    )
    run = run_stack(values)
    assert set(check_jobs(run)) >= {GPU_COUNT_CHECK} and NCCL_CHECK not in check_jobs(run)
    not_run = run.one(COMPONENT).outputs["checksNotRun"]
    assert not_run[NCCL_CHECK].startswith("no worker has 2 GPUs (each gets 1)")
