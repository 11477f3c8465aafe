"""`python -m stacks check-charts`: what a user runs where Helm and the charts are."""

from __future__ import annotations

from pathlib import Path

import pytest

from stacks.offline.cli import main


def test_a_clean_stack_exits_0_with_a_line(
    charts: Path, helm: Path, validator: Path, upstream: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--charts", str(charts), "--helm", str(helm), "--validator", str(validator)]
    assert main(["check-charts", "dev", *args, "--crds", str(upstream / "crds")]) == 0
    assert capsys.readouterr().out == "dev: 3 releases rendered (Kubernetes v1.35.0), 0 problems\n"


def test_problems_exit_1_naming_each_key(
    typo_project: Path, charts: Path, helm: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--charts", str(charts), "--helm", str(helm), "--project-dir", str(typo_project)]
    assert main(["check-charts", "t", *args]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "t: 3 releases rendered (Kubernetes v1.35.0), 2 problems"
    assert out[1].startswith("  error: gpu-ci:platform.set[0] (gpu-operator:node-feature-disc")
    assert "(did you mean 'node-feature-discovery.worker.enable'?)" in out[1]
    assert out[2].startswith("  error: gpu-ci:platform.set[2] (kubeflow-trainer:jobset.contr")
    assert len(out) == 3


def test_a_recipe_value_dead_in_one_stack_is_a_warning(
    charts: Path, helm: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check-charts", "multi-gpu", "--charts", str(charts), "--helm", str(helm)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("  warning: ") and "devicePlugin.config.default" in out[1]


@pytest.mark.parametrize(
    ("flag", "said"),
    [
        ("--helm", "check-charts needs Helm: give --helm PATH or put helm on PATH"),
        ("--charts", "--charts {}: not a folder of charts"),
        ("--validator", "--validator {}: no such file (kubectl-validate)"),
    ],
)
def test_a_missing_tool_or_folder_exits_2_naming_the_flag(
    flag: str,
    said: str,
    tmp_path: Path,
    charts: Path,
    helm: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    given = {"--helm": str(helm), "--charts": str(charts), flag: str(tmp_path / "nothing")}
    args = [part for pair in given.items() for part in pair]
    assert main(["check-charts", "dev", *args]) == 2
    assert said.format(tmp_path / "nothing") in capsys.readouterr().err


def test_no_chart_found_exits_2_and_says_how_to_get_one(
    tmp_path: Path, helm: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check-charts", "arc", "--charts", str(tmp_path), "--helm", str(helm)]) == 2
    captured = capsys.readouterr()
    assert "no chart of any release was found: give --charts DIR" in captured.err
    assert (
        "not checked: arc/arc-controller (gha-runner-scale-set-controller 0.14.2): no "
        "gha-runner-scale-set-controller-0.14.2/ or .tgz in " in captured.out
    )
    assert "`helm pull oci://ghcr.io/actions/actions-runner-controller-charts/" in captured.out


def test_a_stack_that_does_not_plan_exits_2(
    charts: Path, helm: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check-charts", "nope", "--charts", str(charts), "--helm", str(helm)]) == 2
    assert "error: nope: does not plan: no stack 'nope'" in capsys.readouterr().err
