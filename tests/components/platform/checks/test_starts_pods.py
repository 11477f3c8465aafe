"""Which start Jobs a plan gets (`checks/starts.py`), without running the program: one per
distinct Chainsaw pod spec, named in the order of its first check, covering exactly the
checks of that spec; the start pod is the check pod less each check's own parts, and the
check's pod is left as it was. `test_starts.py` runs them in the whole program."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from components.platform.checks.jobs import DIGEST_ANNOTATION, POD_BUILDERS, chainsaw_pod
from components.platform.checks.model import CHECKS_NAMESPACE, STARTUP_S, ClusterCheck
from components.platform.checks.plan import CheckPlan, smoke_check
from components.platform.checks.starts import START_COMMANDS, starters, starts_job, starts_pod

COMMAND = ["/bin/sh", "-c", "exec /ko-app/chainsaw version"]


def _check(name: str) -> ClusterCheck:
    return ClusterCheck(name=name, kind="chainsaw", summary="", timeout_s=60, test_name="t")


def _by_pool(check: ClusterCheck, namespace: str) -> dict[str, Any]:
    """A Chainsaw pod placed on a pool named by the check's first letter."""
    return {**chainsaw_pod(check, namespace), "nodeSelector": {"pool": check.name[0]}}


def test_the_start_pod_keeps_the_pod_and_drops_only_the_checks_own_parts() -> None:
    pod = {
        "serviceAccountName": "gpu-ci-checks",
        "nodeSelector": {"pool": "system"},
        "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
        "volumes": [{"name": "test", "configMap": {"name": "c"}}],
        "containers": [
            {
                "name": "chainsaw",
                "image": "img",
                "command": ["/bin/sh", "-c", "check"],
                "args": ["--x"],
                "volumeMounts": [{"name": "test", "mountPath": "/checks"}],
                "env": [{"name": "HOME", "value": "/tmp"}],
            },
            {"name": "second", "image": "other", "command": ["b"]},
        ],
    }
    before = copy.deepcopy(pod)
    start = starts_pod("chainsaw", pod)
    assert start == {
        "serviceAccountName": "gpu-ci-checks",
        "nodeSelector": {"pool": "system"},
        "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
        "containers": [
            {
                "name": "chainsaw",
                "image": "img",
                "env": [{"name": "HOME", "value": "/tmp"}],
                "command": COMMAND,
            },
            {"name": "second", "image": "other", "command": COMMAND},
        ],
    }
    start["securityContext"]["seccompProfile"]["type"] = "Unconfined"
    start["containers"][0]["env"][0]["value"] = "/root"
    start["containers"][0]["command"].append("x")
    assert pod == before  # the start pod shares no object with the check's pod
    assert start["containers"][1]["command"] == COMMAND  # each container has its own
    assert START_COMMANDS["chainsaw"] == tuple(COMMAND)


def test_one_start_job_per_distinct_pod_numbered_in_the_order_of_its_first_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(POD_BUILDERS, "chainsaw", _by_pool)
    checks = (
        _check("b1"),
        smoke_check(["gpu-operator"]),  # a GPU pod: no start Job
        _check("a1"),
        _check("b2"),
    )
    found = starters(CheckPlan(checks=checks))
    assert [(s.name, s.kind, s.checks) for s in found] == [
        ("chainsaw-pods-start-1", "chainsaw", ("b1", "b2")),
        ("chainsaw-pods-start-2", "chainsaw", ("a1",)),
    ]
    assert [s.pod["nodeSelector"] for s in found] == [{"pool": "b"}, {"pool": "a"}]
    assert found[0].pod == starts_pod("chainsaw", _by_pool(checks[0], CHECKS_NAMESPACE))
    assert all(s.deadline_s == STARTUP_S for s in found)
    assert found[0].digest != found[1].digest


def _in_namespace(check: ClusterCheck, namespace: str) -> dict[str, Any]:
    """A Chainsaw pod whose container is told its namespace."""
    pod = chainsaw_pod(check, namespace)
    pod["containers"][0]["env"].append({"name": "CHECKS_NAMESPACE", "value": namespace})
    return pod


def test_one_pod_spec_gets_one_unnumbered_start_job_built_for_its_namespace(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(POD_BUILDERS, "chainsaw", _in_namespace)
    plan = CheckPlan(checks=(_check("a"), _check("b")))
    (start,) = starters(plan, "elsewhere")
    assert (start.name, start.checks) == ("chainsaw-pods-start", ("a", "b"))
    assert start.pod == starts_pod("chainsaw", _in_namespace(_check("a"), "elsewhere"))
    assert {"name": "CHECKS_NAMESPACE", "value": "elsewhere"} in start.pod["containers"][0]["env"]


def _reordered(check: ClusterCheck, namespace: str) -> dict[str, Any]:
    """The same pod as `chainsaw_pod`, its keys in reverse order for every other check."""
    pod = chainsaw_pod(check, namespace)
    return dict(reversed(pod.items())) if check.name == "b" else pod


def test_pods_equal_but_for_their_keys_order_share_one_start_job(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (before,) = starters(CheckPlan(checks=(_check("a"), _check("b"))))
    monkeypatch.setitem(POD_BUILDERS, "chainsaw", _reordered)
    (start,) = starters(CheckPlan(checks=(_check("a"), _check("b"))))
    assert (start.name, start.checks) == ("chainsaw-pods-start", ("a", "b"))
    assert start.digest == before.digest  # the digest reads the pod, not its keys' order


def test_the_digest_does_not_depend_on_the_order_of_the_checks() -> None:
    (forward,) = starters(CheckPlan(checks=(_check("a"), _check("b"))))
    (backward,) = starters(CheckPlan(checks=(_check("b"), _check("a"))))
    assert forward.checks == ("a", "b") and backward.checks == ("b", "a")
    assert forward.digest == backward.digest
    (fewer,) = starters(CheckPlan(checks=(_check("a"),)))
    assert fewer.digest != forward.digest


def test_the_start_job_runs_its_pod_once_within_the_start_budget() -> None:
    (start,) = starters(CheckPlan(checks=(_check("a"),)))
    job = starts_job(start, "elsewhere")
    assert job["metadata"]["namespace"] == "elsewhere"
    assert job["metadata"]["labels"] == job["spec"]["template"]["metadata"]["labels"]
    assert "chainsaw-pods-start" in job["metadata"]["labels"].values()
    spec = job["spec"]
    assert (spec["activeDeadlineSeconds"], spec["backoffLimit"]) == (STARTUP_S, 0)
    template = spec["template"]
    assert template["metadata"]["annotations"] == {DIGEST_ANNOTATION: start.digest}
    # the same form as every check Job's digest: 16 hex digits of a SHA-256
    assert re.fullmatch(r"[0-9a-f]{16}", start.digest)
    assert len(start.digest) == len(_check("a").digest)
    assert template["spec"] == {"restartPolicy": "Never", **start.pod}
