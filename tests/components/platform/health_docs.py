"""Health-check Tests for the refusal tests: a one-step Test, changed one key at a time."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from components.platform.checks.health_checks import HealthTest, parse_health_test
from components.platform.releases.overrides import PlatformError
from core import yaml_text

SOURCE = "checks/app/health-check.yaml"
WHERE = f"app: health check {SOURCE}"
POD: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": {"namespace": "n"}}


def doc(*ops: dict[str, Any], **spec: Any) -> dict[str, Any]:
    """A Test whose one step tries `ops` (an assert on a Pod by default), `spec` added."""
    tries = list(ops) or [{"assert": {"resource": copy.deepcopy(POD)}}]
    return {
        "apiVersion": "chainsaw.kyverno.io/v1alpha1",
        "kind": "Test",
        "metadata": {"name": "t"},
        "spec": {**spec, "steps": [{"name": "s", "try": tries}]},
    }


def read(api_version: str, kind: str, how: str = "assert") -> dict[str, Any]:
    """A `try` entry reading objects of `apiVersion`/`kind`."""
    return {how: {"resource": {"apiVersion": api_version, "kind": kind}}}


def parsed(test: dict[str, Any] | str) -> HealthTest:
    text = test if isinstance(test, str) else yaml_text.dump(test, sort_keys=False)
    return parse_health_test("app", SOURCE, text)


def refused(test: dict[str, Any] | str) -> str:
    """The one-line message the preview stops with."""
    with pytest.raises(PlatformError) as caught:
        parsed(test)
    message = str(caught.value)
    assert "\n" not in message
    return message
