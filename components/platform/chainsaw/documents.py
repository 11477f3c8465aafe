"""Chainsaw `Test` documents gpu-ci writes itself, and what it reads back from any Test.

A check gpu-ci generates (an AICR validator with a resource form) is written in the same
format as a registry health check, so both run the same way (`checks/jobs.py`). Only
`assert` and `error` operations are used, the read-only subset AICR's deployment validator
allows (NVIDIA/aicr `validators/chainsaw/allowlist.go`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from components.platform.chainsaw.durations import DurationError, parse_ns
from core import yaml_text

API_VERSION = "chainsaw.kyverno.io/v1alpha1"
READ_ONLY_OPERATIONS = ("assert", "error")
BLOCKS = ("try", "catch", "finally", "cleanup")
TEST_LEVEL = "(the Test)"
"""The `step` of an operation in `spec.catch`, which runs when any step fails."""


def duration_s(text: Any) -> float | None:
    """A Go `time.Duration` string (`5m`, `1m30s`, `250ms`) in seconds; None if not one
    (Chainsaw's timeouts are `metav1.Duration`, parsed by Go's `time.ParseDuration`:
    `durations.py`)."""
    if not isinstance(text, str):
        return None
    try:
        return parse_ns(text) / 1e9
    except DurationError:
        return None


def go_duration(seconds: int) -> str:
    """`seconds` as a Go duration (`300s` -> `5m`, `90s` -> `1m30s`)."""
    minutes, rest = divmod(seconds, 60)
    return (f"{minutes}m" if minutes else "") + (f"{rest}s" if rest or not minutes else "")


@dataclass(frozen=True)
class Operation:
    """One operation of a Test: where it is, its kind and the resource it reads."""

    step: str
    block: str
    kind: str
    body: Mapping[str, Any]
    path: str = ""
    """Its place in the Test (`spec.catch[0].script`)."""

    @property
    def resource(self) -> Mapping[str, Any]:
        found = self.body.get("resource") if isinstance(self.body, Mapping) else None
        return found if isinstance(found, Mapping) else {}


def operations(test: Mapping[str, Any]) -> Iterator[Operation]:
    """Every operation Chainsaw may run, in order (a schema-valid Test): each step's `try`,
    `catch`, `finally` and `cleanup`, then the Test's own `catch`, which v0.2.15 runs after
    a failed step (kyverno/chainsaw v0.2.15 `pkg/runner/runner.go`, `Catch` of the test
    context; a Test has no `finally` or `cleanup` of its own: `pkg/apis/v1alpha1/test.go`)."""
    spec = test.get("spec") or {}
    for index, step in enumerate(spec.get("steps") or []):
        name = str((step or {}).get("name") or f"step-{index + 1}")
        for block in BLOCKS:
            yield from _block(step or {}, block, name, f"spec.steps[{index}]")
    yield from _block(spec, "catch", TEST_LEVEL, "spec")


def _block(holder: Mapping[str, Any], block: str, step: str, at: str) -> Iterator[Operation]:
    for number, entry in enumerate(holder.get(block) or []):
        for key, body in (entry or {}).items():
            if key not in ("compiler", "continueOnError", "description"):
                yield Operation(step, block, key, body or {}, f"{at}.{block}[{number}].{key}")


def budget_s(test: Mapping[str, Any]) -> int | None:
    """The longest assert/error timeout the Test sets (spec, step or operation), in seconds,
    the default wait the check gives its other operations; None when it sets none."""
    found: list[float] = []
    spec = test.get("spec") or {}
    for timeouts in [spec.get("timeouts")] + [s.get("timeouts") for s in spec.get("steps") or []]:
        for key in READ_ONLY_OPERATIONS:
            value = duration_s((timeouts or {}).get(key))
            found += [value] if value is not None else []
    for op in operations(test):
        value = duration_s(op.body.get("timeout")) if isinstance(op.body, Mapping) else None
        found += [value] if value is not None else []
    return int(max(found) + 0.999) if found else None


def step(name: str, *ops: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    """A step trying each (`assert`|`error`, resource) in order."""
    return {"name": name, "try": [{kind: {"resource": resource}} for kind, resource in ops]}


def test_doc(name: str, timeout_s: int, steps: list[dict[str, Any]]) -> dict[str, Any]:
    """A Test named `name` whose asserts and errors each wait up to `timeout_s`."""
    budget = go_duration(timeout_s)
    return {
        "apiVersion": API_VERSION,
        "kind": "Test",
        "metadata": {"name": name},
        "spec": {"timeouts": {"assert": budget, "error": budget}, "steps": steps},
    }


def render_test(doc: dict[str, Any]) -> str:
    """The Test `doc` as the YAML its ConfigMap holds."""
    return yaml_text.dump(doc, sort_keys=False)


def ref(api_version: str, kind: str, name: str = "", namespace: str = "") -> dict[str, Any]:
    """The identifying part of an expected resource."""
    metadata = {k: v for k, v in (("name", name), ("namespace", namespace)) if v}
    return {"apiVersion": api_version, "kind": kind, **({"metadata": metadata} if metadata else {})}


def available(kind: str, name: str, namespace: str) -> dict[str, Any]:
    """A workload that serves: AICR's idioms (`checks/*/health-check.yaml`): a Deployment or
    StatefulSet with a ready replica, a DaemonSet scheduled somewhere and fully ready."""
    group = "apps/v1"
    if kind == "DaemonSet":
        status = {
            "(desiredNumberScheduled > `0`)": True,
            "(numberReady == desiredNumberScheduled)": True,
        }
    else:
        field = "readyReplicas" if kind == "StatefulSet" else "availableReplicas"
        status = {f"({field} > `0`)": True}
    return {**ref(group, kind, name, namespace), "status": status}


def established(crd: str) -> dict[str, Any]:
    """A CRD the API server serves (AICR's `conditions[?type == 'Established']` idiom)."""
    return {
        **ref("apiextensions.k8s.io/v1", "CustomResourceDefinition", crd),
        "status": {"(conditions[?type == 'Established'])": [{"status": "True"}]},
    }
