"""`python -m recipes`: output shape, selectors, and exit codes."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from recipes.catalogs.load import load_catalog
from recipes.cli import main
from recipes.model.criteria import HELP

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
    assert doc["apiVersion"] == "aicr.run/v1alpha2"
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
        (["recipe"], "no criteria provided: specify at least one of --service, --accelerator"),
        (["recipe", "--service", "kind", "--accelerator", "a10x"], "--accelerator a10x: unknown"),
        (
            ["query", *KIND, "--selector", "components.nope.values.x"],
            "key 'nope' not found, available keys: gpu-operator, gpu-time-slicing, "
            "kubeflow-trainer",
        ),
        (
            ["query", *KIND, "--selector", "components.gpu-operator.values.driver.x"],
            "key 'x' not found, available keys: enabled",
        ),
        (
            ["query", *KIND, "--selector", "deploymentOrder.0"],
            "cannot descend into non-map value at '0'",
        ),
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
        [sys.executable, "-m", "recipes", "recipe", "--accelerator", "a100x"],
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
    assert "--accelerator A, --gpu A the GPU model: a10 or any;" in text
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
        flag = f"--{name} {name.upper()[0]}"
        if name == "accelerator":
            flag += ", --gpu A"
        assert f"{flag} {HELP[name]}: {listed}" in text, name


def test_the_docs_recipe_examples_run(capsys: pytest.CaptureFixture[str]) -> None:
    readme = (Path(__file__).resolve().parents[2] / "docs" / "recipes.md").read_text()
    lines = [
        line for line in readme.splitlines() if line.startswith(".venv/bin/python -m recipes ")
    ]
    commands = {shlex.split(line, comments=True)[3] for line in lines}
    assert commands == {"recipe", "query"}
    for line in lines:
        assert main(shlex.split(line, comments=True)[3:]) == 0, line
        assert capsys.readouterr().out


def test_gpu_is_an_alias_of_accelerator(capsys: pytest.CaptureFixture[str]) -> None:
    """aicr's `--gpu` flag alias (pkg/cli/recipe.go `Aliases: []string{"gpu"}`)."""
    argv = ["--service", "kind", "--intent", "training", "--platform", "kubeflow"]
    assert main(["query", *argv, "--gpu", "a10", "--selector", "criteria.accelerator"]) == 0
    assert capsys.readouterr().out == "a10\n"


@pytest.mark.parametrize("selector", ["", "."])
def test_query_empty_selector_prints_the_whole_hydrated_recipe(
    selector: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """aicr `query --selector ''` (pkg/cli/query.go; `Select` returns the whole map)."""
    assert main(["query", *KIND, "--selector", selector]) == 0
    doc = yaml.safe_load(capsys.readouterr().out)
    assert doc["kind"] == "RecipeResult"
    assert set(doc["components"]) == {"gpu-operator", "gpu-time-slicing", "kubeflow-trainer"}
    assert doc["components"]["gpu-operator"]["values"]["driver"] == {"enabled": False}
    assert doc["criteria"]["os"] == "any"


def test_query_component_includes_its_values(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["query", *KIND, "--selector", "components.kubeflow-trainer"]) == 0
    doc = yaml.safe_load(capsys.readouterr().out)
    assert doc["name"] == "kubeflow-trainer"
    assert doc["version"] == "2.3.0"
    assert doc["dependencyRefs"] == ["gpu-operator"]
    assert doc["values"]["jobset"] == {"install": True}


def test_scalar_strings_print_as_plain_text(capsys: pytest.CaptureFixture[str]) -> None:
    """aicr's `writeQueryResult` prints a string as is (no YAML quoting)."""
    assert main(["query", *KIND, "--selector", "constraints"]) == 0
    capsys.readouterr()
    assert main(["query", *KIND, "--selector", "components.gpu-operator.version"]) == 0
    assert capsys.readouterr().out == "v26.7.0\n"


def test_a_known_value_no_overlay_names_warns_and_prints_the_generic_recipe(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["recipe", "--service", "kind", "--accelerator", "h100"]) == 0
    captured = capsys.readouterr()
    assert yaml.safe_load(captured.out)["componentRefs"] == []
    assert captured.err.startswith("warning: no environment-specific overlays matched")


def test_data_dir_without_a_registry_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "overlays").mkdir()
    assert main(["recipe", "--data", str(tmp_path), "--service", "kind"]) == 2
    assert capsys.readouterr().err == (
        f"error: --data {tmp_path}: registry.yaml is required, as in aicr: every data "
        "directory has one (it is merged by component name with the directories before it)\n"
    )
