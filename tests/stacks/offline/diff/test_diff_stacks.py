"""`stacks diff` of two different stacks' plans refuses unless asked (issue 41).

The diff matches resources by their (type, name) chains, which the example stacks largely
share, so `diff dev.json arc.json` would read as a change to one stack (exit 1, a comment of
creates and deletes). It is refused (exit 2, one line naming both stacks and the flag);
`--different-stacks` compares them on purpose, with the output the diff always gave. Two
folders already pair stacks by name and refuse a STACK.json of another stack
(tests/stacks/offline/diff/test_diff_dirs.py), and `--state` an export of another stack
(test_state_export.py): the flag is for two snapshot files only.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from stacks.offline.diff.changes import diff_snapshots
from stacks.offline.diff.markdown import render_markdown
from stacks.offline.diff.text import render_text
from stacks.offline.plan import REPO, plan_stack
from stacks.offline.snapshot.recorded import dumps
from stacks.offline.snapshot.shape import Snapshot


def diff_cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "stacks", "diff", *map(str, args)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )


def refusal(base: Path, was: str, head: Path, now: str) -> str:
    return (
        f"error: {base} is the plan of {was} and {head} the plan of {now}: a diff compares two "
        "plans of one stack; to compare two stacks on purpose (a renamed or copied stack), "
        "add --different-stacks\n"
    )


@pytest.fixture(scope="module")
def dev_arc(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("dev-arc")
    dev, arc = folder / "dev.json", folder / "arc.json"
    dev.write_text(dumps(plan_stack("dev")))
    arc.write_text(dumps(plan_stack("arc")))
    return dev, arc


def test_two_stacks_plans_are_refused_in_one_line_naming_both(
    dev_arc: tuple[Path, Path], tmp_path: Path
) -> None:
    dev, arc = dev_arc
    out = tmp_path / "classification.json"
    for markdown in ([], ["--markdown"]):
        done = diff_cli(dev, arc, *markdown, "--json", out)
        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr == refusal(dev, "gpu-ci/dev", arc, "gpu-ci/arc")
    assert not out.exists()  # refused before anything is written


def test_on_purpose_the_diff_is_what_it_always_was(dev_arc: tuple[Path, Path]) -> None:
    dev, arc = dev_arc
    old, new = json.loads(dev.read_text()), json.loads(arc.read_text())
    d = diff_snapshots(old, new)
    assert d.changed
    text = diff_cli(dev, arc, "--different-stacks")
    assert (text.returncode, text.stderr, text.stdout) == (1, "", render_text(d))
    assert text.stdout.startswith("gpu-ci/dev → gpu-ci/arc: ")
    markdown = diff_cli(dev, arc, "--markdown", "--different-stacks")
    assert (markdown.returncode, markdown.stdout) == (1, render_markdown(d, old, new))


def _snap(project: str, stack: str) -> Snapshot:
    resource: dict[str, Any] = {
        "urn": f"urn:pulumi:{stack}::{project}::t:m:T::a",
        "type": "t:m:T",
        "name": "a",
        "parent": "",
        "dependencies": [],
        "inputs": {"v": 1},
    }
    return {"project": project, "stack": stack, "resources": [resource], "outputs": {}}


@pytest.mark.parametrize(
    ("base", "head"),
    [(("p", "s"), ("p", "renamed")), (("p", "s"), ("other-project", "s"))],
)
def test_a_renamed_stack_or_another_project_is_compared_only_on_purpose(
    tmp_path: Path, base: tuple[str, str], head: tuple[str, str]
) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(dumps(_snap(*base)))
    new.write_text(dumps(_snap(*head)))
    refused = diff_cli(old, new)
    assert refused.returncode == 2
    assert refused.stderr == refusal(old, "/".join(base), new, "/".join(head))
    asked = diff_cli(old, new, "--different-stacks")
    label = f"{'/'.join(base)} → {'/'.join(head)}"
    assert (asked.returncode, asked.stdout) == (0, f"{label}: no changes (1 resources)\n")


def test_one_stacks_plans_need_no_flag(tmp_path: Path) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(dumps(_snap("p", "s")))
    new.write_text(dumps(_snap("p", "s")))
    done = diff_cli(old, new)
    assert (done.returncode, done.stderr, done.stdout) == (0, "", "p/s: no changes (1 resources)\n")
    flagged = diff_cli(old, new, "--different-stacks")  # harmless where they are one stack
    assert (flagged.returncode, flagged.stdout) == (0, done.stdout)


def test_a_bad_file_is_named_before_the_stacks_are_compared(tmp_path: Path) -> None:
    old, bad = tmp_path / "old.json", tmp_path / "bad.json"
    old.write_text(dumps(_snap("p", "s")))
    bad.write_text("[]")
    done = diff_cli(old, bad)
    assert done.returncode == 2
    assert done.stderr == f"error: {bad}: not a plan snapshot (a JSON list, not an object)\n"


@pytest.mark.parametrize("state", [False, True])
def test_the_flag_is_for_two_snapshot_files_only(tmp_path: Path, state: bool) -> None:
    base, head = tmp_path / "base", tmp_path / "head"
    base.mkdir()
    head.mkdir()
    if state:
        base, head = base / "export.json", head / "plan.json"
    done = diff_cli(base, head, *(["--state"] if state else []), "--different-stacks")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.endswith(
        "python -m stacks diff: error: --different-stacks compares two plan snapshot files, "
        "not --state or dirs\n"
    )
