"""Every place Chainsaw v0.2.15 runs an operation is held to the read-only allowlist
(issue #40, item 2): each step's `try`, `catch`, `finally` and `cleanup`, and the Test's
own `spec.catch`, which Chainsaw runs when a step fails (`pkg/runner/runner.go`) and which
the preview used to skip, so a `script` there would have printed what it liked into the
Job's log, which `pulumi up` shows."""

from __future__ import annotations

from typing import Any

import pytest

from components.platform.chainsaw.documents import TEST_LEVEL, operations
from tests.components.platform.health_docs import WHERE, doc, refused

ALLOWLIST = (
    "is not allowed; health checks run read-only, with `assert` and `error` in `try` only "
    "(AICR validators/chainsaw/allowlist.go)"
)
CATCH_OPERATIONS: list[dict[str, Any]] = [
    {"script": {"content": "kubectl get secrets -A -o yaml"}},
    {"command": {"entrypoint": "cat", "args": ["/var/run/secrets/token"]}},
    {"get": {"apiVersion": "v1", "kind": "Secret"}},
    {"describe": {"apiVersion": "v1", "kind": "Secret"}},
    {"podLogs": {"selector": "app=x"}},
    {"events": {}},
    {"delete": {"ref": {"apiVersion": "v1", "kind": "Pod", "name": "p"}}},
    {"wait": {"apiVersion": "v1", "kind": "Pod", "for": {"deletion": {}}}},
    {"sleep": {"duration": "1s"}},
]


@pytest.mark.parametrize("entry", CATCH_OPERATIONS, ids=lambda e: next(iter(e)))
def test_an_operation_in_the_tests_own_catch_is_refused(entry: dict[str, Any]) -> None:
    (kind,) = entry
    message = refused(doc(catch=[{"description": "on failure", **entry}]))
    assert message == f"{WHERE}: spec catch: `{kind}` {ALLOWLIST}"


@pytest.mark.parametrize("block", ["catch", "finally", "cleanup"])
def test_an_operation_in_a_steps_other_blocks_is_refused(block: str) -> None:
    test = doc()
    test["spec"]["steps"][0][block] = [{"script": {"content": "env"}}]
    assert refused(test) == f"{WHERE}: step 's' {block}: `script` {ALLOWLIST}"


def test_operations_walks_the_tests_catch_after_the_steps() -> None:
    test = doc(catch=[{"script": {"content": "env"}}])
    test["spec"]["steps"][0]["finally"] = [{"sleep": {"duration": "1s"}}]
    found = [(op.step, op.block, op.kind, op.path) for op in operations(test)]
    assert found == [
        ("s", "try", "assert", "spec.steps[0].try[0].assert"),
        ("s", "finally", "sleep", "spec.steps[0].finally[0].sleep"),
        (TEST_LEVEL, "catch", "script", "spec.catch[0].script"),
    ]
