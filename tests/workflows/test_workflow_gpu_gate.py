"""Every run of pull-request code on a GPU or self-hosted runner is gated, run by run.

A self-hosted GPU runner (CNCF's `oracle-vm-gpu-a10-2`, gpu-ci's own `vm` runners) runs
the job on a VM that outlives it or shares its network, with root where the gpu-cluster
action runs (a `vm-launcher` VM; a VM runner with `runner.jobRoot`). These gates are in the
workflow file, which a fork's pull request edits: the settings that bind a fork are
checked in test_adopter_settings.py (docs/ci-integration.md#the-gates-that-bind-a-fork). A
label checked on the job gates the PR once: it stays on, so every later push from a fork
would run unreviewed. So a job of a workflow triggered by `pull_request` or
`pull_request_target` (directly, or as a reusable workflow one of those calls) whose
`runs-on` is anything but a GitHub-hosted image must be gated per run:

- an `environment:` (with required reviewers, set in the repository), whose name is not
  empty: GitHub holds each run for approval, and the run tests the commit it started for;
- or a label gate, prow's ok-to-test: the job runs only on a maintainer's label, never on
  the `synchronize` event itself (its payload still lists the label), and a step or job of
  the same workflow removes that label on `synchronize`. (That removal needs a token that
  can write to the pull request, which a `pull_request` run from a fork does not get: the
  example therefore uses the environment.)

The rule is checked on every workflow of the repository and every example.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.workflows.github_tools import REPO, load_github_yaml

WORKFLOW_DIR = REPO / ".github" / "workflows"
FILES = sorted(WORKFLOW_DIR.glob("*.y*ml")) + sorted((REPO / "examples").glob("*.y*ml"))
EXAMPLE = REPO / "examples" / "kubeflow-trainer-gpu-e2e.yaml"
PR_EVENTS = {"pull_request", "pull_request_target"}
# GitHub-hosted images (ubuntu-24.04, ubuntu-latest, windows-2025, macos-15, ...).
HOSTED = re.compile(r"(ubuntu|windows|macos)-[0-9a-z.-]+")
LABEL_GATE = re.compile(
    r"contains\(\s*github\.event\.pull_request\.labels\.\*\.name\s*,\s*'([^']+)'\s*\)"
)
NOT_ON_SYNC = re.compile(r"github\.event\.action\s*(?:!=\s*'synchronize'|==\s*'labeled')")
MATRIX_REF = re.compile(r"\$\{\{\s*matrix\.([\w-]+)\s*\}\}")


def _triggers(data: dict[str, Any]) -> dict[str, Any]:
    on = data.get("on") or {}
    if isinstance(on, str):
        return {on: None}
    if isinstance(on, list):
        return dict.fromkeys(on)
    return dict(on)


def _runner_labels(job: dict[str, Any]) -> list[str]:
    """runs-on as a list of labels, a `${{ matrix.X }}` expanded from a literal matrix."""
    runs_on = job.get("runs-on")
    if runs_on is None:
        return []
    if isinstance(runs_on, dict):
        labels: Any = runs_on.get("labels", [])
        labels = [labels] if isinstance(labels, str) else list(labels)
        if runs_on.get("group"):
            labels.append(f"group:{runs_on['group']}")  # a runner group: not a hosted image
    elif isinstance(runs_on, list):
        labels = list(runs_on)
    else:
        labels = [runs_on]
    expanded: list[str] = []
    matrix = (job.get("strategy") or {}).get("matrix") or {}
    for label in map(str, labels):
        ref = MATRIX_REF.fullmatch(label.strip())
        values = matrix.get(ref.group(1)) if ref and isinstance(matrix, dict) else None
        if isinstance(values, list) and values and not matrix.get("include"):
            expanded += [json.dumps(v) if not isinstance(v, str) else v for v in values]
        else:
            expanded.append(label)
    return expanded


def needs_gate(job: dict[str, Any]) -> bool:
    """runs-on names a self-hosted or GPU label, a runner group, or an expression that
    may be one: anything but a literal GitHub-hosted image."""
    labels = _runner_labels(job)
    return any(not HOSTED.fullmatch(label.strip()) for label in labels)


def _text(node: Any) -> str:
    return json.dumps(node) if not isinstance(node, str) else node


def _removes_label_on_sync(data: dict[str, Any], label: str) -> bool:
    """A step or job of the workflow takes `label` off the PR on `synchronize`."""
    pr = _triggers(data)
    types = [
        t for e in PR_EVENTS & set(pr) for t in ((pr[e] or {}).get("types") or ["synchronize"])
    ]
    if "synchronize" not in types:
        return False
    for job in data.get("jobs", {}).values():
        for step in job.get("steps", []):
            body = _text(step.get("run", "")) + _text(step.get("with", {}))
            removes = re.search(r"remove-?labels?|removeLabel", body, re.IGNORECASE)
            on_sync = "synchronize" in _text(step.get("if", "")) + _text(job.get("if", ""))
            if removes and label in body and on_sync:
                return True
    return False


def gate_problem(data: dict[str, Any], job: dict[str, Any]) -> str | None:
    """Why a job on a GPU/self-hosted runner is not gated per run (None: it is)."""
    environment = job.get("environment")
    if isinstance(environment, dict):
        environment = environment.get("name")
    if environment is not None:
        return None if str(environment).strip() else "its environment is empty"
    condition = _text(job.get("if", ""))
    labels = LABEL_GATE.findall(condition)
    if not labels:
        return "no environment and no label gate"
    if not NOT_ON_SYNC.search(condition):
        return (
            f"label gate {labels[0]!r} also runs on `synchronize`: every push after the label "
            "runs unreviewed (give the job an environment with required reviewers)"
        )
    if not any(_removes_label_on_sync(data, label) for label in labels):
        return f"label gate {labels[0]!r}: nothing in the workflow removes it on `synchronize`"
    return None


def _callers() -> dict[str, set[str]]:
    """Reusable workflow file name -> the events of the local workflows that call it."""
    found: dict[str, set[str]] = {}
    for path in sorted(WORKFLOW_DIR.glob("*.y*ml")):
        data = load_github_yaml(path)
        for job in data.get("jobs", {}).values():
            uses = str(job.get("uses", ""))
            if uses.startswith("./.github/workflows/"):
                found.setdefault(Path(uses).name, set()).update(_triggers(data))
    return found


def ungated(path: Path, data: dict[str, Any], inherited: set[str]) -> list[str]:
    events = set(_triggers(data)) | inherited
    if not events & PR_EVENTS:
        return []
    problems = []
    for name, job in data.get("jobs", {}).items():
        if needs_gate(job) and (problem := gate_problem(data, job)):
            problems.append(f"{path.name}: job {name} ({_runner_labels(job)}): {problem}")
    return problems


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_pull_request_code_reaches_gpu_runners_only_run_by_run(path: Path) -> None:
    callers = _callers()
    inherited = callers.get(path.name, set()) if path.parent == WORKFLOW_DIR else set()
    assert ungated(path, load_github_yaml(path), inherited) == []


def test_the_examples_gpu_job_is_found_and_gated_by_an_environment() -> None:
    """The scan is not vacuous: it sees the example's GPU job, gated by `gpu-e2e`."""
    data = load_github_yaml(EXAMPLE)
    job = data["jobs"]["gpu-e2e-test"]
    assert needs_gate(job)
    assert set(_triggers(data)) & PR_EVENTS
    assert job["environment"] == "gpu-e2e"
    assert gate_problem(data, job) is None


