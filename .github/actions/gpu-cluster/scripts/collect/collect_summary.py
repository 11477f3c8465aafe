"""SUMMARY.md, the bundle's first page, and collect.log, its full record.

SUMMARY.md names the first failure found, in the order one causes the next: a host step
that failed in `pulumi up` (it stops everything after it), then a GPU Xid in the kernel log
(a GPU the driver lost fails every check that uses it), then the first check Job to fail
(its Test's failing step, from Chainsaw's report, or the GPU check's FAILED line), then
the oldest pod not Running with its reason. Then the first of each kind, the sources that
failed or timed out (recorded, never fatal), versions that differ from the pins, what the
size bound cut, and how many values were redacted. collect.log has every source.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from collect_bundle import Cut
from collect_cluster import Failure
from collect_run import OK, Record

ORDER = ("host step", "Xid", "check Job", "pod")
PODS_SHOWN = 5


@dataclass
class Report:
    cluster: str
    failures: list[Failure] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    differs: list[str] = field(default_factory=list)
    cuts: list[Cut] = field(default_factory=list)
    limit: int = 0
    redacted: dict[str, int] = field(default_factory=dict)

    def ordered(self) -> list[Failure]:
        return sorted(self.failures, key=lambda f: ORDER.index(f.kind))

    def first(self) -> str:
        ordered = self.ordered()
        if ordered:
            return ordered[0].text
        broken = self.broken()
        if broken:
            return f"no failure found in what was collected; {len(broken)} source(s) failed"
        return "no failure found in what was collected"

    def broken(self) -> list[Record]:
        return [r for r in self.records if r.status not in (OK, "absent")]


def summary(report: Report) -> str:
    lines = [f"# gpu-ci diagnostics: cluster `{report.cluster}`", ""]
    lines += [f"**First failure:** {report.first()}", ""]
    ordered = report.ordered()
    if ordered:
        lines += ["## Failures found (the first of each kind; the file says more)", ""]
        for kind in ORDER:
            of_kind = [f for f in ordered if f.kind == kind]
            shown = of_kind[:PODS_SHOWN] if kind == "pod" else of_kind[:1]
            lines += [f"- {f.kind}: {f.text} (`{f.path}`)" for f in shown]
            if len(of_kind) > len(shown):
                lines.append(f"- ... {len(of_kind) - len(shown)} more {kind} failure(s)")
        lines.append("")
    broken = report.broken()
    if broken:
        lines += ["## Sources that failed (collect went on; collect.log has all)", ""]
        lines += [
            f"- {r.name}: {r.status}" + (f" ({r.detail})" if r.detail else "") for r in broken
        ]
        lines.append("")
    if report.differs:
        lines += ["## Versions that differ from the pins (versions.txt)", ""]
        lines += [f"- {d}" for d in report.differs]
        lines.append("")
    lines += [f"## Size bound: {report.limit} bytes", ""]
    lines += [f"- {c.line()}" for c in report.cuts] or ["- nothing was cut"]
    lines += [f"- left out: {o}" for o in report.left_out]
    count = sum(report.redacted.values())
    rules = ", ".join(f"{k} {v}" for k, v in sorted(report.redacted.items()) if v)
    lines += ["", f"Redacted: {count} value(s)" + (f" ({rules})" if rules else ""), ""]
    return "\n".join(lines)


def log(records: Sequence[Record], left_out: Sequence[str], cuts: Sequence[Cut]) -> str:
    rows = [f"{r.status}\t{r.name}\t{r.path or '-'}\t{r.detail}" for r in records]
    rows += [f"left out\t{o}" for o in left_out]
    rows += [f"size bound\t{c.line()}" for c in cuts]
    return "status\tsource\tfile\tdetail\n" + "".join(f"{row}\n" for row in rows)
