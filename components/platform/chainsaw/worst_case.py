"""How long a Chainsaw Test may run at worst: the serial sum of its operations' timeouts.

Chainsaw v0.2.15 runs a Test's steps one after another and, in a step, its operations one
after another (kyverno/chainsaw v0.2.15 `pkg/runner/runner.go`, `runStep`/`runOperation`),
and bounds each operation by its own deadline: `context.WithTimeout(ctx, tc.Timeouts().X)`
in `pkg/runner/operations/{assert,error,apply,create,patch,update,delete,command,script,
get,describe,podlogs,proxy}.go` (`wait.go` adds 30s to its Exec timeout; `sleep` waits its
duration). An operation that waits its whole timeout and then matches lets the next one
start, so the Test's worst case is the sum, not the longest single wait.

Which timeout an operation gets (`pkg/runner/context/context.go` `WithTimeouts`: a level
replaces only the kinds it sets): its own `timeout`, else its step's `timeouts`, else the
Test's `spec.timeouts`, else the configuration's, which `chainsaw test --<kind>-timeout`
replaces (`pkg/commands/test/command.go`), else the configuration defaults (`pkg/apis/
v1alpha1/types.go` `DefaultTimeouts`: apply 5s, assert 30s, cleanup 30s, delete 15s,
error 30s, exec 5s; the default configuration `pkg/data/config/default.yaml` sets none).

Catch, finally and cleanup run too: a step's `catch` (with the Test's `spec.catch`, which
`SetupContext` adds to every step's) when the step failed, its `finally` and `cleanup`
always; all are counted, once per step, an upper bound. The tests check every rule here
against the binary itself (`$timeouts`, the binding Chainsaw gives each operation).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any

from components.platform.chainsaw.durations import DurationError, parse_ns

DEFAULTS_S = {"apply": 5.0, "assert": 30.0, "cleanup": 30.0, "delete": 15.0, "error": 30.0}
DEFAULTS_S["exec"] = 5.0
"""`DefaultTimeouts` of kyverno/chainsaw v0.2.15 `pkg/apis/v1alpha1/types.go`."""
TIMEOUT_KIND = {
    "assert": "assert",
    "error": "error",
    "apply": "apply",
    "create": "apply",
    "patch": "apply",
    "update": "apply",
    "delete": "delete",
    "command": "exec",
    "script": "exec",
    "get": "exec",
    "describe": "exec",
    "podLogs": "exec",
    "events": "exec",
    "proxy": "exec",
    "wait": "exec",
}
"""Which of `Timeouts` bounds each operation (the `Timeouts{X: o.op.Timeout}` of each
`pkg/runner/operations/*.go`; `events` is a `get` of Events: `operations/factory.go`)."""
WAIT_EXTRA_S = 30.0
"""`wait.go`: `context.WithTimeout(ctx, timeout+30*time.Second)`."""
_NOT_OPERATIONS = ("compiler", "continueOnError", "description")


def _seconds(value: Any) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        return parse_ns(value) / 1e9
    except DurationError:
        return None


def _merged(base: Mapping[str, float], timeouts: Mapping[str, Any] | None) -> dict[str, float]:
    merged = dict(base)
    for kind, value in (timeouts or {}).items():
        seconds = _seconds(value)
        if seconds is not None:
            merged[kind] = seconds
    return merged


def operation_timeouts(
    test: Mapping[str, Any], defaults: Mapping[str, float] | None = None
) -> Iterator[tuple[str, str, float]]:
    """(path, operation kind, seconds Chainsaw may spend on it) for every operation that
    may run, in order; `defaults`: the command line's `--<kind>-timeout` values. `test` is
    schema-valid (its `timeouts` and operations objects, each operation a kind of
    `TIMEOUT_KIND`, `sleep` or `_NOT_OPERATIONS`): a catalog's Test is checked first."""
    spec = test.get("spec") or {}
    top = _merged({**DEFAULTS_S, **(defaults or {})}, spec.get("timeouts"))
    test_catch = spec.get("catch") or []
    for index, entry_step in enumerate(spec.get("steps") or []):
        step = entry_step or {}
        level = _merged(top, step.get("timeouts"))
        at = f"spec.steps[{index}]"
        blocks = [
            ("try", step.get("try")),
            ("catch", step.get("catch")),
            ("spec.catch", test_catch),
            ("finally", step.get("finally")),
            ("cleanup", step.get("cleanup")),
        ]
        for block, entries in blocks:
            for number, entry in enumerate(entries or []):
                for kind, body in (entry or {}).items():
                    if kind in _NOT_OPERATIONS:
                        continue
                    path = f"{at}.{block}[{number}].{kind}"
                    if block == "spec.catch":
                        path = f"{at} (spec.catch[{number}].{kind})"
                    yield path, kind, _seconds_of(kind, body or {}, level)


def _seconds_of(kind: str, body: Mapping[str, Any], level: Mapping[str, float]) -> float:
    if kind == "sleep":
        return _seconds(body.get("duration")) or 0.0
    own = _seconds(body.get("timeout"))
    seconds = own if own is not None else level[TIMEOUT_KIND[kind]]
    return seconds + (WAIT_EXTRA_S if kind == "wait" else 0.0)


def worst_case_s(test: Mapping[str, Any], defaults: Mapping[str, float] | None = None) -> int:
    """The most seconds Chainsaw's operations may take running `test`, rounded up."""
    return math.ceil(sum(seconds for _, _, seconds in operation_timeouts(test, defaults)))
