"""The names SUMMARY.md and collect.log give collect.py's sources and parts, which a reader
goes by to see what was collected and what failed: the stack's outputs, kind's kubeconfig,
pins.py, a part that raises; the kubeconfig kubectl runs with; the failures of every part
listed together. test_collect_inputs.py has what the collect reads and leaves behind;
test_collect_main.py the bundle's shape, its tarball and the result file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from ..action_sandbox import ActionSandbox
from .collect_in_process import InProcess, in_process
from .collect_modules import module
from .collect_sandbox import CHECKS, pod
from .collect_stand_ins import JOB, KUBECONFIG, a_script, given_kubeconfig, log_rows

collect = module("collect")
BUG = "RuntimeError: a collector bug"


@pytest.fixture
def stands(runner: ActionSandbox, monkeypatch: pytest.MonkeyPatch) -> InProcess:
    return in_process(runner, monkeypatch)


def a_pulumi(folder: Path, shown: dict[str, str] | None) -> Path:
    """The action's Pulumi CLI, whose stack's outputs are `shown` (`runnerToken` a secret
    one: "[secret]" without --show-secrets), or that fails as `pulumi stack output` does
    for a stack it cannot find when `shown` is None."""
    if shown is None:
        answer = "echo \"error: no stack named 's' found\" >&2; exit 255"
    else:
        public = json.dumps({**shown, "runnerToken": "[secret]"})
        answer = (
            f'if [[ " $* " == *" --show-secrets "* ]]; then echo \'{json.dumps(shown)}\'; '
            f"else echo '{public}'; fi"
        )
    body = f'case " $* " in\n  " version ") echo v3.272.0 ;;\n  *" stack output "*) {answer} ;;\n'
    return a_script(folder, "pulumi", body + "  *) exit 2 ;;\nesac\n")


def test_the_stacks_outputs_are_two_sources_of_the_log(stands: InProcess, tmp_path: Path) -> None:
    pulumi = a_pulumi(tmp_path / "cli", {"runnerToken": "runner-token-0123456789"})
    assert stands.main("--pulumi", str(pulumi), "--stack", "s", work=False) == 0
    rows = log_rows(stands)
    assert [row for row in rows if "\tstack outputs" in row] == [
        "ok\tstack outputs (secrets)\t-\t",
        "ok\tstack outputs\t-\t",
    ]


def test_a_stack_whose_outputs_cannot_be_read_is_two_failed_sources(
    stands: InProcess, tmp_path: Path
) -> None:
    pulumi = a_pulumi(tmp_path / "cli", None)
    assert stands.main("--pulumi", str(pulumi), "--stack", "s", work=False) == 0
    lines = stands.rig.summary().splitlines()
    assert [line for line in lines if line.startswith("- stack outputs")] == [
        "- stack outputs (secrets): failed (exit 255: error: no stack named 's' found)",
        "- stack outputs: failed (exit 255: error: no stack named 's' found)",
    ]


def boom(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("a collector bug")


@pytest.mark.parametrize(
    ("part", "owner", "attribute"),
    [
        ("stack outputs", collect, "stack_outputs"),
        ("kubeconfig", collect, "kubeconfig"),
        ("action files", collect, "action_files"),
        ("host", collect.Host, "collect"),
        ("versions", collect.Versions, "tools"),
        ("versions", collect.Versions, "host"),
    ],
    ids=["stack-outputs", "kubeconfig", "action-files", "host", "tools-versions", "host-versions"],
)
def test_a_part_that_raises_is_named_as_failed_and_the_rest_goes_on(
    stands: InProcess,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    part: str,
    owner: Any,
    attribute: str,
) -> None:
    """phase(): a bug in one part of the collector is a source that failed, by that part's
    name, in SUMMARY.md and collect.log; the bundle is still written."""
    stands.rig.cluster(["gpu-operator"], {})
    stands.rig.answer("kind get kubeconfig --name kind", KUBECONFIG)
    monkeypatch.setattr(owner, attribute, boom)
    assert stands.main() == 0
    assert f"- {part}: failed ({BUG})" in stands.rig.summary()
    assert [row for row in log_rows(stands) if BUG in row] == [f"failed\t{part}\t-\t{BUG}"]
    assert "versions.txt" in stands.rig.files()
    assert stands.result()["bundle"] == str(stands.rig.tarball)


def test_kinds_kubeconfig_is_a_source_of_its_own(stands: InProcess) -> None:
    stands.rig.answer("kind get kubeconfig --name kind", KUBECONFIG)
    stands.rig.cluster(["gpu-operator"], {})
    assert stands.main(work=False) == 0
    assert "ok\tkind get kubeconfig\t-\t" in log_rows(stands)
    stands.rig.fail("kind", 'ERROR: no nodes found for cluster "kind"')
    assert stands.main(work=False) == 0
    summary = stands.rig.summary()
    assert '- kind get kubeconfig: failed (exit 1: ERROR: no nodes found for cluster "kind")' in (
        summary
    )
    rows = log_rows(stands)
    assert "skipped\tcluster\t-\tno kubeconfig: neither given nor from kind" in rows
    assert "skipped\tpins.py\t-\tneither --pins nor --python was given" in rows


def test_a_kubeconfig_kind_printed_before_it_failed_is_not_used(
    stands: InProcess, tmp_path: Path
) -> None:
    printed = tmp_path / "printed"
    printed.write_text(KUBECONFIG)
    stub = stands.sandbox.bin / "kind"
    kind = a_script(
        tmp_path / "kind-bin",
        "kind",
        f'if [ "$1 $2" = "get kubeconfig" ]; then\n  cat {printed}\n'
        '  echo "ERROR: failed to get cluster internal kubeconfig" >&2\n  exit 1\nfi\n'
        f'exec {stub} "$@"\n',
    )
    stands.rig.cluster(["gpu-operator"], {})
    assert stands.main("--kind", str(kind), work=False) == 0
    summary = stands.rig.summary()
    assert "- kind get kubeconfig: failed (exit 1: ERROR: failed to get cluster internal " in (
        summary
    )
    assert "- cluster: skipped (no kubeconfig: neither given nor from kind)" in summary
    assert not [c for c in stands.calls() if c.startswith("kubectl --request-timeout")]


def test_kubectl_runs_with_the_given_kubeconfig(stands: InProcess, tmp_path: Path) -> None:
    seen = tmp_path / "seen"
    stub = stands.sandbox.bin / "kubectl"
    kubectl = a_script(
        tmp_path / "kubectl-bin",
        "kubectl",
        f'printf "%s\\n" "$KUBECONFIG" >>{seen}\nexec {stub} "$@"\n',
    )
    config = given_kubeconfig(tmp_path)
    stands.rig.cluster(["gpu-operator"], {})
    assert stands.main("--kubeconfig", str(config), "--kubectl", str(kubectl), work=False) == 0
    assert "cluster/namespaces.txt" in stands.rig.files()
    assert set(seen.read_text().splitlines()) == {str(config)}
    assert "kind get kubeconfig --name kind" not in stands.calls()


def test_the_pins_from_a_python_that_fails_are_a_failed_source(
    stands: InProcess, tmp_path: Path
) -> None:
    python = a_script(
        tmp_path / "venv",
        "python",
        "echo \"ModuleNotFoundError: No module named 'pydantic'\" >&2\nexit 1\n",
    )
    assert stands.main("--python", str(python), work=False) == 0
    summary = stands.rig.summary()
    assert "- pins.py: failed (exit 1: ModuleNotFoundError: No module named 'pydantic')" in summary
    assert stands.main("--python", sys.executable, work=False) == 0
    assert "ok\tpins.py\t-\t" in log_rows(stands)


def test_the_failures_of_every_part_are_listed_with_their_files(
    stands: InProcess, tmp_path: Path
) -> None:
    rig, work = stands.rig, stands.rig.runner.work
    work.mkdir(parents=True, exist_ok=True)
    (work / "up-full.log").write_text("gpu-ci step toolkit: apt-get install failed (exit 100)\n")
    xid = (
        "2026-09-01T10:05:00+00:00 gpu kernel: NVRM: Xid (PCI:0000:01:00): 79, pid=1234, "
        "GPU has fallen off the bus."
    )
    rig.answer("journalctl -k --no-pager -o short-iso", f"{xid}\n")
    rig.cluster([CHECKS], {CHECKS: [pod(CHECKS, "stuck", "T", "Pending")]})
    rig.check_job(JOB, "nccl-all-reduce", "gpu-ci check nccl-all-reduce: FAILED (NCCL error)\n")
    assert stands.main("--kubeconfig", str(given_kubeconfig(tmp_path))) == 0
    summary = rig.summary()
    assert "**First failure:** host step toolkit: apt-get install failed (exit 100)\n" in summary
    section = summary.split("## Failures found (the first of each kind; the file says more)\n\n")
    assert section[1].split("\n\n")[0].splitlines() == [
        "- host step: host step toolkit: apt-get install failed (exit 100) (`action/up-full.log`)",
        f"- Xid: Xid 79 on PCI:0000:01:00: {xid} (`host/xid.txt`)",
        f"- check Job: check nccl-all-reduce (Job {CHECKS}/{JOB}) failed: BackoffLimitExceeded "
        "(Job has reached the specified backoff limit); gpu-ci check nccl-all-reduce: FAILED "
        f"(NCCL error) (`checks/{JOB}.log`)",
        f"- pod: pod {CHECKS}/stuck: Pending (`cluster/{CHECKS}/describe.txt`)",
    ]


def test_a_failed_cluster_part_leaves_the_versions_whole(stands: InProcess, tmp_path: Path) -> None:
    odd = pod("ns", "p", "T", "Pending", containerStatuses=["not an object"])
    stands.rig.cluster(["ns"], {"ns": [odd]})
    assert stands.main("--kubeconfig", str(given_kubeconfig(tmp_path)), work=False) == 0
    rows = log_rows(stands)
    assert [row.split("\t")[1] for row in rows if "Error: " in row] == ["cluster"]
    assert "version: cluster" in [row.split("\t")[1] for row in rows]
