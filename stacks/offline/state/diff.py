"""What `pulumi up` of a plan does to the deployed stack: `stacks diff --state EXPORT HEAD`.

The export becomes the base snapshot (`stacks.offline.state.snapshot`) and the plan diff runs
on it unchanged (`diff_snapshots`: the same rules as plan against plan). Then what only the
state knows is applied, each from the engine's own rule (pulumi/pulumi
pkg/resource/deploy/step_generator.go @ v3.259.0):
- a resource marked `taint` is replaced (`isTargetedReplace`: "If the resource was marked
  tainted in the old state, we will replace ... it");
- a `pendingReplacement` one, deleted by an interrupted delete-before-replace, is made again
  (`if diff.Replace() || triggerReplace || old.PendingReplacement`);
- one with `initErrors` is updated even without a change ("If resource was unchanged, but
  there were initialization errors, generate an empty update step");
- an old copy left with `delete: true` is deleted (`if res.Delete`, the pending deletes).
Pending operations are reported, never resolved: the engine only warns about them
(pkg/resource/deploy/deployment_executor.go @ v3.259.0, `printPendingOperationsWarning`) and
keeps a pending create until `pulumi refresh` clears or imports it (pkg/backend/snapshot.go
@ v3.259.0, "we don't want to clear pending CREATE operations").
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from core.errors import write_output
from stacks.offline.diff.changes import Op, PlanDiff, ResourceChange, diff_snapshots
from stacks.offline.diff.markdown import render_markdown
from stacks.offline.diff.text import render_text
from stacks.offline.snapshot.file import SnapshotError, load_snapshot
from stacks.offline.snapshot.graph import run_order
from stacks.offline.snapshot.shape import Snapshot
from stacks.offline.state.export import StateExport, load_export
from stacks.offline.state.snapshot import StateNotes, state_snapshot

PENDING = {
    "creating": "may exist without being in the state: `pulumi up` creates it again (a "
    "duplicate, or a name conflict); first resolve it with `pulumi refresh` (clear or import)",
    "updating": "its cloud resource may hold the old inputs or the new ones",
    "deleting": "may be gone already while the state still holds it",
    "reading": "its read did not finish; the next update reads it again",
    "importing": "an import of a pending create that did not finish",
}
TAINTED = "tainted in the state: replaced by the next `pulumi up`"
PENDING_REPLACEMENT = (
    "deleted by an interrupted delete-before-replace (`pendingReplacement`): the next "
    "`pulumi up` creates it again"
)
INIT_ERRORS = "its last create or update did not finish initializing (`initErrors`): updated again"
CONDEMNED = "an old copy left by a replacement (`delete: true`): the next `pulumi up` deletes it"


@dataclass
class StateFact:
    kind: str
    """taint, pendingReplacement, initErrors, condemned, pending:<operation>."""
    urn: str
    type: str
    name: str
    text: str


@dataclass
class StateDiff:
    diff: PlanDiff
    base: Snapshot
    head: Snapshot
    notes: StateNotes
    facts: list[StateFact] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.diff.changed or bool(self.facts)

    def not_declared(self) -> list[ResourceChange]:
        return [r for r in self.diff.resources if r.op == "delete"]

    def not_in_state(self) -> list[ResourceChange]:
        return [r for r in self.diff.resources if r.op == "create"]

    def as_json(self) -> dict[str, Any]:
        export = self.notes.export
        return {
            **self.diff.as_json(),
            "state": {
                "export": export.path,
                "engine": export.engine,
                "time": export.time,
                "facts": [
                    {"kind": f.kind, "urn": f.urn, "type": f.type, "text": f.text}
                    for f in self.facts
                ],
                "notDeclared": [r.key for r in self.not_declared()],
                "notInState": [r.key for r in self.not_in_state()],
                "notCompared": [
                    {"urn": u.urn, "path": u.path, "why": u.why} for u in self.notes.uncompared
                ],
                "defaultProviders": self.notes.default_providers,
                "integrityError": export.integrity_error,
            },
        }


def diff_state(export: StateExport, head: Snapshot) -> StateDiff:
    """The plan diff of `head` against the deployed state in `export`, with its facts."""
    base, notes = state_snapshot(export, head)
    d = diff_snapshots(base, head)
    d.base = f"{d.base} (deployed state)"
    result = StateDiff(d, base, head, notes)
    changes = {c.key: i for i, c in enumerate(d.resources)}
    for r in export.resources:
        target = notes.matched.get(r.urn)
        if r.delete or target is None:
            continue
        name, type_ = target.rpartition("::")[2], r.type
        if r.taint or r.pending_replacement:
            kind, text = (
                ("taint", TAINTED) if r.taint else ("pendingReplacement", PENDING_REPLACEMENT)
            )
            result.facts.append(StateFact(kind, target, type_, name, text))
            _force(d, changes, target, name, type_, "replace")
        elif r.init_errors:
            text = f"{INIT_ERRORS} (first: {r.init_errors[0][:200]})"
            result.facts.append(StateFact("initErrors", target, type_, name, text))
            _force(d, changes, target, name, type_, "update")
    for r in notes.condemned:
        result.facts.append(StateFact("condemned", r.urn, r.type, r.name, CONDEMNED))
    for op in export.pending:
        text = f"interrupted while {op.type}: {PENDING[op.type]}"  # the reader's OPERATIONS
        result.facts.append(
            StateFact(
                f"pending:{op.type}", op.resource.urn, op.resource.type, op.resource.name, text
            )
        )
    rank = {**{u: i for i, u in enumerate(run_order(base))}, **_rank(head)}
    d.resources.sort(key=lambda c: (rank[c.key], c.key))  # each in the base or the head
    return result


def _rank(snap: Snapshot) -> dict[str, int]:
    return {u: i for i, u in enumerate(run_order(snap))}


_OUTRANKS = {"same": 0, "update": 1, "may-replace": 2, "replace": 3, "create": 4, "delete": 4}
"""How much a change does: a forced `op` leaves one that does as much or more."""


def _force(d: PlanDiff, changes: dict[str, int], urn: str, name: str, type_: str, op: Op) -> None:
    """Make the change of `urn` at least `op` (a replace outranks a may-replace, which
    outranks an update)."""
    if urn in changes:
        i = changes[urn]
        current = d.resources[i]
        if _OUTRANKS[current.op] < _OUTRANKS[op]:
            d.resources[i] = replace(current, op=op)
        return
    d.unchanged -= 1  # one state resource per planned one: never forced twice
    d.resources.append(ResourceChange(op, urn, name, type_))


def render_state_text(s: StateDiff) -> str:
    """The plan diff as text, then what the state says beyond it."""
    return render_text(s.diff) + "".join(f"{line}\n" for line in state_lines(s, "  "))


def state_lines(s: StateDiff, indent: str) -> list[str]:
    export = s.notes.export
    lines = [
        f"deployed state: {export.path}: {len(export.resources)} resources, written by "
        f"pulumi {export.engine or '(unknown)'} at {export.time or '(unknown)'}"
    ]
    if export.integrity_error:
        lines.append(f"{indent}! the state records an integrity error: {export.integrity_error}")
    for fact in s.facts:
        lines.append(f"{indent}! {fact.type}  {fact.name}: {fact.text}")
    gone = s.not_declared()
    if gone:
        lines.append(
            f"{indent}in the state, not declared by the program ({len(gone)}: deleted by "
            "`pulumi up`; a removal not yet applied, or left by a `--target` update): "
            + ", ".join(r.name for r in gone)
        )
    new = s.not_in_state()
    if new:
        lines.append(
            f"{indent}declared, not in the state ({len(new)}: created by `pulumi up`; new in "
            "the program, or skipped by a `--target` update): " + ", ".join(r.name for r in new)
        )
    if s.notes.uncompared:
        lines.append(
            f"{indent}not compared ({len(s.notes.uncompared)} inputs the engine compares and "
            "this diff cannot; a change there is not shown):"
        )
        for u in s.notes.uncompared:
            where = u.name or "stack output"
            lines.append(f"{indent}  {where} {u.path}: {u.why}")
    if s.notes.default_providers:
        lines.append(
            f"{indent}the engine's default providers ({len(s.notes.default_providers)}) are "
            "its own: not compared"
        )
    return lines


def render_state_markdown(s: StateDiff) -> str:
    out = [render_markdown(s.diff, s.base, s.head).removesuffix("\n")]
    lines = state_lines(s, "")
    out += ["", "#### Against the deployed state", "", lines[0], ""]
    compared = [ln for ln in lines[1:] if not ln.startswith("  ")]
    detail = [ln.strip() for ln in lines if ln.startswith("  ")]
    facts = [ln for ln in compared if ln.startswith("! ")]
    if facts:
        out += ["> [!WARNING]", *(f"> - {_md(ln[2:])}" for ln in facts), ""]
    out += [f"- {_md(ln)}" for ln in compared if not ln.startswith("! ")]
    if detail:
        out += ["", "<details><summary>Inputs not compared</summary>", ""]
        out += [f"- {_md(ln)}" for ln in detail]
        out += ["", "</details>"]
    return "\n".join(out).removesuffix("\n") + "\n"


def _md(text: str) -> str:
    return text.replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")


def code(s: StateDiff) -> int:
    return 1 if s.changed else 0


def diff_state_files(
    export_path: Path, head_path: Path, *, markdown: bool, json_out: Path | None = None
) -> tuple[int, str]:
    """(exit code, text) for `python -m stacks diff --state EXPORT.json HEAD.json`; raises
    `StateExportError` or `SnapshotError` on bad input."""
    export = load_export(export_path)
    head = load_snapshot(head_path)
    check_same_stack(export, head, head_path)
    s = diff_state(export, head)
    if json_out is not None:
        text = json.dumps(s.as_json(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        write_output(json_out, text, "--json")
    return code(s), render_state_markdown(s) if markdown else render_state_text(s)


def check_same_stack(export: StateExport, head: Snapshot, head_path: Path) -> None:
    if export.stack and (export.stack, export.project) != (head["stack"], head["project"]):
        raise SnapshotError(
            f"{head_path}: the plan of {head['project']}/{head['stack']}, and {export.path} "
            f"the state of {export.project}/{export.stack}: export the stack the plan is for "
            f"(`pulumi stack export --stack {head['stack']} --file FILE`)"
        )
