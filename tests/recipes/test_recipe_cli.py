"""`python -m recipes`: output shape, selectors, and exit codes."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from recipes.catalog import load_catalog
from recipes.cli import main
from recipes.criteria import HELP

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


def test_help_gives_each_criterion_its_allowed_values(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["recipe", "--help"])
    assert exited.value.code == 0
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    assert "--service S the Kubernetes service the cluster runs on: kind, oke or any;" in text
    assert "--accelerator A the GPU model: a10 or any;" in text
    assert (
        "--os O the GPU nodes' operating system: only any (the bundled catalog pins none)" in text
    )
    assert "--intent I the workload: training or any; with --data and AICR's catalog also" in text
    assert "--platform P the ML platform the recipe serves: kubeflow or any;" in text
    assert "--nodes N the node count an overlay is pinned to: 0 (the default: any count)" in text


@pytest.mark.parametrize("command", ["recipe", "query"])
def test_help_values_are_the_bundled_catalogs(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for name, values in load_catalog(None).vocabulary.items():
        listed = f"{', '.join(sorted(values))} or any" if values else "only any"
        assert f"--{name} {name.upper()[0]} {HELP[name]}: {listed}" in text, name


def test_the_readme_recipe_examples_run(capsys: pytest.CaptureFixture[str]) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    lines = [
        line for line in readme.splitlines() if line.startswith(".venv/bin/python -m recipes ")
    ]
    commands = {shlex.split(line, comments=True)[3] for line in lines}
    assert commands == {"recipe", "query"}
    for line in lines:
        assert main(shlex.split(line, comments=True)[3:]) == 0, line
        assert capsys.readouterr().out
