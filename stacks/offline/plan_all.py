"""`python -m stacks plan --all`: every stack of a project dir, in one process.

Each `Pulumi.<stack>.yaml` is planned once (`plan_run` with a shared cache): a stack another
one references is planned before it, and its run is what the other reads. Each snapshot is
the same bytes as `python -m stacks plan STACK --json FILE` writes for that stack alone.
A stack that does not plan is one `error: STACK: reason` line and a `STACK.error` file in
the output dir (its reason, so `stacks diff BASE_DIR HEAD_DIR` can tell "does not plan" from
"deleted"); the other stacks are still planned and written.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

import pulumi

from core.errors import GpuCiError, write_output
from core.workflow_text import escape_log
from stacks.offline.diff.dirs import ERROR_SUFFIX
from stacks.offline.engine.records import ProgramRun
from stacks.offline.plan import PlanCache, plan_run
from stacks.offline.snapshot.recorded import dumps, snapshot_of
from stacks.offline.snapshot.tree import render_tree
from stacks.offline.stack_file.read import stacks_here, stacks_listing


def plan_all(root: Path) -> Iterator[tuple[str, ProgramRun | Exception]]:
    """Each stack of `root` with its run or the error it failed with, as each finishes:
    a referenced stack before the stacks that read it, otherwise by name."""
    cache: PlanCache = {}
    reported = 0
    for stack in stacks_here(root):
        with contextlib.suppress(Exception):  # kept in the cache, reported below
            plan_run(stack, root, cache=cache)
        finished = list(cache.items())
        yield from finished[reported:]
        reported = len(finished)


def reason(stack: str, err: Exception) -> str:
    """One line: what `python -m stacks plan STACK` says, or for an unexpected exception
    its type and message (that command shows the traceback)."""
    if isinstance(err, GpuCiError | pulumi.RunError):
        text = str(err)
    else:
        text = f"{type(err).__name__}: {err} (`python -m stacks plan {stack}` shows the traceback)"
    return " ".join(text.split())


def write_all(
    root: Path, json_dir: Path | None, *, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Plan every stack of `root`; write `json_dir/STACK.json` (or `STACK.error`) for each;
    a line per stack on `out`, warnings and errors on `err` (default: stdout and stderr).
    Exit code: 2 if any failed."""
    out, err = out or sys.stdout, err or sys.stderr
    if not stacks_here(root):
        print(escape_log(f"error: {stacks_listing(root)}"), file=err)
        return 2
    if json_dir is not None:
        try:
            json_dir.mkdir(parents=True, exist_ok=True)
        except OSError as problem:
            why = problem.strerror or str(problem)
            print(escape_log(f"error: --json-dir {json_dir}: cannot create it ({why})"), file=err)
            return 2
    code = 0
    for stack, result in plan_all(root):
        try:
            if isinstance(result, ProgramRun):
                _written(stack, result, json_dir, out, err)
            else:
                code = 2
                line = reason(stack, result)
                print(escape_log(f"error: {stack}: {line}"), file=err)
                if json_dir is not None:
                    _replace(json_dir, stack, ERROR_SUFFIX, line + "\n")
        except GpuCiError as problem:  # the output dir is not writable
            code = 2
            print(escape_log(f"error: {stack}: {problem}"), file=err)
        out.flush()
    return code


def _written(stack: str, run: ProgramRun, json_dir: Path | None, out: TextIO, err: TextIO) -> None:
    for level, message in run.logs:  # as `pulumi preview` shows them
        if level in ("warning", "error"):
            print(escape_log(f"{level}: {stack}: {message}"), file=err)
    snap = snapshot_of(run)
    if json_dir is not None:
        _replace(json_dir, stack, ".json", dumps(snap))
    out.write(render_tree(snap).splitlines(keepends=True)[0])


def _replace(json_dir: Path, stack: str, suffix: str, text: str) -> None:
    """Write `STACK<suffix>`, removing what an earlier run left for the stack."""
    for stale in (".json", ERROR_SUFFIX):
        if stale != suffix:
            try:
                (json_dir / f"{stack}{stale}").unlink(missing_ok=True)
            except OSError as err:
                why = err.strerror or str(err)
                raise GpuCiError(
                    f"--json-dir {json_dir}: cannot remove {stack}{stale} ({why})"
                ) from None
    write_output(json_dir / f"{stack}{suffix}", text, "--json-dir")
