"""`python -m recipes`: output shape, selectors, and exit codes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from recipes.cli import main

KIND = [
    "--service",
    "kind",
    "--accelerator",
    "a10",
    "--intent",
    "training",
    "--platform",
    "kubeflow",
]


def test_recipe_prints_a_recipe_result(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["recipe", *KIND]) == 0
    doc = yaml.safe_load(capsys.readouterr().out)
    assert doc["kind"] == "RecipeResult"
    assert doc["apiVersion"] == "aicr.nvidia.com/v1alpha1"
    assert doc["criteria"] == {
        "service": "kind",
        "accelerator": "a10",
        "os": "any",
        "intent": "training",
        "platform": "kubeflow",
    }
    assert doc["metadata"]["appliedOverlays"] == ["kind-a10", "kind-a10-training-kubeflow"]
    assert doc["deploymentOrder"] == ["gpu-time-slicing", "gpu-operator", "kubeflow-trainer"]
    trainer = next(c for c in doc["componentRefs"] if c["name"] == "kubeflow-trainer")
    assert trainer["dependencyRefs"] == ["gpu-operator"]
    assert trainer["chart"] == "kubeflow-trainer"


def test_recipe_writes_output_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "recipe.yaml"
    assert main(["recipe", *KIND, "-o", str(out)]) == 0
    assert capsys.readouterr().out == ""
    assert yaml.safe_load(out.read_text())["kind"] == "RecipeResult"


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("components.gpu-operator.values.driver.enabled", "false\n"),
        ("components.gpu-operator.values.driver", "enabled: false\n"),
        ("deploymentOrder", "- gpu-time-slicing\n- gpu-operator\n- kubeflow-trainer\n"),
    ],
)
def test_query(selector: str, expected: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["query", *KIND, "--selector", selector]) == 0
    assert capsys.readouterr().out == expected


def test_query_constraints(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["query", *KIND, "--selector", "constraints"]) == 0
    names = [c["name"] for c in yaml.safe_load(capsys.readouterr().out)]
    assert "K8s.server.version" in names


def test_query_with_data_dirs(aicr_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["query", "--data", str(aicr_dir), "--service", "kind", "--accelerator", "h100"]
    assert (
        main(
            [
                *argv,
                "--intent",
                "training",
                "--selector",
                "components.gpu-operator.values.toolkit.enabled",
            ]
        )
        == 0
    )
    assert capsys.readouterr().out == "false\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["recipe", "--accelerator", "a10"],
            "no overlay matches --accelerator a10; valid completions:",
        ),
        (
            ["recipe", "--service", "kind", "--accelerator", "h100"],
            "--accelerator h100: no overlay",
        ),
        (["query", *KIND, "--selector", "components.nope.values.x"], "component 'nope' is not in"),
        (["query", *KIND, "--selector", "components.gpu-operator.values.driver.x"], "no key 'x'"),
        (["query", *KIND], "the following arguments are required: --selector"),
        (["recipe", "--data", "/nonexistent"], "--data /nonexistent: not a directory"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
    ],
)
def test_user_errors_exit_2_with_one_message(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("error: ")
    assert message in captured.err
    assert "Traceback" not in captured.err


def test_module_entry_point() -> None:
    repo = Path(__file__).resolve().parents[2]
    ok = subprocess.run(
        [sys.executable, "-m", "recipes", "query", *KIND, "--selector", "deploymentOrder"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    assert ok.returncode == 0, ok.stderr
    assert yaml.safe_load(ok.stdout)[0] == "gpu-time-slicing"
    bad = subprocess.run(
        [sys.executable, "-m", "recipes", "recipe", "--accelerator", "a100"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr
