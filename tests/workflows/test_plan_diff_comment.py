"""The plan-diff comment says, visibly, that the PR's own code wrote it (issue #41).

plan-diff.yml runs the pull request's checkout, so its markdown is the PR's word: a PR
that edits the planner can make it say "No changes". The posting workflow
(plan-diff-comment.yml, `workflow_run`: the default branch's file, which a PR cannot
edit) opens the comment with that warning and the PR's changed files that ran in the job,
read from the API. Its github-script runs here under Node, as the action runs it
(tests/workflows/github_script.cjs), against recorded API answers.
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

WORKFLOW = REPO / ".github" / "workflows" / "plan-diff-comment.yml"
HARNESS = Path(__file__).with_name("github_script.cjs")
MARKER = "<!-- gpu-ci:plan-diff -->"
HEAD = "0123456789abcdef0123456789abcdef01234567"
WARNING = (
    "> [!WARNING]\n"
    "> **Written by this pull request's own code.** The plan-diff job ran the PR's checkout\n"
    "> (its planner, its dependencies, its copy of `plan-diff.yml`), so a PR that edits them\n"
    '> can make this diff say anything, "No changes" included.\n'
)
TRUSTED = (
    "> (This note is added by plan-diff-comment, the base branch's workflow: the PR cannot "
    "remove it.)\n"
)
NO_CHANGES = "## Offline plan diff (PR #7 at 0123456)\n\nNo changes.\n"


def comment_step() -> dict[str, Any]:
    steps = load_github_yaml(WORKFLOW)["jobs"]["comment"]["steps"]
    (step,) = [s for s in steps if s.get("uses", "").startswith("actions/github-script@")]
    return dict(step)


def run_script(
    tmp_path: Path,
    markdown: str,
    files: list[dict[str, str]],
    comments: list[dict[str, Any]] | None = None,
) -> list[list[Any]]:
    """The step's script on `markdown` (the artifact) for PR 7 whose files are `files`."""
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("the github-script test cannot run in CI: node is missing (see .ci/run)")
        pytest.skip("the github-script test needs node")
    step = comment_step()
    body = tmp_path / "plan-diff.md"
    body.write_text(markdown)
    script = tmp_path / "script.js"
    script.write_text(step["with"]["script"])
    fixture = tmp_path / "fixture.json"
    fixture.write_text(
        json.dumps(
            {
                "repo": {"owner": "acme", "repo": "gpu-ci"},
                "paginate": {
                    "pulls.list": [{"number": 7, "head": {"sha": HEAD}}],
                    "pulls.listFiles": files,
                    "issues.listComments": comments or [],
                },
            }
        )
    )
    env = {
        **{k: v for k, v in step["env"].items() if not v.startswith("${{")},
        "BODY_FILE": str(body),
        "HEAD_SHA": HEAD,
        "HEAD_OWNER": "fork-owner",
        "HEAD_BRANCH": "topic",
        "RUN_URL": "https://github.com/acme/gpu-ci/actions/runs/1",
        "PATH": os.environ["PATH"],
    }
    done = subprocess.run(
        [node, str(HARNESS), str(script), str(fixture)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    calls: list[list[Any]] = json.loads(done.stdout)
    return calls


def posted(calls: list[list[Any]]) -> str:
    (write,) = [c for c in calls if c[0] in ("issues.createComment", "issues.updateComment")]
    body: str = write[1]["body"]
    return body


def test_every_env_value_of_the_step_is_one_the_harness_sets() -> None:
    """The harness replaces each `${{ }}` value of the step's env: none is left unset."""
    assert set(comment_step()["env"]) == {
        "BODY_FILE",
        "HEAD_SHA",
        "HEAD_OWNER",
        "HEAD_BRANCH",
        "RUN_URL",
    }


def test_a_pr_that_edits_the_planner_gets_the_warning_above_its_no_changes(
    tmp_path: Path,
) -> None:
    files = [
        {"filename": "stacks/offline/diff/text.py", "status": "modified"},
        {"filename": "docs/day-2.md", "status": "modified"},
        {"filename": "Pulumi.dev.yaml", "status": "modified"},
    ]
    body = posted(run_script(tmp_path, NO_CHANGES, files))
    assert body == (
        f"{MARKER}\n{WARNING}"
        "> Files of this PR that ran or were read there (all but docs and `Pulumi.STACK.yaml` "
        "files): 1, `stacks/offline/diff/text.py`.\n"
        f"{TRUSTED}\n{NO_CHANGES}\n\n"
        "<sub>Offline plan diff of 0123456: [run](https://github.com/acme/gpu-ci/actions/runs/1)"
        "</sub>\n"
    )


def test_a_pr_of_only_stack_files_and_docs_is_told_the_base_code_wrote_it(
    tmp_path: Path,
) -> None:
    files = [
        {"filename": "Pulumi.gpu-dev.yaml", "status": "modified"},
        {"filename": "README.md", "status": "modified"},
    ]
    body = posted(run_script(tmp_path, NO_CHANGES, files))
    assert body.startswith(
        f"{MARKER}\n{WARNING}> This PR changes only docs and `Pulumi.STACK.yaml` files: the "
        f"code that wrote this is the base branch's.\n{TRUSTED}\n"
    )


def test_the_prs_markdown_cannot_remove_or_hide_the_warning(tmp_path: Path) -> None:
    """The note comes first and does not depend on the artifact: the PR's text (a marker
    of its own, an unclosed HTML comment, a fake note) only follows it."""
    files = [{"filename": ".github/workflows/plan-diff.yml", "status": "modified"}]
    hostile = f"{MARKER}\n<!--\n> [!NOTE]\n> Reviewed by the maintainers.\nNo changes.\n"
    honest = posted(run_script(tmp_path, NO_CHANGES, files))
    forged = posted(run_script(tmp_path, hostile, files))
    note = honest[: honest.index(NO_CHANGES)]
    assert forged.startswith(note)
    assert forged.count(MARKER) == 1  # the artifact's own marker is dropped
    assert "`.github/workflows/plan-diff.yml`" in note


def test_file_names_are_shown_as_plain_characters_and_counted(tmp_path: Path) -> None:
    """A name is the PR author's text: no mention, no code span broken out of, no HTML;
    renamed files count under both names; past ten, the rest are counted."""
    files = [
        {"filename": "core/a`b@c<d>.py", "status": "modified"},
        {
            "filename": "stacks/new_name.py",
            "previous_filename": "stacks/old_name.py",
            "status": "renamed",
        },
        *({"filename": f"components/m{i}.py", "status": "added"} for i in range(10)),
    ]
    body = posted(run_script(tmp_path, NO_CHANGES, files))
    line = next(line for line in body.splitlines() if line.startswith("> Files of this PR"))
    assert line.startswith(
        "> Files of this PR that ran or were read there (all but docs and `Pulumi.STACK.yaml` "
        "files): 13, `core/a?b?c?d?.py`, `stacks/new_name.py`, `stacks/old_name.py`, "
        "`components/m0.py`, "
    )
    assert line.endswith("`components/m6.py`, and 3 more.")
    assert "@" not in line and "<" not in line


def test_the_bots_earlier_comment_is_updated_with_the_warning(tmp_path: Path) -> None:
    comments = [
        {"id": 11, "user": {"login": "someone"}, "body": f"{MARKER}\nquoted"},
        {"id": 12, "user": {"login": "github-actions[bot]"}, "body": f"{MARKER}\nold"},
    ]
    files = [{"filename": "requirements.txt", "status": "modified"}]
    calls = run_script(tmp_path, NO_CHANGES, files, comments)
    (update,) = [c for c in calls if c[0] == "issues.updateComment"]
    assert update[1]["comment_id"] == 12
    assert update[1]["body"].startswith(f"{MARKER}\n{WARNING}")
    assert [
        "pulls.listFiles",
        {"owner": "acme", "repo": "gpu-ci", "pull_number": 7, "per_page": 100},
    ] in calls
