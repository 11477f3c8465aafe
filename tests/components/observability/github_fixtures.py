"""Runs and jobs for the fake API, made from GitHub's own examples, checked against its schemas.

Every fixture starts as the REST description's example (`workflow-run-paginated`'s run,
`job-paginated`'s job) with the fields a scenario needs replaced, and `check()` validates it
against the description's `workflow-run` / `job` schema (OpenAPI 3.0: `nullable: true` read
as JSON Schema's `null` type), so what the fake serves is what GitHub documents.
"""

from __future__ import annotations

import copy
import json
import os
import time
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # dev dependency without stubs

# Where tests/conftest.py finds the upstream data: GPU_CI_UPSTREAM (which `tasks.py mutate`
# sets for its scratch copies of the tree), else ../shared/upstream beside the checkout.
DESCRIPTION = (
    Path(
        os.environ.get(
            "GPU_CI_UPSTREAM", Path(__file__).resolve().parents[3].parent / "shared/upstream"
        )
    )
    / "schemas/github-rest-api/actions-workflow-runs-jobs.json"
)


@cache
def description() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DESCRIPTION.read_text())
    return loaded


def _json_schema(node: Any) -> Any:
    """OpenAPI 3.0 to JSON Schema: `nullable` becomes a `null` alternative."""
    if isinstance(node, list):
        return [_json_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _json_schema(v) for k, v in node.items() if k not in ("nullable", "example")}
    if node.get("nullable"):
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
        return {"anyOf": [out, {"type": "null"}]}
    return out


@cache
def _schemas() -> dict[str, Any]:
    return {"components": {"schemas": _json_schema(description()["components"]["schemas"])}}


def check(kind: str, item: dict[str, Any]) -> dict[str, Any]:
    """`item` if it validates against the description's `kind` schema (job, workflow-run)."""
    root = _schemas()
    schema = {**root["components"]["schemas"][kind], "components": root["components"]}
    jsonschema.validate(item, schema)
    return item


def example(name: str) -> Any:
    return copy.deepcopy(description()["components"]["examples"][name]["value"])


def iso(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))


def run(repo: str, run_id: int, status: str, created: float) -> dict[str, Any]:
    item: dict[str, Any] = example("workflow-run-paginated")["workflow_runs"][0]
    item.update(
        id=run_id,
        status=status,
        conclusion=None if status != "completed" else "success",
        created_at=iso(created),
        updated_at=iso(created),
        url=f"https://api.github.com/repos/{repo}/actions/runs/{run_id}",
    )
    item["repository"]["full_name"] = repo
    return check("workflow-run", item)


def job(
    job_id: int,
    run_id: int,
    labels: list[str],
    created: float,
    *,
    started: float | None = None,
    completed: float | None = None,
    conclusion: str | None = None,
    runner: str | None = None,
) -> dict[str, Any]:
    """A job: queued (no runner, `started_at` = `created_at`, as GitHub reports a queued
    job), in progress (a runner and `started_at`), or completed (`completed_at`)."""
    item: dict[str, Any] = example("job-paginated")["jobs"][0]
    status = "queued" if runner is None and completed is None else "in_progress"
    if completed is not None:
        status = "completed"
    item.update(
        id=job_id,
        run_id=run_id,
        status=status,
        conclusion=conclusion if completed is not None else None,
        created_at=iso(created),
        started_at=iso(started if started is not None else created),
        completed_at=iso(completed) if completed is not None else None,
        labels=labels,
        runner_id=None if runner is None else 7,
        runner_name=runner,
        runner_group_id=None if runner is None else 2,
        runner_group_name=None if runner is None else "GPUs",
        steps=[],
    )
    return check("job", item)