def test_the_example_as_it_was_fails() -> None:
    """The example before the gate: the label alone, on `synchronize` too."""
    data = load_github_yaml(EXAMPLE)
    job = data["jobs"]["gpu-e2e-test"]
    del job["environment"]
    job["if"] = "contains(github.event.pull_request.labels.*.name, 'ok-to-test-gpu-runner')"
    assert data["on"]["pull_request"]["types"] == ["opened", "reopened", "synchronize", "labeled"]
    problems = ungated(EXAMPLE, data, set())
    assert len(problems) == 1 and "also runs on `synchronize`" in problems[0], problems


def _workflow(text: str) -> dict[str, Any]:
    raw: dict[Any, Any] = yaml.safe_load(text)
    return {("on" if k is True else str(k)): v for k, v in raw.items()}


GPU_JOB = """
on:
  pull_request:
    types: [opened, synchronize, labeled]
jobs:
  gpu:
    runs-on: [self-hosted, gpu]
    steps:
      - run: make test
"""


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (lambda w: None, "no environment and no label gate"),
        (lambda w: w["jobs"]["gpu"].update(environment=""), "its environment is empty"),
        (lambda w: w["jobs"]["gpu"].update(environment={"name": " "}), "environment is empty"),
        (
            lambda w: w["jobs"]["gpu"].update(
                {"if": "github.event.action == 'labeled' && contains("
                 "github.event.pull_request.labels.*.name, 'ok-to-test')"}
            ),
            "nothing in the workflow removes it",
        ),
    ],
    ids=["bare", "empty-env", "blank-env-name", "label-never-removed"],
)  # fmt: skip
def test_an_ungated_gpu_job_is_reported(edit: Any, problem: str) -> None:
    data = _workflow(GPU_JOB)
    edit(data)
    problems = ungated(Path("w.yml"), data, set())
    assert len(problems) == 1 and problem in problems[0], problems


