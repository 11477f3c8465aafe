"""collect_summary: SUMMARY.md's first failure and sections, and collect.log's rows.

In this process, under the dotted name mutmut gives the module (collect_modules.py).
"""

from __future__ import annotations

from .collect_modules import module

summary_mod = module("collect_summary")
Failure = module("collect_cluster").Failure
Record = module("collect_run").Record
Cut = module("collect_bundle").Cut


def pods(count: int) -> list[object]:
    return [
        Failure("pod", f"pod ns/p{i}: Pending", "cluster/ns/describe.txt") for i in range(count)
    ]


def test_the_first_failure_is_the_one_that_causes_the_others() -> None:
    report = summary_mod.Report(
        "kind",
        failures=[
            *pods(1),
            Failure("check Job", "check gpu-count failed", "checks/j.log"),
            Failure("Xid", "Xid 79 on PCI:0000:00:04", "host/xid.txt"),
            Failure("Xid", "Xid 48 later", "host/xid.txt"),
            Failure("host step", "host step nvkind-cluster: failed", "action/up-full.log"),
        ],
    )
    assert [f.text for f in report.ordered()] == [
        "host step nvkind-cluster: failed",
        "Xid 79 on PCI:0000:00:04",
        "Xid 48 later",
        "check gpu-count failed",
        "pod ns/p0: Pending",
    ]
    assert report.first() == "host step nvkind-cluster: failed"


def test_without_a_failure_the_first_says_how_many_sources_failed() -> None:
    records = [
        Record("nvidia-smi -q", "timed out", "host/nvidia-smi-q.txt", "after 60 s"),
        Record("/etc/cdi", "absent", "", "no /etc/cdi"),
        Record("nodes", "ok", ""),
        Record("journalctl -k", "failed", "host/kernel.log", "exit 1: no journal"),
        Record("stack outputs", "skipped", "", "no Pulumi state of this cluster here"),
    ]
    report = summary_mod.Report("kind", records=records)
    assert report.broken() == [records[0], records[3], records[4]]
    assert report.first() == "no failure found in what was collected; 3 source(s) failed"
    assert summary_mod.Report("kind").first() == "no failure found in what was collected"


def test_the_summary_names_each_kinds_first_and_what_else_happened() -> None:
    report = summary_mod.Report(
        "gpu-e2e",
        failures=[
            *pods(7),
            Failure("check Job", "check a failed", "checks/a.log"),
            Failure("check Job", "check b failed", "checks/b.log"),
            Failure("Xid", "Xid 79", "host/xid.txt"),
        ],
        records=[
            Record("nvidia-smi -q", "timed out", "host/nvidia-smi-q.txt", "after 60 s"),
            Record("pins.py", "skipped", "", ""),
            Record("nodes", "ok", ""),
        ],
        left_out=["kind-logs/x.gz: not text, so it cannot be checked for secrets"],
        differs=["toolkit (expected 1.17.8-1, installed 1.18.0-1)"],
        cuts=[Cut("kind-logs/j.log", 300000, 65536), Cut("host/kernel.log", 900, 0)],
        limit=1 << 20,
        redacted={"pem": 1, "credential": 0, "github-token": 2},
    )
    assert summary_mod.summary(report) == "\n".join(
        [
            "# gpu-ci diagnostics: cluster `gpu-e2e`",
            "",
            "**First failure:** Xid 79",
            "",
            "## Failures found (the first of each kind; the file says more)",
            "",
            "- Xid: Xid 79 (`host/xid.txt`)",
            "- check Job: check a failed (`checks/a.log`)",
            "- ... 1 more check Job failure(s)",
            *(f"- pod: pod ns/p{i}: Pending (`cluster/ns/describe.txt`)" for i in range(5)),
            "- ... 2 more pod failure(s)",
            "",
            "## Sources that failed (collect went on; collect.log has all)",
            "",
            "- nvidia-smi -q: timed out (after 60 s)",
            "- pins.py: skipped",
            "",
            "## Versions that differ from the pins (versions.txt)",
            "",
            "- toolkit (expected 1.17.8-1, installed 1.18.0-1)",
            "",
            "## Size bound: 1048576 bytes",
            "",
            "- kind-logs/j.log: cut to its last 65536 bytes (300000 bytes before)",
            "- host/kernel.log: dropped (900 bytes)",
            "- left out: kind-logs/x.gz: not text, so it cannot be checked for secrets",
            "",
            "Redacted: 3 value(s) (github-token 2, pem 1)",
            "",
        ]
    )


def test_a_quiet_collect_has_only_the_bound_and_no_redaction() -> None:
    report = summary_mod.Report("kind", pods(5), limit=100 << 20, redacted={"pem": 0})
    assert summary_mod.summary(report) == "\n".join(
        [
            "# gpu-ci diagnostics: cluster `kind`",
            "",
            "**First failure:** pod ns/p0: Pending",
            "",
            "## Failures found (the first of each kind; the file says more)",
            "",
            *(f"- pod: pod ns/p{i}: Pending (`cluster/ns/describe.txt`)" for i in range(5)),
            "",
            "## Size bound: 104857600 bytes",
            "",
            "- nothing was cut",
            "",
            "Redacted: 0 value(s)",
            "",
        ]
    )


def test_the_log_has_every_source_then_what_was_left_out_and_cut() -> None:
    records = [
        Record("nodes", "ok", "cluster/nodes.txt"),
        Record("stack outputs", "skipped", "", "no Pulumi state of this cluster here"),
    ]
    assert summary_mod.log(records, ["a.gz: not text"], [Cut("host/kernel.log", 900, 0)]) == (
        "status\tsource\tfile\tdetail\n"
        "ok\tnodes\tcluster/nodes.txt\t\n"
        "skipped\tstack outputs\t-\tno Pulumi state of this cluster here\n"
        "left out\ta.gz: not text\n"
        "size bound\thost/kernel.log: dropped (900 bytes)\n"
    )
    assert summary_mod.log([], [], []) == "status\tsource\tfile\tdetail\n"
