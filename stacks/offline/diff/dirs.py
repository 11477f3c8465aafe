"""The plan diff of every stack: `python -m stacks diff BASE_DIR HEAD_DIR`.

Each dir is what `python -m stacks plan --all --json-dir DIR` writes: `STACK.json` per stack
that planned, `STACK.error` (its one-line reason) per stack that did not. Every stack found
on either side is diffed as `diff BASE.json HEAD.json` diffs it (`diff_snapshots`), a
stack that other stacks read through a StackReference before them (read from the
snapshots' `pulumi:pulumi:StackReference` resources), otherwise by name. A stack on one
side only is all creates or all deletes (an empty snapshot on the other side); one whose
base did not plan is all creates too, with a note. Under a producer with changes, a line
names the stacks that read it and whether they show changes.

Bad input is one `error: STACK: reason` line on stderr (and a section in the markdown),
the other stacks still diffed: a file that is not a snapshot, a stack that does not plan
on head. Exit 0: no changes; 1: changes; 2: any bad input (or a dir missing).
"""

from __future__ import annotations

import heapq
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from core.errors import GpuCiError, write_output
from core.read_files import FileRefusedError, read_bytes
from core.read_limits import PLAN_ERROR
from core.workflow_text import escape_log
from stacks.offline.diff.changes import PlanDiff, diff_snapshots
from stacks.offline.diff.markdown import render_markdown
from stacks.offline.diff.text import render_text
from stacks.offline.engine.fakes import STACK_REFERENCE
from stacks.offline.snapshot.file import SnapshotError, load_snapshot
from stacks.offline.snapshot.shape import Snapshot

ERROR_SUFFIX = ".error"
"""`DIR/STACK.error`: the one-line reason STACK did not plan (instead of `DIR/STACK.json`)."""


@dataclass
class StackDiff:
    """One stack's outcome: its diff, or why there is none; notes say what a side lacked."""

    stack: str
    diff: PlanDiff | None = None
    base: Snapshot | None = None
    head: Snapshot | None = None
    error: str = ""
    """Why it cannot be diffed, in one line (`problem: reason`)."""
    problem: str = ""
    reason: str = ""
    notes: list[str] = field(default_factory=list)


def _listing(folder: Path) -> tuple[dict[str, Path], dict[str, str]]:
    """A dir's snapshots (`STACK.json`) and the reasons of the stacks that did not plan.

    Every file is read by the careful reader, inside `folder` once symlinks are followed:
    one that is not a regular file (a named pipe) or leads elsewhere is refused, unread."""
    found = sorted(folder.glob("?*.json"))  # by name: the first readable names a project
    snapshots = {p.name[: -len(".json")]: p for p in found if not p.is_dir()}
    failed: dict[str, str] = {}
    for path in folder.glob(f"?*{ERROR_SUFFIX}"):
        try:
            raw = read_bytes(path, name=path.name, limits=PLAN_ERROR, root=folder)
            text = " ".join(raw.decode("utf-8").split())
        except FileRefusedError as err:
            text = f"({err})"
        except UnicodeDecodeError as err:
            text = f"(its {path.name} cannot be read: {err})"
        failed[path.name[: -len(ERROR_SUFFIX)]] = text or "(no reason given)"
    return snapshots, failed


def _dir_problem(path: Path, other: Path) -> str:
    if path.is_dir():
        return ""
    if path.exists():
        return f"{path}: not a directory, and {other} is one: give two snapshots or two dirs"
    return f"{path}: no such directory"


def _empty(project: str, stack: str) -> Snapshot:
    return {"project": project, "stack": stack, "resources": [], "outputs": {}}


def _load(path: Path, stack: str) -> Snapshot:
    snap = load_snapshot(path, path.parent)
    if snap["stack"] != stack:
        raise SnapshotError(f"{path}: the snapshot of stack {snap['stack']!r}, not {stack!r}")
    return snap


