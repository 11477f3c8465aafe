"""A Test's worst case (`chainsaw/worst_case.py`): every operation's own timeout, as the
pinned chainsaw resolves it, summed. The binary confirms each per-operation value: Chainsaw
binds `$timeouts` to the operation's timeouts (v0.2.15 `pkg/runner/context/context.go`
`WithTimeouts`), so each probe below passes at once when the computed value is right."""

from __future__ import annotations

import copy
from typing import Any

from components.platform.chainsaw.worst_case import operation_timeouts, worst_case_s
from tests.components.platform.chainsaw_runs import run_script

NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "gpu-ci-checks"}}
CLI = {"assert": 60.0, "error": 60.0}  # the check Job's --assert/--error-timeout (1m here)


def _probe(kind: str, seconds: float, timeout: str | None = None) -> dict[str, Any]:
    """An operation that passes at once iff Chainsaw gives it `seconds`."""
    ns = str(int(seconds * 1e9))
    resource: dict[str, Any]
    if kind == "assert":
        resource = {**NAMESPACE, "(to_string($timeouts.assert))": ns}
    else:  # an error passes when nothing matches: match only a wrong value
        resource = {**NAMESPACE, f"(to_string($timeouts.error) != '{ns}')": True}
    body: dict[str, Any] = {"resource": resource}
    if timeout is not None:
        body["timeout"] = timeout
    return {kind: body}


LAYERED: dict[str, Any] = {
    "apiVersion": "chainsaw.kyverno.io/v1alpha1",
    "kind": "Test",
    "metadata": {"name": "t"},
    "spec": {
        "timeouts": {"assert": "3s"},
        "steps": [
            {
                "name": "own-and-step",
                "timeouts": {"assert": "2s"},
                "try": [("assert", "1s"), ("assert", None), ("error", None)],
            },
            {"name": "spec-level", "try": [("assert", None), ("error", "4s")]},
        ],
    },
}


def _with_probes(test: dict[str, Any], expected: list[float]) -> dict[str, Any]:
    doc = copy.deepcopy(test)
    values = iter(expected)
    for step in doc["spec"]["steps"]:
        step["try"] = [_probe(k, next(values), t) for k, t in step["try"]]
    return doc


def _plain(test: dict[str, Any]) -> dict[str, Any]:
    return _with_probes(test, [0.0] * 5)


def test_each_operation_gets_its_own_step_spec_or_command_line_timeout() -> None:
    plain = _plain(LAYERED)
    computed = [s for _, _, s in operation_timeouts(plain, CLI)]
    # own 1s; step 2s; error: no level sets one, the command line's 1m; spec 3s; own 4s.
    assert computed == [1.0, 2.0, 60.0, 3.0, 4.0]
    run = run_script(_with_probes(LAYERED, computed), [], quick=False)
    assert run.verdict == "gpu-ci check recorded: passed (Test t)", run.output


def test_the_binary_refuses_a_wrong_value() -> None:
    run = run_script(_with_probes(LAYERED, [1.0, 3.0, 60.0, 3.0, 4.0]), [], quick=False)
    assert run.verdict.startswith("gpu-ci check recorded: FAILED (Test t, step own-and-step")


def test_the_worst_case_is_the_sum_in_series() -> None:
    assert worst_case_s(_plain(LAYERED), CLI) == 1 + 2 + 60 + 3 + 4


def test_without_any_level_chainsaw_s_own_defaults_apply() -> None:
    test: dict[str, Any] = {
        "spec": {"steps": [{"try": [{"assert": {}}, {"error": {}}, {"script": {}}]}]}
    }
    # v1alpha1 DefaultTimeouts: assert 30s, error 30s, exec 5s.
    assert worst_case_s(test) == 30 + 30 + 5


def test_catch_cleanup_and_the_tests_catch_count_once_per_step() -> None:
    # Their operations are Chainsaw's `CatchFinally` kinds (no assert/error: v0.2.15 refuses
    # one there), so the binary cannot probe them; the rules are runner.go's.
    test = {
        "spec": {
            "timeouts": {"exec": "10s", "delete": "7s"},
            "catch": [{"events": {}}],
            "steps": [
                {"try": [{"sleep": {"duration": "2s"}}], "catch": [{"podLogs": {}}]},
                {"try": [{"wait": {"timeout": "1m"}}], "cleanup": [{"delete": {}}]},
            ],
        }
    }
    paths = [p for p, _, _ in operation_timeouts(test)]
    assert paths == [
        "spec.steps[0].try[0].sleep",
        "spec.steps[0].catch[0].podLogs",
        "spec.steps[0] (spec.catch[0].events)",
        "spec.steps[1].try[0].wait",
        "spec.steps[1] (spec.catch[0].events)",
        "spec.steps[1].cleanup[0].delete",
    ]
    # sleep 2s; exec 10s; exec 10s; wait 1m + 30s (wait.go); exec 10s; delete 7s.
    assert worst_case_s(test) == 2 + 10 + 10 + 90 + 10 + 7


def test_a_steps_finally_counts_between_the_catches_and_its_cleanup() -> None:
    test = {
        "spec": {
            "timeouts": {"exec": "10s", "delete": "7s"},
            "steps": [
                {
                    "try": [{"script": {}}],
                    "finally": [{"command": {"timeout": "3s"}}, {"describe": {}}],
                    "cleanup": [{"delete": {}}],
                }
            ],
        }
    }
    assert list(operation_timeouts(test)) == [
        ("spec.steps[0].try[0].script", "script", 10.0),
        ("spec.steps[0].finally[0].command", "command", 3.0),
        ("spec.steps[0].finally[1].describe", "describe", 10.0),
        ("spec.steps[0].cleanup[0].delete", "delete", 7.0),
    ]


def test_an_operations_description_and_options_are_not_operations() -> None:
    # An entry's `description`, `continueOnError` and `compiler` sit beside its one
    # operation (the v0.2.15 schema's `try` items: components/platform/chainsaw/), in
    # any order.
    entries = [
        {"description": "first", "continueOnError": True, "assert": {"timeout": "4s"}},
        {"error": {"timeout": "6s"}, "compiler": "cel", "description": "last"},
    ]
    test = {"spec": {"steps": [{"try": entries}]}}
    assert [(p, k) for p, k, _ in operation_timeouts(test)] == [
        ("spec.steps[0].try[0].assert", "assert"),
        ("spec.steps[0].try[1].error", "error"),
    ]
    assert worst_case_s(test) == 4 + 6


def test_a_sleep_takes_its_duration_and_a_zero_one_nothing() -> None:
    sleeps = [{"sleep": {"duration": "0s"}}, {"sleep": {"duration": "1.5s"}}]
    test = {"spec": {"timeouts": {"exec": "1h"}, "steps": [{"try": sleeps}]}}
    assert [s for _, _, s in operation_timeouts(test)] == [0.0, 1.5]
    assert worst_case_s(test) == 2  # rounded up
