"""Both example GPU workflows collect a diagnostics bundle when the job fails, upload it
before the cluster is deleted, and link it from the job summary."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.workflows.github_tools import load_github_yaml

from .action_sandbox import REPO

EXAMPLES = [
    REPO / "examples" / "kubeflow-trainer-gpu-e2e.yaml",
    REPO / "examples" / "multi-gpu-e2e.yaml",
]
UPLOAD = "actions/upload-artifact@ea165f8d65b6e75b540449e92b4886f43607fa02"
"""v4.6.2, the commit the repository's other uploads pin (its tag v4.6.2 in a mirror of
actions/upload-artifact; its action.yml there has the `artifact-url` output)."""


def steps_of(path: Path) -> list[dict[str, Any]]:
    (job,) = load_github_yaml(path)["jobs"].values()
    found: list[dict[str, Any]] = job["steps"]
    return found


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_a_failed_job_uploads_and_links_a_bundle_before_the_cluster_goes(path: Path) -> None:
    steps = steps_of(path)
    collect = next(i for i, s in enumerate(steps) if s.get("with", {}).get("command") == "collect")
    upload, link, destroy = steps[collect + 1 : collect + 4]
    assert steps[collect]["if"] == "failure()" and steps[collect]["id"] == "diagnostics"
    assert steps[collect]["uses"] == next(s["uses"] for s in steps if s.get("id") == "gpu")
    assert upload["uses"] == UPLOAD
    assert upload["if"] == "failure() && steps.diagnostics.outputs.bundle != ''"
    assert upload["with"]["path"] == "${{ steps.diagnostics.outputs.bundle }}"
    assert link["env"]["URL"] == f"${{{{ steps.{upload['id']}.outputs.artifact-url }}}}"
    assert link["if"].startswith("failure()")
    assert '"$URL"' in link["run"] and '>>"$GITHUB_STEP_SUMMARY"' in link["run"]
    assert "${{" not in link["run"]
    assert destroy["with"]["command"] == "destroy" and destroy is steps[-1]