def _one_stack(
    stack: str,
    base: tuple[dict[str, Path], dict[str, str]],
    head: tuple[dict[str, Path], dict[str, str]],
    project: str,
) -> StackDiff:
    out = StackDiff(stack)
    if stack in head[1]:
        out.problem, out.reason = "does not plan on head", head[1][stack]
        out.error = f"{out.problem}: {out.reason}"
        return out
    try:
        old = _load(base[0][stack], stack) if stack in base[0] else None
        new = _load(head[0][stack], stack) if stack in head[0] else None
    except SnapshotError as err:
        out.problem, out.reason = "cannot be diffed", str(err)
        out.error = str(err)
        return out
    if stack in base[1]:
        out.notes.append(f"The base did not plan ({base[1][stack]}): everything shows as created.")
    elif old is None:
        out.notes.append("A new stack (only on head): everything in it is created.")
    if new is None:
        out.notes.append("A removed stack (only on base): everything in it is deleted.")
    name = (new or old or {}).get("project", project)
    out.base, out.head = old or _empty(name, stack), new or _empty(name, stack)
    try:
        out.diff = diff_snapshots(out.base, out.head)
    except Exception as err:  # a bug in one stack's diff must not hide the others'
        out.problem = "the diff failed"
        out.reason = (
            f"{type(err).__name__}: {err} (`python -m stacks diff BASE.json HEAD.json` of "
            "its two snapshots shows the traceback)"
        )
        out.error = f"{out.problem}: {out.reason}"
    return out


def references(snap: Snapshot) -> set[str]:
    """The stacks of its own project a snapshot reads through StackReferences."""
    found = set()
    for r in snap.get("resources", []):
        name = r.get("inputs", {}).get("name") if r.get("type") == STACK_REFERENCE else None
        if not isinstance(name, str):
            continue
        parts = name.split("/")
        if len(parts) == 1 or (len(parts) == 3 and parts[1] == snap.get("project")):
            found.add(parts[-1])
    return found


def producers_first(stacks: list[str], reads: dict[str, set[str]]) -> list[str]:
    """`stacks` with every stack after those it reads, otherwise by name (a cycle's stacks
    by name, after the rest that can go first)."""
    readers: dict[str, set[str]] = {s: set() for s in stacks}
    waiting = {s: {p for p in reads.get(s, set()) if p in readers and p != s} for s in stacks}
    for stack, producers in waiting.items():
        for producer in producers:
            readers[producer].add(stack)
    ready = [s for s in stacks if not waiting[s]]
    heapq.heapify(ready)
    order: list[str] = []
    while ready or len(order) < len(stacks):
        if not ready:  # a cycle: the first of what is left, by name
            heapq.heappush(ready, min(s for s in stacks if s not in order and s not in ready))
        stack = heapq.heappop(ready)  # each once: when all it reads are out, or a cycle first
        order.append(stack)
        for reader in sorted(readers[stack]):
            waiting[reader].discard(stack)
            if not waiting[reader] and reader not in order:
                heapq.heappush(ready, reader)
    return order


def diff_dirs(
    base: Path,
    head: Path,
    *,
    markdown: bool,
    json_out: Path | None = None,
    err: TextIO | None = None,
) -> tuple[int, str]:
    """(exit code, text) for `python -m stacks diff BASE_DIR HEAD_DIR`; errors on `err`
    (default: stderr)."""
    err = err or sys.stderr
    problems = [p for p in (_dir_problem(base, head), _dir_problem(head, base)) if p]
    if problems:
        for problem in problems:
            print(escape_log(f"error: {problem}"), file=err)
        return 2, ""
    sides = _listing(base), _listing(head)
    stacks = sorted({s for side in sides for found in side for s in found})
    if not stacks:
        print(
            escape_log(f"error: no STACK.json in {base} or {head} (write them with plan --all)"),
            file=err,
        )
        return 2, ""
    project = _any_project(sides)
    results = {s: _one_stack(s, sides[0], sides[1], project) for s in stacks}
    reads = {
        s: set().union(*(references(snap) for snap in (r.base, r.head) if snap))
        for s, r in results.items()
    }
    ordered = [results[s] for s in producers_first(stacks, reads)]
    for r in ordered:
        if r.error:
            print(escape_log(f"error: {r.stack}: {r.error}"), file=err)
    code = 1 if any(r.diff and r.diff.changed for r in ordered) else 0
    if any(r.error for r in ordered):
        code = 2
    if json_out is not None:
        try:
            write_output(json_out, _json_text(ordered), "--json")
        except GpuCiError as problem:
            print(escape_log(f"error: {problem}"), file=err)
            code = 2
    render = _markdown if markdown else _text
    return code, render(ordered, _readers(stacks, reads, results))


