"""Run a health check with the pinned `chainsaw` binary on recorded cluster objects: the Job's
own shell (`chainsaw/script.py`) around its own `chainsaw test` arguments, against
`recorded_cluster`'s read-only API server.

Only the waiting changes: every assert and error timeout of the Test, and the defaults on
the command line, become `POLL`, so an expectation the objects never meet fails after one
second of polling (each 50 ms, `pkg/client/utils.go` `PollInterval`) instead of after the
check's budget; the objects are the cluster's state once it settled. The verdict is read
from Chainsaw's own JSON report (`--report-format JSON`, `pkg/report/json.go`).
"""

from __future__ import annotations

import copy
import json
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from components.platform.chainsaw.documents import operations
from components.platform.chainsaw.script import WORK_DIR, chainsaw_script
from components.platform.checks.jobs import TEST_DIR, TEST_FILE, chainsaw_args
from components.platform.checks.model import CHECKS_NAMESPACE, ClusterCheck
from core import yaml_text
from tests.components.platform.recorded_cluster import Kind, RecordedApi, serving
from tests.upstream_tools import tool

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
    verdict: str = ""
    """The check script's last line (`gpu-ci check NAME: passed (...)` or `: FAILED (...)`)."""


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


def _args(folder: Path, namespace: str, quick: bool) -> list[str]:
    check = ClusterCheck(name="recorded", kind="chainsaw", summary="", timeout_s=60, wait_s=60)
    args = chainsaw_args(check, namespace)
    args = [str(folder) if a in (TEST_DIR, WORK_DIR) else a for a in args]
    if not quick:
        return args
    return [
        f"{a.split('=')[0]}={POLL}" if a.startswith(("--assert-timeout=", "--error-timeout="))
        else a
        for a in args
    ]  # fmt: skip


@dataclass(frozen=True)
class ScriptRun:
    """The check script's exit code and output, Chainsaw's report (if written), the requests."""

    returncode: int
    output: str
    report: dict[str, Any] | None
    requests: tuple[str, ...]

    @property
    def verdict(self) -> str:
        return self.output.rstrip("\n").splitlines()[-1]


def run_script(
    test: Mapping[str, Any] | None,
    objects: Sequence[Mapping[str, Any]],
    *,
    expect: str = "t",
    watchdog_s: int = 60,
    quick: bool = True,
    file_name: str = TEST_FILE,
    namespace: str = CHECKS_NAMESPACE,
) -> ScriptRun:
    """The check Job's script, expecting Test `expect`, on `test` written as `file_name`
    (None: no file), with the pinned chainsaw, on a cluster holding `objects`."""
    built_in = [Kind("v1", "Namespace"), Kind("v1", "Node")]  # every API server serves them
    kinds = [*_kinds(test), *built_in] if test is not None else built_in
    api = RecordedApi([*objects, _namespace(namespace)], kinds)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if test is not None:
            doc = _quick(test) if quick else dict(test)
            (folder / file_name).write_text(yaml_text.dump(doc), encoding="utf-8")
        script = chainsaw_script(
            "recorded",
            expect,
            _args(folder, namespace, quick),
            watchdog_s,
            binary=str(tool("chainsaw")),
            work_dir=str(folder),
        )
        with serving(api, folder) as (kubeconfig, seen):
            done = subprocess.run(
                ["/bin/sh", "-c", script],
                env={"KUBECONFIG": str(kubeconfig), "PATH": "/usr/bin:/bin"},  # this cluster
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,  # one stream in order, as the pod's log
                text=True,
                timeout=120,
                check=False,
            )
        report_file = folder / "chainsaw-report.json"
        report = json.loads(report_file.read_text("utf-8")) if report_file.is_file() else None
    return ScriptRun(done.returncode, done.stdout, report, tuple(seen))


def run_check(
    test: Mapping[str, Any],
    objects: Sequence[Mapping[str, Any]],
    namespace: str = CHECKS_NAMESPACE,
) -> Outcome:
    """What the pinned chainsaw decides running `test` on a cluster holding `objects`."""
    name = str((test.get("metadata") or {}).get("name") or "")
    run = run_script(test, objects, expect=name, namespace=namespace)
    output, report, seen = run.output, run.report, run.requests
    assert report is not None, output
    (result,) = report["tests"]
    if result["status"] == "passed":
        assert run.returncode == 0, output
        assert run.verdict == f"gpu-ci check recorded: passed (Test {name})", output
        return Outcome(True, output=output, requests=seen, verdict=run.verdict)
    assert run.returncode != 0, output
    for step in result.get("steps") or []:
        if step["status"] == "failed":
            failures = [o["failure"]["error"] for o in step["operations"] if o.get("failure")]
            reason = "; ".join(failures)
            return Outcome(False, step["name"], reason, output, seen, run.verdict)
    return Outcome(False, "", result["status"], output, seen, run.verdict)
