"""Chainsaw `Test` documents gpu-ci writes itself, and what it reads back from any Test.

A check gpu-ci generates (an AICR validator with a resource form) is written in the same
format as a registry health check, so both run the same way (`check_jobs.py`). Only
`assert` and `error` operations are used, the read-only subset AICR's deployment validator
allows (NVIDIA/aicr `validators/chainsaw/allowlist.go`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from core import yaml_text

API_VERSION = "chainsaw.kyverno.io/v1alpha1"
READ_ONLY_OPERATIONS = ("assert", "error")
BLOCKS = ("try", "catch", "finally", "cleanup")
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)")
_UNIT_S = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}


def duration_s(text: str) -> float | None:
    """A Go `time.Duration` string (`5m`, `1m30s`, `250ms`) in seconds; None if not one
    (Chainsaw's timeouts are `metav1.Duration`, parsed by Go's `time.ParseDuration`)."""
    if not isinstance(text, str) or not text or _DURATION.sub("", text) != "":
        return None
    return sum(float(n) * _UNIT_S[u] for n, u in _DURATION.findall(text))


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

    @property
    def resource(self) -> Mapping[str, Any]:
        found = self.body.get("resource") if isinstance(self.body, Mapping) else None
        return found if isinstance(found, Mapping) else {}


def operations(test: Mapping[str, Any]) -> Iterator[Operation]:
    """Every operation of every step, in order (a schema-valid Test)."""
    for index, step in enumerate((test.get("spec") or {}).get("steps") or []):
        name = str((step or {}).get("name") or f"step-{index + 1}")
        for block in BLOCKS:
            for entry in (step or {}).get(block) or []:
                for key, body in (entry or {}).items():
                    if key not in ("compiler", "continueOnError", "description"):
                        yield Operation(name, block, key, body or {})


def budget_s(test: Mapping[str, Any]) -> int | None:
    """The longest assert/error timeout the Test sets (spec, step or operation), in seconds;
    None when it sets none (Chainsaw's own defaults then apply)."""
    found: list[float] = []
    spec = test.get("spec") or {}
    for timeouts in [spec.get("timeouts")] + [s.get("timeouts") for s in spec.get("steps") or []]:
        for key in READ_ONLY_OPERATIONS:
            value = duration_s((timeouts or {}).get(key, ""))
            found += [value] if value is not None else []
    for op in operations(test):
        value = duration_s(op.body.get("timeout", "")) if isinstance(op.body, Mapping) else None
        found += [value] if value is not None else []
    return int(max(found) + 0.999) if found else None


def step(name: str, *ops: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    """A step trying each (`assert`|`error`, resource) in order."""
    return {"name": name, "try": [{kind: {"resource": resource}} for kind, resource in ops]}


def render_test(name: str, timeout_s: int, steps: list[dict[str, Any]]) -> str:
    """A Test named `name` whose asserts and errors each wait up to `timeout_s`."""
    budget = go_duration(timeout_s)
    doc = {
        "apiVersion": API_VERSION,
        "kind": "Test",
        "metadata": {"name": name},
        "spec": {"timeouts": {"assert": budget, "error": budget}, "steps": steps},
    }
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
