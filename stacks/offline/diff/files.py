"""Compare two plan snapshots: what a change to the program or a stack's config does.

`python -m stacks diff BASE.json HEAD.json [--markdown] [--json FILE]` reads two files
written by `python -m stacks plan STACK --json FILE` and says what `pulumi up` would do to
each resource, by the engine's and the providers' own rules (`stacks.offline.lifecycle.fate`):
create, update, replace (saying which input forced it, and whether the old one is deleted first) or
delete, with each changed input path (old -> new), dependency changes, changed stack outputs, and
(in markdown) the destructive operations first, then a Mermaid picture of the changed part of the
graph. Exit 0: no changes; 1: changes (like `git diff --exit-code`); 2: a file is not a readable
plan snapshot, or the two are plans of different stacks.

Two stacks' plans are refused unless asked for (`--different-stacks`): the diff matches
resources by their (type, name) chains, which most stacks of one program share, so `diff
dev.json arc.json` would read like a change to one stack (exit 1, a PR comment of creates
and deletes); a warning on stderr would not reach a `--markdown` comment or an exit code.
Comparing a stack with its renamed or copied self is the on-purpose case (docs/day-2.md).
"""

from __future__ import annotations

import json
from pathlib import Path

from core.errors import GpuCiError, write_output
from stacks.offline.diff.changes import diff_snapshots
from stacks.offline.diff.markdown import render_markdown
from stacks.offline.diff.text import render_text
from stacks.offline.snapshot.file import load_snapshot
from stacks.offline.snapshot.shape import Snapshot

DIFFERENT_STACKS = "--different-stacks"


class DifferentStacksError(GpuCiError):
    """Two snapshots of different stacks (or projects), compared without `--different-stacks`."""


def check_one_stack(base: Path, old: Snapshot, head: Path, new: Snapshot) -> None:
    """Refuse two plans of different stacks, in one line naming both and the way to ask."""
    was, now = f"{old['project']}/{old['stack']}", f"{new['project']}/{new['stack']}"
    if was != now:
        raise DifferentStacksError(
            f"{base} is the plan of {was} and {head} the plan of {now}: a diff compares two "
            f"plans of one stack; to compare two stacks on purpose (a renamed or copied "
            f"stack), add {DIFFERENT_STACKS}"
        )


def diff_files(
    base: Path,
    head: Path,
    *,
    markdown: bool,
    json_out: Path | None = None,
    different_stacks: bool = False,
) -> tuple[int, str]:
    """(exit code, text) for `python -m stacks diff`; raises SnapshotError on bad input and
    DifferentStacksError for two stacks' plans unless `different_stacks`, before writing
    anything. With `json_out`, the classification is written there too."""
    old, new = load_snapshot(base), load_snapshot(head)
    if not different_stacks:
        check_one_stack(base, old, head, new)
    d = diff_snapshots(old, new)
    if json_out is not None:
        text = json.dumps(d.as_json(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        write_output(json_out, text, "--json")
    text = render_markdown(d, old, new) if markdown else render_text(d)
    return (1 if d.changed else 0), text
