"""Compare two plan snapshots: what a change to the program or a stack's config does.

`python -m stacks diff BASE.json HEAD.json [--markdown] [--json FILE]` reads two files
written by `python -m stacks plan STACK --json FILE` and says what `pulumi up` would do to
each resource, by the engine's and the providers' own rules (`stacks.offline.lifecycle`): create,
update, replace (saying which input forced it, and whether the old one is deleted first)
or delete, with each changed input path (old -> new), dependency changes, changed stack
outputs, and (in markdown) the destructive operations first, then a Mermaid picture of the
changed part of the graph. Exit 0: no changes; 1: changes (like `git diff --exit-code`);
2: a file is not a readable plan snapshot.
"""

from __future__ import annotations

import json
from pathlib import Path

from core.errors import write_output
from stacks.offline.diff_changes import diff_snapshots
from stacks.offline.diff_markdown import render_markdown
from stacks.offline.diff_text import render_text
from stacks.offline.snapshot_file import load_snapshot


def diff_files(
    base: Path, head: Path, *, markdown: bool, json_out: Path | None = None
) -> tuple[int, str]:
    """(exit code, text) for `python -m stacks diff`; raises SnapshotError on bad input.
    With `json_out`, the classification is written there too."""
    old, new = load_snapshot(base), load_snapshot(head)
    d = diff_snapshots(old, new)
    if json_out is not None:
        text = json.dumps(d.as_json(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        write_output(json_out, text, "--json")
    text = render_markdown(d, old, new) if markdown else render_text(d)
    return (1 if d.changed else 0), text
