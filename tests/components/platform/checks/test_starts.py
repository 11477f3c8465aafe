"""The start Job (`checks/starts.py`): the Chainsaw check pods' own pod spec, started and nothing
more, within the start budget, before any Chainsaw check Job is created; so a pod that never
starts fails that Job, named, instead of each check after its worst case."""

from __future__ import annotations

import copy
import re
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pytest

from components.pins import CHECK_PINS
from components.platform.chainsaw.script import CHAINSAW_BINARY
from components.platform.checks.deployment_checks import DeploymentChecks, DeploymentChecksArgs
from components.platform.checks.gpu_count import GPU_COUNT_CHECK, GpuExpectation
from components.platform.checks.jobs import DIGEST_ANNOTATION, POD_BUILDERS, chainsaw_pod
from components.platform.checks.model import CHECKS_NAMESPACE, STARTUP_S, ClusterCheck
from components.platform.checks.nccl_all_reduce import NCCL_CHECK
from components.platform.checks.plan import SMOKE_CHECK, CheckPlan, plan_checks, smoke_check
from components.platform.checks.starts import START_COMMANDS, starters
from recipes import RecipeResult
from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import ProgramRun, Registration
from stacks.offline.plan import REPO, plan_run
from tests.components.platform.checks.test_deployment_checks import DEV_CHECKS
from tests.components.platform.platform_helpers import CONFIGMAP, JOB, KUBECONFIG
from tests.upstream_tools import tool

START = "platform-checks-chainsaw-pods-start"
SMOKE = f"platform-checks-{SMOKE_CHECK}"
MULTI = (GpuExpectation(2, multi=True, per_node=2), None)


def _pod(job: Registration) -> dict[str, Any]:
    pod: dict[str, Any] = job.inputs["spec"]["template"]["spec"]
    return pod


def _chainsaw_jobs(run: ProgramRun) -> list[Registration]:
    """The Jobs of the Chainsaw checks: those whose Test has a ConfigMap of the same name."""
    tests = {r.name for r in run.by_type(CONFIGMAP)}
    return [r for r in run.by_type(JOB) if r.name in tests]


def _less_the_checks_own(pod: dict[str, Any]) -> dict[str, Any]:
    """A check pod without what belongs to its one check: its command, its Test's volume and
    mount (the start Job needs none of them)."""
    pod = copy.deepcopy(pod)
    del pod["volumes"]
    for container in pod["containers"]:
        del container["command"], container["volumeMounts"]
    return pod


def test_the_start_job_runs_exactly_the_chainsaw_check_pods_spec(patched: ProgramRun) -> None:
    start = _pod(patched.one(JOB, START))
    command = start["containers"][0]["command"]
    assert command == ["/bin/sh", "-c", "exec /ko-app/chainsaw version"]
    assert command[-1].split()[1] == CHAINSAW_BINARY  # the binary the check's script runs
    started = copy.deepcopy(start)
    del started["containers"][0]["command"]
    jobs = _chainsaw_jobs(patched)
    assert len(jobs) == 5
    for job in jobs:
        assert _less_the_checks_own(_pod(job)) == started, job.name
    # what can keep a pod from starting is all there: the image by digest, the account
    # (whose token is mounted), the pod's and the container's security context
    assert start["containers"][0]["image"] == CHECK_PINS.chainsaw_image
    assert re.search(r"@sha256:[0-9a-f]{64}$", CHECK_PINS.chainsaw_image)
    assert start["serviceAccountName"] == "gpu-ci-checks"
    assert start["securityContext"]["runAsNonRoot"] is True
    assert start["containers"][0]["securityContext"]["readOnlyRootFilesystem"] is True
    assert "volumes" not in start and "volumeMounts" not in start["containers"][0]


