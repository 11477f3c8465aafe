"""`runners-ephemeral`, exactly: a runner step's script wherever the Command holds it, and
the legacy actions-runner-controller kinds with `ephemeral: false` at either level
(mutation-testing survivors of policy/runners.py)."""

from __future__ import annotations

from typing import Any

import pytest

from policy.rule import Resource
from policy.runners import LEGACY_RUNNERS, check_runner_ephemeral

STEP = "readonly GPU_CI_STEP='github-runner'\n"
PERSISTENT = (
    "r (command:remote:Command): the github-runner step registers a persistent runner "
    "(EPHEMERAL is not true); set gpu-ci:runner.ephemeral: true"
)


def check(kind: str, **props: Any) -> list[str]:
    return check_runner_ephemeral(Resource(kind, "r", props), {})


@pytest.mark.parametrize("key", ["stdin", "create"])
def test_a_runner_step_is_judged_in_stdin_or_create(key: str) -> None:
    assert check("command:remote:Command", **{key: STEP}) == [PERSISTENT]
    on = STEP + "readonly EPHEMERAL='true'\n"
    assert check("command:remote:Command", **{key: on}) == []


@pytest.mark.parametrize("kind", LEGACY_RUNNERS)
def test_a_legacy_runner_kind_with_ephemeral_false_at_either_level_is_refused(kind: str) -> None:
    refused = [f"r ({kind}): runners must be ephemeral (ephemeral: false is set)"]
    assert check(kind, spec={"ephemeral": False}) == refused
    assert check(kind, spec={"template": {"spec": {"ephemeral": False}}}) == refused
    template = {"template": {"spec": {"ephemeral": False}}}
    assert check(kind, spec={"ephemeral": True, **template}) == refused
    assert check(kind, spec={"ephemeral": False, "template": {"spec": {}}}) == refused


@pytest.mark.parametrize(
    "spec",
    [
        None,
        {},
        {"ephemeral": True},
        {"template": None},
        {"template": {"spec": None}},
        {"template": {"spec": {"ephemeral": True}}},
    ],
)
def test_a_legacy_runner_left_ephemeral_passes(spec: Any) -> None:
    assert check(LEGACY_RUNNERS[1], spec=spec) == []


def test_other_kinds_with_ephemeral_false_are_not_runners() -> None:
    assert check("kubernetes:apps/v1:Deployment", spec={"ephemeral": False}) == []
