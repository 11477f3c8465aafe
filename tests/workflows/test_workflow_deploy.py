"""deploy.yml deploys exactly the stacks a repository opts into, and nothing by default.

The list is the repository variable GPU_CI_DEPLOY_STACKS, turned into the deploy matrix by
stack-list.yml; a fork or a repository without Pulumi login configured gets an empty list
and a notice. The list script is run here for real (bash, as GitHub runs `run:` steps) in
a workspace holding the repository's stack files.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.workflows.github_tools import REPO, load_github_yaml

WORKFLOWS = REPO / ".github" / "workflows"
MATRIX = "${{ fromJSON(needs.stacks.outputs.stacks) }}"
STACK_FILES = sorted(p.name.removeprefix("Pulumi.").removesuffix(".yaml")
                     for p in REPO.glob("Pulumi.*.yaml"))  # fmt: skip


def _load(name: str) -> dict[str, Any]:
    return load_github_yaml(WORKFLOWS / name)


def _list_step() -> dict[str, Any]:
    steps = _load("stack-list.yml")["jobs"]["list"]["steps"]
    (step,) = [s for s in steps if s.get("id") == "list"]
    found: dict[str, Any] = step
    return found


def test_deploy_runs_only_the_listed_stacks() -> None:
    deploy = _load("deploy.yml")
    jobs = deploy["jobs"]
    assert jobs["stacks"] == {"uses": "./.github/workflows/stack-list.yml"}
    callers = [
        n for n, j in jobs.items() if j.get("uses") == "./.github/workflows/pulumi-stack.yml"
    ]
    assert callers == ["up"], "a stack is deployed outside the opted-in matrix"
    up = jobs["up"]
    assert set(up["needs"]) == {"test", "stacks"}
    assert up["strategy"]["matrix"] == {"stack": MATRIX}
    assert up["with"]["stack"] == up["with"]["environment"] == "${{ matrix.stack }}"
    # An empty list skips the job (an empty matrix would fail the run).
    assert "needs.stacks.outputs.stacks != '[]'" in up["if"]
    # No stack is named in deploy.yml itself.
    text = (WORKFLOWS / "deploy.yml").read_text()
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    for stack in STACK_FILES:
        assert stack not in body.replace("stack-list", ""), stack


def test_the_list_comes_from_the_variable_and_the_login_config() -> None:
    job = _load("stack-list.yml")["jobs"]["list"]
    assert job["outputs"]["stacks"] == "${{ steps.list.outputs.stacks }}"
    assert _load("stack-list.yml")["on"]["workflow_call"]["outputs"]["stacks"]["value"] == (
        "${{ jobs.list.outputs.stacks }}"
    )
    assert _list_step()["env"] == {
        "DEPLOY_STACKS": "${{ vars.GPU_CI_DEPLOY_STACKS }}",
        "IS_FORK": "${{ github.event.repository.fork }}",
        "PULUMI_ORG": "${{ vars.PULUMI_ORG }}",
        "PULUMI_BACKEND_URL": "${{ vars.PULUMI_BACKEND_URL }}",
    }
    assert "${{" not in _list_step()["run"]  # values reach the script only through env


def _run(tmp_path: Path, **env: str) -> tuple[subprocess.CompletedProcess[str], Any]:
    work = tmp_path / "work"
    work.mkdir()
    for path in REPO.glob("Pulumi.*.yaml"):
        shutil.copy(path, work)
    script = tmp_path / "list.sh"
    script.write_text(_list_step()["run"])
    output = tmp_path / "github-output"
    values = {"DEPLOY_STACKS": "", "IS_FORK": "false", "PULUMI_ORG": "", "PULUMI_BACKEND_URL": ""}
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=work,
        env={"PATH": os.environ["PATH"], "GITHUB_OUTPUT": str(output), **values, **env},
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    lines = output.read_text().splitlines() if output.exists() else []
    stacks = [json.loads(line.split("=", 1)[1]) for line in lines if line.startswith("stacks=")]
    return done, (stacks[0] if stacks else None)


LOGIN = {"PULUMI_ORG": "kubeflow"}


@pytest.mark.parametrize(
    ("env", "why"),
    [
        ({**LOGIN}, "GPU_CI_DEPLOY_STACKS is empty"),
        ({**LOGIN, "DEPLOY_STACKS": " ,\n "}, "GPU_CI_DEPLOY_STACKS is empty"),
        ({"DEPLOY_STACKS": "gpu-dev apps-dev"}, "no Pulumi login configured"),
        ({**LOGIN, "DEPLOY_STACKS": "gpu-dev", "IS_FORK": "true"}, "is a fork"),
    ],
    ids=["unset", "blank", "no-login", "fork"],
)
def test_nothing_deploys_by_default_and_the_skip_is_a_notice(
    tmp_path: Path, env: dict[str, str], why: str
) -> None:
    done, stacks = _run(tmp_path, **env)
    assert done.returncode == 0, done.stderr
    assert stacks == []
    assert "::notice::" in done.stdout and why in done.stdout, done.stdout


@pytest.mark.parametrize(
    ("listed", "expected"),
    [
        ("gpu-dev apps-dev", ["gpu-dev", "apps-dev"]),
        ("gpu-dev,apps-dev", ["gpu-dev", "apps-dev"]),
        ("gpu-dev\napps-dev\n", ["gpu-dev", "apps-dev"]),
        ("dev", ["dev"]),
        ("apps-dev", ["apps-dev"]),  # its producer deployed before, not in this list
        ("arc", ["arc"]),
    ],
)
def test_the_listed_stacks_deploy_in_their_order(
    tmp_path: Path, listed: str, expected: list[str]
) -> None:
    done, stacks = _run(tmp_path, DEPLOY_STACKS=listed, PULUMI_BACKEND_URL="s3://state")
    assert done.returncode == 0, done.stdout + done.stderr
    assert stacks == expected
    assert "::warning::" not in done.stdout


@pytest.mark.parametrize(
    ("listed", "error"),
    [
        ("apps-dev gpu-dev", "apps-dev reads gpu-dev's outputs: list gpu-dev before apps-dev"),
        ("gpu-dev nope", "nope has no Pulumi.nope.yaml"),
        ("gpu-dev gpu-dev", "gpu-dev is listed twice"),
        ("../dev", "'../dev' is not a stack name"),
    ],
)
def test_a_wrong_list_fails_naming_the_stack(tmp_path: Path, listed: str, error: str) -> None:
    done, stacks = _run(tmp_path, DEPLOY_STACKS=listed, **LOGIN)
    assert done.returncode == 1
    assert f"::error::GPU_CI_DEPLOY_STACKS: {error}" in done.stdout, done.stdout
    assert stacks is None


def test_dev_and_gpu_dev_together_are_warned_about(tmp_path: Path) -> None:
    """The same set-up twice, two A10 VMs: allowed, but said."""
    done, stacks = _run(tmp_path, DEPLOY_STACKS="dev gpu-dev", **LOGIN)
    assert done.returncode == 0, done.stderr
    assert stacks == ["dev", "gpu-dev"]
    assert "::warning::dev and gpu-dev both listed" in done.stdout


def test_the_producer_of_each_consumer_stack_is_read_from_its_file() -> None:
    """The order check reads `clusterStack:`: the stack files still spell it that way."""
    assert (
        "clusterStack: organization/gpu-ci/gpu-dev" in (REPO / "Pulumi.apps-dev.yaml").read_text()
    )
    assert "clusterStack:" in _list_step()["run"]