def test_accepted_gates_and_what_needs_none() -> None:
    with_env = _workflow(GPU_JOB)
    with_env["jobs"]["gpu"]["environment"] = "gpu"
    assert ungated(Path("w.yml"), with_env, set()) == []

    prow = _workflow(GPU_JOB)
    prow["jobs"]["gpu"]["if"] = (
        "github.event.action == 'labeled' && "
        "contains(github.event.pull_request.labels.*.name, 'ok-to-test')"
    )
    prow["jobs"]["untrust"] = {
        "if": "github.event.action == 'synchronize'",
        "runs-on": "ubuntu-24.04",
        "permissions": {"pull-requests": "write"},
        "steps": [{"run": 'gh pr edit "$PR" --remove-label ok-to-test'}],
    }
    assert ungated(Path("w.yml"), prow, set()) == []

    hosted = _workflow(GPU_JOB)
    hosted["jobs"]["gpu"]["runs-on"] = "${{ matrix.os }}"
    hosted["jobs"]["gpu"]["strategy"] = {"matrix": {"os": ["ubuntu-24.04", "macos-15"]}}
    assert ungated(Path("w.yml"), hosted, set()) == []

    push_only = _workflow(GPU_JOB.replace("pull_request:", "push:"))
    assert ungated(Path("w.yml"), push_only, set()) == []


def test_expressions_groups_and_reusable_workflows_count() -> None:
    """An unresolvable runs-on, a runner group, or a reusable workflow a PR calls."""
    expression = _workflow(GPU_JOB)
    expression["jobs"]["gpu"]["runs-on"] = "${{ inputs.runner }}"
    assert ungated(Path("w.yml"), expression, set())

    group = _workflow(GPU_JOB)
    group["jobs"]["gpu"]["runs-on"] = {"group": "GPUs", "labels": "oracle-vm-gpu-a10-2"}
    assert ungated(Path("w.yml"), group, set())

    called = copy.deepcopy(_workflow(GPU_JOB))
    called["on"] = {"workflow_call": None}
    assert ungated(Path("w.yml"), called, set()) == []
    assert ungated(Path("w.yml"), called, {"pull_request"})