def test_a_changed_check_pod_changes_the_start_job_with_it(
    recipe: RecipeResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan = plan_checks(recipe, recipe.componentRefs)
    (before,) = starters(plan)

    def placed(check: ClusterCheck, namespace: str) -> dict[str, Any]:
        return {
            **chainsaw_pod(check, namespace),
            "nodeSelector": {"pool": "system"},
            "tolerations": [{"key": "dedicated", "operator": "Exists"}],
            "runtimeClassName": "gvisor",
        }

    monkeypatch.setitem(POD_BUILDERS, "chainsaw", placed)
    (after,) = starters(plan)
    assert after.pod["nodeSelector"] == {"pool": "system"}
    assert after.pod["tolerations"] == [{"key": "dedicated", "operator": "Exists"}]
    assert after.pod["runtimeClassName"] == "gvisor"
    assert after.digest != before.digest  # its Job is replaced: it runs again


def test_every_chainsaw_check_is_created_after_it(patched: ProgramRun) -> None:
    start = patched.one(JOB, START)
    jobs = _chainsaw_jobs(patched)
    assert {j.name.removeprefix("platform-checks-") for j in jobs} == set(DEV_CHECKS) - {
        SMOKE_CHECK
    }
    for job in jobs:
        assert start.urn in job.dependencies, job.name
    # the GPU pod and the Tests' ConfigMaps do not wait for it
    assert start.urn not in patched.one(JOB, SMOKE).dependencies
    assert all(start.urn not in c.dependencies for c in patched.by_type(CONFIGMAP))
    # it waits for what its pod needs: the namespace and the account with its role
    names = {d.rsplit("::", 1)[-1] for d in start.dependencies}
    assert names == {"platform-checks-ns", "platform-checks-reader"}
    assert len(start.dependencies) == 4  # the namespace, ServiceAccount, ClusterRole(Binding)


def test_its_deadline_is_the_start_budget(patched: ProgramRun) -> None:
    job = patched.one(JOB, START)
    spec = job.inputs["spec"]
    assert STARTUP_S == 300
    assert spec["activeDeadlineSeconds"] == STARTUP_S
    assert spec["backoffLimit"] == 0
    assert spec["template"]["spec"]["restartPolicy"] == "Never"
    assert job.options["customTimeouts"] == {"create": "420s", "update": "420s"}
    # replaced like a check Job: on any change of its spec, and when it did not pass
    assert job.options["replaceOnChanges"] == ["spec"]
    assert job.inputs["metadata"]["annotations"] == {"pulumi.com/replaceUnready": "true"}
    assert "name" not in job.inputs["metadata"]  # autonamed: the new one first
    assert job.inputs["metadata"]["namespace"] == CHECKS_NAMESPACE
    labels = spec["template"]["metadata"]["labels"]
    assert labels["gpu-ci/check"] == "chainsaw-pods-start"  # the name says what failed
    digest = spec["template"]["metadata"]["annotations"][DIGEST_ANNOTATION]
    assert re.fullmatch(r"[0-9a-f]{16}", digest)


def test_it_runs_again_with_any_check_it_gates_and_only_then(recipe: RecipeResult) -> None:
    plan = plan_checks(recipe, recipe.componentRefs)
    (start,) = starters(plan)
    gated = plan.by_name["robust-controller"]
    checks = tuple(replace(c, revision="new") if c is gated else c for c in plan.checks)
    (rerun,) = starters(replace(plan, checks=checks))
    assert rerun.digest != start.digest and rerun.pod == start.pod
    smoke = plan.by_name[SMOKE_CHECK]
    checks = tuple(replace(c, revision="new") if c is smoke else c for c in plan.checks)
    (same,) = starters(replace(plan, checks=checks))
    assert same.digest == start.digest  # a GPU pod's change is not its concern


def test_gpu_checks_are_gated_by_the_smoke_job_and_the_count_by_the_start_job(
    recipe: RecipeResult,
) -> None:
    plan = plan_checks(recipe, recipe.componentRefs, gpus=MULTI)
    (start,) = starters(plan)
    assert GPU_COUNT_CHECK in start.checks  # a Chainsaw check: the Chainsaw pod
    assert {c.name for c in plan.checks if c.kind == "chainsaw"} == set(start.checks)
    assert plan.by_name[NCCL_CHECK].after == (SMOKE_CHECK,)
    assert set(START_COMMANDS) == {"chainsaw"}  # the smoke Job is the GPU pods' start


def test_the_multi_gpu_stacks_graph() -> None:
    run = plan_run("multi-gpu", REPO)
    start = run.one(JOB, START)
    jobs = {r.name: r for r in run.by_type(JOB)}
    assert start.urn in jobs[f"platform-checks-{GPU_COUNT_CHECK}"].dependencies
    assert jobs[SMOKE].urn in jobs[f"platform-checks-{NCCL_CHECK}"].dependencies
    assert start.urn not in jobs[f"platform-checks-{NCCL_CHECK}"].dependencies
    assert start.urn not in jobs[SMOKE].dependencies


def test_no_start_job_without_a_chainsaw_check() -> None:
    plan = CheckPlan(checks=(smoke_check(["gpu-operator"]),))
    assert starters(plan) == []

    def program() -> None:
        provider = k8s.Provider("kind", kubeconfig=KUBECONFIG)
        DeploymentChecks(
            "platform-checks",
            DeploymentChecksArgs(plan=plan),
            pulumi.ResourceOptions(provider=provider),
        )

    run = run_program(program, project="gpu-ci", stack="starts-test", config={})
    assert [j.name for j in run.by_type(JOB)] == [SMOKE]
    names = {d.rsplit("::", 1)[-1] for d in run.one(JOB, SMOKE).dependencies}
    assert names == {"platform-checks-ns"}


def test_the_start_command_needs_no_cluster(tmp_path: Path) -> None:
    """The pinned Chainsaw runs the start command as the pod would: no kubeconfig, no
    writable home, no cluster (kyverno/chainsaw v0.2.15 `version` only prints)."""
    shell, flag, script = START_COMMANDS["chainsaw"]
    binary = tool("chainsaw")
    done = subprocess.run(
        [shell, flag, script.replace(CHAINSAW_BINARY, str(binary))],
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "absent")},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "Version: v0.2.15"
    assert list(tmp_path.iterdir()) == []  # it wrote nothing