def _any_project(sides: tuple[tuple[dict[str, Path], dict[str, str]], ...]) -> str:
    """The project of the first readable snapshot: for a stack with none on either side."""
    for snapshots, _ in sides:
        for path in snapshots.values():
            try:
                return str(load_snapshot(path, path.parent)["project"])
            except SnapshotError:
                continue
    return ""


def _readers(
    stacks: list[str], reads: dict[str, set[str]], results: dict[str, StackDiff]
) -> dict[str, list[StackDiff]]:
    return {p: [results[s] for s in stacks if p in reads[s] and s != p] for p in stacks}


def _json_text(ordered: list[StackDiff]) -> str:
    data: dict[str, Any] = {
        "stacks": {r.stack: r.diff.as_json() for r in ordered if r.diff},
        "errors": {r.stack: r.error for r in ordered if r.error},
    }
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _state(r: StackDiff) -> str:
    if r.error:
        return "cannot be diffed"
    return "changes" if r.diff and r.diff.changed else "no changes"


def readers_line(readers: list[StackDiff]) -> str:
    """Who reads a changed producer: `apps-dev` (changes), `x` (no changes)."""
    return ", ".join(f"`{r.stack}` ({_state(r)})" for r in readers)


def _markdown(ordered: list[StackDiff], readers: dict[str, list[StackDiff]]) -> str:
    changed = [f"`{r.stack}`" for r in ordered if not r.error and _state(r) == "changes"]
    same = [f"`{r.stack}`" for r in ordered if not r.error and _state(r) == "no changes"]
    bad = [f"`{r.stack}`" for r in ordered if r.error]
    head = [f"{len(changed)} with changes" + (f" ({', '.join(changed)})" if changed else "")]
    head.append(f"{len(same)} without" + (f" ({', '.join(same)})" if same else ""))
    if bad:
        head.append(f"{len(bad)} cannot be diffed ({', '.join(bad)})")
    out = [f"**{len(ordered)} stacks:** {'; '.join(head)}.", ""]
    for r in ordered:
        if r.diff is None or r.base is None or r.head is None:
            out += [f"### `{r.stack}`: {r.problem}", "", "```", r.reason, "```", ""]
            continue
        heading, _, rest = render_markdown(r.diff, r.base, r.head).partition("\n")
        out += [heading, ""]
        out += [line for note in r.notes for line in (f"> {note}", "")]
        if r.diff.changed and readers[r.stack]:
            out += [f"Read by (StackReference): {readers_line(readers[r.stack])}", ""]
        out.append(rest.lstrip("\n"))
    return "\n".join(out).rstrip("\n") + "\n"


def _text(ordered: list[StackDiff], readers: dict[str, list[StackDiff]]) -> str:
    out: list[str] = []
    for r in ordered:
        if r.diff is None:
            continue  # said on stderr
        out += [f"{r.stack}: {note}" for note in r.notes]
        out.append(render_text(r.diff).rstrip("\n"))
        if r.diff.changed and readers[r.stack]:
            out.append(f"  read by: {readers_line(readers[r.stack]).replace('`', '')}")
    return "\n".join(out) + "\n" if out else ""
