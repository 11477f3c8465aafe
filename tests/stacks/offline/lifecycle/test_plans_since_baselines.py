"""A stack deployed before a change upgrades with nothing replaced: the golden plans.

Each example stack is planned with today's code and diffed, by the engine's rules, against
its plan from before a change that must not move live resources:
- `plans-before-architecture/` (commit 270ecdc): the one-way architecture (#18) moved and
  split modules and changed how components take their options;
- `plans-before-observability/` (commit 4bb544c): observability (#19) added monitoring,
  ARC's metrics and the GPU operator's DCGM monitor to existing stacks.
The one replacement allowed is a deployment-check Job whose spec changed: a check
Job re-runs, by design, whenever the check or what it checks changes (checks/jobs.py); the
checks became Chainsaw Jobs since (issue #31), which changed every check's pod.
"""

from __future__ import annotations

import gzip
import json
from functools import cache
from typing import Any

import pytest

from stacks.offline.lifecycle.fate import Fate, Lifecycle, classify
from stacks.offline.plan import REPO, plan_stack
from tests.stacks.stack_helpers import DEV_CHECK_JOBS, DEV_HEALTH_CHECKS, DEV_MONITORING

GOLDEN = REPO / "tests" / "golden"
BASELINES = ("plans-before-architecture", "plans-before-observability")
EXAMPLES = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in REPO.glob("Pulumi.*.yaml"))
NEWER = ("multi-gpu",)
"""Example stacks added after both baselines (issue #32): nothing deployed from before."""
STACKS = [stack for stack in EXAMPLES if stack not in NEWER]
CASES = [(baseline, stack) for baseline in BASELINES for stack in STACKS]
JOB = "kubernetes:batch/v1:Job"


@cache
def before(baseline: str, stack: str) -> dict[str, Any]:
    path = GOLDEN / baseline / f"{stack}.json.gz"
    data: dict[str, Any] = json.loads(gzip.decompress(path.read_bytes()))
    return data


@cache
def lifecycle(baseline: str, stack: str) -> Lifecycle:
    return classify(before(baseline, stack), plan_stack(stack))


def is_check_rerun(fate: Fate) -> bool:
    return (
        fate.op == "replace"
        and fate.type == JOB
        and fate.name.startswith("platform-checks-")
        and all(path.startswith("spec.") for path in fate.replace_because)
        and bool(fate.replace_because)
    )


@pytest.mark.parametrize("baseline", BASELINES)
def test_every_example_stack_has_a_plan_from_before(baseline: str) -> None:
    found = sorted(p.name.removesuffix(".json.gz") for p in (GOLDEN / baseline).glob("*.json.gz"))
    assert found == STACKS
    assert set(NEWER) <= set(EXAMPLES)  # each newer stack exists, and has no baseline above


@pytest.mark.parametrize(("baseline", "stack"), CASES)
def test_nothing_is_replaced_or_deleted(baseline: str, stack: str) -> None:
    destructive = [
        f"{fate.op} {fate.urn} ({', '.join(fate.replace_because) or 'no input named'})"
        for fate in lifecycle(baseline, stack).changed
        if fate.op in ("replace", "may-replace", "delete") and not is_check_rerun(fate)
    ]
    assert destructive == []


@pytest.mark.parametrize(("baseline", "stack"), CASES)
def test_every_resource_keeps_its_urn_or_an_alias_to_it(baseline: str, stack: str) -> None:
    old = {r["urn"] for r in before(baseline, stack)["resources"]}
    fates = lifecycle(baseline, stack).fates
    kept = {f.previous_urn or f.urn for f in fates if f.op != "delete"}
    assert old - kept == set()


def _names(baseline: str, stack: str, op: str) -> list[str]:
    return sorted(f.name for f in lifecycle(baseline, stack).changed if f.op == op)


def test_observability_on_dev_adds_monitoring_and_updates_the_operator() -> None:
    added = sorted(DEV_MONITORING + [name for name, _ in DEV_HEALTH_CHECKS])
    assert _names("plans-before-observability", "dev", "create") == added
    updated = _names("plans-before-observability", "dev", "update")
    assert "platform-gpu-operator" in updated
    assert _names("plans-before-observability", "dev", "replace") == DEV_CHECK_JOBS


def test_observability_on_arc_updates_every_arc_release_in_place() -> None:
    updated = set(_names("plans-before-observability", "arc", "update"))
    arc_releases = {  # the controller already served metrics (`metrics: true` in the stack)
        "scale-set-oracle-vm-gpu-a10-1",
        "scale-set-oracle-vm-gpu-a10-2",
        "scale-set-oke-gpu-a10-pod",
    }
    assert arc_releases <= updated
    created = set(_names("plans-before-observability", "arc", "create"))
    assert {
        "monitoring-arc-listeners",
        "monitoring-arc-controller",
        "platform-gpu-operator",
    } <= created


@pytest.mark.parametrize("stack", ["gpu-dev", "workstation"])
def test_stacks_that_deploy_onto_no_cluster_are_unchanged(stack: str) -> None:
    """Except the authorized-keys step, which re-runs in place on a VM once: its script
    now revokes a key taken out of `vm.sshAuthorizedKeys` (issue 37)."""
    changed = lifecycle("plans-before-observability", stack).changed
    keys = [f for f in changed if f.name.endswith("-authorized-keys")]
    assert [(f.op, [c.path for c in f.inputs]) for f in keys] == (
        [("update", ["stdin"])] if stack == "gpu-dev" else []
    )
    assert [f for f in changed if f not in keys] == []
