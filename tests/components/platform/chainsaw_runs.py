"""Run a health check with the pinned `chainsaw` binary on recorded cluster objects: the Job's
own `chainsaw test` arguments, against `recorded_cluster`'s read-only API server.

Only the waiting changes: every assert and error timeout of the Test, and the defaults on
the command line, become `POLL`, so an expectation the objects never meet fails after one
second of polling (each 50 ms, `pkg/client/utils.go` `PollInterval`) instead of after the
check's budget; the objects are the cluster's state once it settled. The verdict is read
from Chainsaw's own JSON report (`--report-format JSON`, `pkg/report/json.go`).
"""

from __future__ import annotations

import copy
import json
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from components.platform.chainsaw_tests import operations
from components.platform.check_jobs import TEST_DIR, TEST_FILE, chainsaw_args
from components.platform.health_model import CHECKS_NAMESPACE, ClusterCheck
from core import yaml_text
from tests.components.platform.recorded_cluster import Kind, RecordedApi, serving
from tests.upstream_tools import run_tool

POLL = "1s"
_TIMED = ("assert", "error")


@dataclass(frozen=True)
class Outcome:
    """Chainsaw's verdict: passed, or the first failed step and its operation's error."""

    passed: bool
    step: str = ""
    reason: str = ""
    output: str = ""
    requests: tuple[str, ...] = ()
    """What it asked the API server, in order (`GET /api/v1/nodes`, ...)."""


def _quick(test: Mapping[str, Any]) -> dict[str, Any]:
    """`test` with every assert/error timeout set to `POLL`."""
    doc: dict[str, Any] = copy.deepcopy(dict(test))
    spec = doc.get("spec") or {}
    for holder in [spec, *(spec.get("steps") or [])]:
        timeouts = holder.get("timeouts") or {}
        for key in _TIMED:
            if key in timeouts:
                timeouts[key] = POLL
    for step in spec.get("steps") or []:
        for entry in step.get("try") or []:
            for key in _TIMED:
                if isinstance(entry.get(key), dict) and "timeout" in entry[key]:
                    entry[key]["timeout"] = POLL
    return doc


def _kinds(test: Mapping[str, Any]) -> Iterator[Kind]:
    """The kinds the Test reads, served even when no object of them is recorded."""
    for op in operations(test):
        api_version, kind = op.resource.get("apiVersion"), op.resource.get("kind")
        if isinstance(api_version, str) and isinstance(kind, str) and "(" not in api_version:
            yield Kind(api_version, kind)


def _namespace(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def _args(folder: Path, namespace: str) -> list[str]:
    check = ClusterCheck(name="recorded", kind="chainsaw", summary="", timeout_s=60)
    args = chainsaw_args(check, namespace)
    args[args.index(TEST_DIR)] = str(folder)
    args = [
        f"{a.split('=')[0]}={POLL}" if a.startswith(("--assert-timeout=", "--error-timeout="))
        else a
        for a in args
    ]  # fmt: skip
    return [*args, "--report-format", "JSON", "--report-path", str(folder), "--report-name", "r"]


def run_check(
    test: Mapping[str, Any],
    objects: Sequence[Mapping[str, Any]],
    namespace: str = CHECKS_NAMESPACE,
) -> Outcome:
    """What the pinned chainsaw decides running `test` on a cluster holding `objects`."""
    built_in = [Kind("v1", "Namespace"), Kind("v1", "Node")]  # every API server serves them
    api = RecordedApi([*objects, _namespace(namespace)], [*_kinds(test), *built_in])
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / TEST_FILE).write_text(yaml_text.dump(_quick(test)), encoding="utf-8")
        with serving(api, folder) as (kubeconfig, seen):
            done = run_tool(
                "chainsaw",
                *_args(folder, namespace),
                env={"KUBECONFIG": str(kubeconfig)},  # this cluster only
                timeout=120,
            )
        output = done.stdout + done.stderr
        report_file = folder / "r.json"
        assert report_file.is_file(), output
        report = json.loads(report_file.read_text(encoding="utf-8"))
    (result,) = report["tests"]
    if result["status"] == "passed":
        assert done.returncode == 0, output
        return Outcome(True, output=output, requests=tuple(seen))
    assert done.returncode != 0, output
    for step in result.get("steps") or []:
        if step["status"] == "failed":
            failures = [o["failure"]["error"] for o in step["operations"] if o.get("failure")]
            return Outcome(False, step["name"], "; ".join(failures), output, tuple(seen))
    return Outcome(False, "", result["status"], output, tuple(seen))
