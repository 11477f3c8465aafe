"""Constraint evaluation: version-aware operators, exact bare values, unchecked facts."""

from __future__ import annotations

import pytest

from recipes import RecipeCriteria
from recipes.model.overlays import Constraint, Validation, ValidationPhase
from recipes.model.result import RecipeResult
from recipes.resolution.constraints import Status, check, evaluate, parse_version


@pytest.mark.parametrize(
    ("expected", "actual", "ok"),
    [
        (">= 1.30", "v1.33.1", True),
        (">= 1.34", "v1.33.1", False),
        (">= 1.32.4", "1.32.4", True),
        ("> 1.32.4", "1.32.4", False),
        ("< 1.33", "v1.32.9", True),
        ("<= 24.04", "24.04", True),
        (">= 6.8", "6.8.0-1028-oracle", True),
        (">= 6.8", "5.15.0-1051-oracle", False),
        ("== 1.33", "v1.33.1", True),
        ("!= 1.33", "v1.33.1", False),
        (">= v24.6.0", "v26.7.0", True),
        (">= 300", "310", True),
        ("ubuntu", "ubuntu", True),
        ("ubuntu", "rhel", False),
        ("24.04", "24.04", True),
        ("24.04", "24.4", False),  # a bare value is exact
        ("== ubuntu", "ubuntu", True),
        (">= 1.30", "unknown", False),
    ],
)
def test_check(expected: str, actual: str, ok: bool) -> None:
    assert check(expected, actual)[0] is ok


def test_parse_version() -> None:
    assert parse_version("v1.33.1") == (1, 33, 1)
    assert parse_version("6.8.0-1028-oracle") == (6, 8, 0)
    assert parse_version("ubuntu") is None


def test_evaluate_reports_passed_failed_and_unchecked() -> None:
    result = RecipeResult(
        criteria=RecipeCriteria(),
        constraints=[
            Constraint(name="K8s.server.version", value=">= 1.34", remediation="upgrade"),
            Constraint(name="OS.release.ID", value="ubuntu"),
            Constraint(name="GPU.info.type", value="A10"),
        ],
        validation=Validation(
            deployment=ValidationPhase(
                constraints=[Constraint(name="Deployment.gpu-operator.version", value=">= v26.3.1")]
            )
        ),
    )
    report = evaluate(
        result,
        {
            "K8s.server.version": "v1.33.1",
            "OS.release.ID": "ubuntu",
            "Deployment.gpu-operator.version": "v26.7.0",
        },
    )
    assert [o.name for o in report.passed] == ["OS.release.ID", "Deployment.gpu-operator.version"]
    assert report.passed[1].phase == "deployment"
    (failed,) = report.failed
    assert (failed.name, failed.actual, failed.remediation) == (
        "K8s.server.version",
        "v1.33.1",
        "upgrade",
    )
    assert failed.reason == "expected >= 1.34, got v1.33.1"
    (unchecked,) = report.unchecked
    assert unchecked.name == "GPU.info.type" and unchecked.status is Status.UNCHECKED
    assert not report.ok
    assert evaluate(result, {}).unchecked == evaluate(result, {}).outcomes


def test_a_phase_without_constraints_is_no_constraint() -> None:
    """`checks` only: AICR's phase constraints are then nil, not an empty list."""
    result = RecipeResult(
        criteria=RecipeCriteria(service="kind"),
        validation=Validation(deployment=ValidationPhase(checks=["operator-health"])),
    )
    assert evaluate(result, {}).outcomes == []
