"""`python -m stacks diff --state EXPORTS HEAD`: one export and plan, or a folder of each.

With two files: `stacks.offline.state.diff`. With two folders: EXPORT_DIR holds
`STACK.json` per deployed stack (`pulumi stack export --stack STACK --file DIR/STACK.json`),
HEAD_DIR what `python -m stacks plan --all --json-dir DIR` wrote. Every stack on either
side is diffed, a stack other stacks read through a StackReference first: one planned but
with no export shows everything as created (not deployed, or not exported), one exported
but no longer planned everything as deleted. Bad input is one `error: STACK: reason` line,
the other stacks still diffed. Exit 0: no changes; 1: changes; 2: any bad input.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TextIO

from core.errors import GpuCiError, write_output
from core.read_files import FileRefusedError, read_bytes
from core.read_limits import PLAN_ERROR
from core.workflow_text import escape_log
from stacks.offline.diff.dirs import ERROR_SUFFIX, producers_first, references
from stacks.offline.snapshot.file import SnapshotError, load_snapshot
from stacks.offline.snapshot.shape import Snapshot
from stacks.offline.state.diff import (
    StateDiff,
    check_same_stack,
    code,
    diff_state,
    diff_state_files,
    render_state_markdown,
    render_state_text,
)
from stacks.offline.state.export import StateExport, StateExportError, load_export


def run(base: Path, head: Path, *, markdown: bool, json_out: Path | None) -> int:
    """The command: text on stdout, errors on stderr, the exit code."""
    if base.is_dir() != head.is_dir():
        print(
            escape_log(f"error: give an export and a plan, or a dir of each: {base}, {head}"),
            file=sys.stderr,
        )
        return 2
    if base.is_dir():
        exit_code, text = diff_state_dirs(base, head, markdown=markdown, json_out=json_out)
        sys.stdout.write(text)
        return exit_code
    try:
        exit_code, text = diff_state_files(base, head, markdown=markdown, json_out=json_out)
    except GpuCiError as err:
        print(escape_log(f"error: {err}"), file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return exit_code


def _empty_export(path: Path, stack: str, project: str) -> StateExport:
    return StateExport(str(path), 3, project, stack, "", "", ())


def _stacks(folder: Path, suffix: str) -> dict[str, Path]:
    return {p.name[: -len(suffix)]: p for p in folder.glob(f"?*{suffix}") if not p.is_dir()}


def diff_state_dirs(
    exports: Path, plans: Path, *, markdown: bool, json_out: Path | None, err: TextIO | None = None
) -> tuple[int, str]:
    err = err or sys.stderr
    deployed, planned = _stacks(exports, ".json"), _stacks(plans, ".json")
    failed = _stacks(plans, ERROR_SUFFIX)
    names = sorted(set(deployed) | set(planned) | set(failed))
    if not names:
        print(escape_log(f"error: no STACK.json in {exports} or {plans}"), file=err)
        return 2, ""
    results: dict[str, StateDiff] = {}
    errors: dict[str, str] = {}
    notes: dict[str, str] = {}
    for stack in names:
        if stack in failed:
            errors[stack] = f"does not plan on head: {_reason(failed[stack], plans)}"
            continue
        try:
            results[stack], notes[stack] = _one(
                stack, deployed.get(stack), planned.get(stack), exports, plans
            )
        except GpuCiError as problem:
            errors[stack] = str(problem)
    reads = {s: references(r.head) for s, r in results.items()}
    order = producers_first(names, reads)
    for stack in order:
        if stack in errors:
            print(escape_log(f"error: {stack}: {errors[stack]}"), file=err)
    # Every stack has a result or an error: without errors, `results` holds them all.
    exit_code = 2 if errors else max(code(r) for r in results.values())
    if json_out is not None:
        data = {
            "stacks": {s: results[s].as_json() for s in order if s in results},
            "errors": {s: errors[s] for s in order if s in errors},
        }
        try:
            write_output(
                json_out,
                json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n",
                "--json",
            )
        except GpuCiError as problem:
            print(escape_log(f"error: {problem}"), file=err)
            exit_code = 2
    out: list[str] = []
    for stack in order:
        if stack not in results:
            continue
        body = (render_state_markdown if markdown else render_state_text)(results[stack])
        note = notes[stack]
        if note:
            out.append(f"> {note}\n\n" if markdown else f"{stack}: {note}\n")
        out.append(body + ("\n" if markdown else ""))
    return exit_code, "".join(out)


def _reason(path: Path, folder: Path) -> str:
    """The one line `plan --all` wrote for a stack that did not plan."""
    try:
        raw = read_bytes(path, name=path.name, limits=PLAN_ERROR, root=folder)
    except FileRefusedError as problem:
        return f"({problem})"
    return " ".join(raw.decode(errors="replace").split()) or "(no reason given)"  # UTF-8


def _one(
    stack: str, export_path: Path | None, plan_path: Path | None, exports: Path, plans: Path
) -> tuple[StateDiff, str]:
    head: Snapshot | None = load_snapshot(plan_path, plans) if plan_path else None
    export = load_export(export_path, exports) if export_path else None
    if export is not None and export.stack and export.stack != stack:
        raise StateExportError(f"{export_path}: the state of stack {export.stack!r}, not {stack!r}")
    note = ""
    if head is None:
        assert export is not None  # the stack came from one of the two folders
        note = "Exported, not planned: `pulumi up` of this program would delete everything in it."
        head = {"project": export.project, "stack": stack, "resources": [], "outputs": {}}
    if export is None:
        note = "Planned, no export: not deployed (or not exported); everything in it is created."
        export = _empty_export(exports / f"{stack}.json", stack, head["project"])
    if head["stack"] != stack:
        raise SnapshotError(f"{plan_path}: the snapshot of stack {head['stack']!r}, not {stack!r}")
    check_same_stack(export, head, plan_path or plans)
    return diff_state(export, head), note
