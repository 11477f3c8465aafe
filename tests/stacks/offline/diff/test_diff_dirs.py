"""`python -m stacks diff BASE_DIR HEAD_DIR`: every stack of two `plan --all` dirs, a
referenced stack before the stacks that read it and those listed under its change, a stack
on one side only as all creates or all deletes, and bad input one line per stack."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import stacks.offline.diff.dirs as diff_dirs_module
from stacks.offline.diff.changes import diff_snapshots
from stacks.offline.diff.dirs import references
from stacks.offline.diff.markdown import render_markdown
from tests.stacks.offline.diff.diff_dirs_helpers import run

ORDER = ["arc", "dev", "gpu-dev", "apps-dev", "multi-gpu", "workstation"]
"""Producers first (gpu-dev before apps-dev, which reads it), otherwise by name."""


@pytest.fixture
def sides(planned: Path, tmp_path: Path) -> tuple[Path, Path]:
    base, head = tmp_path / "base", tmp_path / "head"
    shutil.copytree(planned, base)
    shutil.copytree(planned, head)
    return base, head


def edit(path: Path, change: Any) -> None:
    snap = json.loads(path.read_text())
    change(snap)
    path.write_text(json.dumps(snap, indent=2, sort_keys=True) + "\n")


def bigger_vm(snap: dict[str, Any]) -> None:
    vm = next(r for r in snap["resources"] if r["type"] == "oci:Core/instance:Instance")
    vm["inputs"]["shape"] = "VM.GPU.A10.2"


def test_the_same_plans_have_no_changes_listed_producers_first(
    sides: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, *sides)
    assert (code, err) == (0, "")
    assert [line.split(":")[0] for line in out.splitlines()] == [f"gpu-ci/{s}" for s in ORDER]
    assert all("no changes" in line for line in out.splitlines())


def test_a_changed_producer_lists_the_stacks_that_read_it(
    sides: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    base, head = sides
    edit(head / "gpu-dev.json", bigger_vm)
    report = tmp_path / "diff.json"
    code, out, err = run(capsys, base, head, "--markdown", "--json", str(report))
    assert (code, err) == (1, "")
    assert out.startswith(
        "**6 stacks:** 1 with changes (`gpu-dev`); 5 without (`arc`, `dev`, `apps-dev`, "
        "`multi-gpu`, `workstation`).\n"
    )
    headings = [line for line in out.splitlines() if line.startswith("### ")]
    assert headings == [f"### Plan diff: `gpu-ci/{s}`" for s in ORDER]
    section = out.split("### Plan diff: `gpu-ci/gpu-dev`")[1].split("### ")[0]
    assert "Read by (StackReference): `apps-dev` (no changes)\n" in section
    assert out.count("Read by") == 1  # only under a producer with changes
    # Each stack's section is what `diff BASE.json HEAD.json --markdown` prints for it.
    old = json.loads((base / "gpu-dev.json").read_text())
    new = json.loads((head / "gpu-dev.json").read_text())
    alone = render_markdown(diff_snapshots(old, new), old, new)
    heading, _, rest = alone.partition("\n")
    assert heading in out and rest.strip() in out
    data = json.loads(report.read_text())
    assert data == {
        "errors": {},
        "stacks": {
            s: diff_snapshots(
                json.loads((base / f"{s}.json").read_text()),
                json.loads((head / f"{s}.json").read_text()),
            ).as_json()
            for s in ORDER
        },
    }
    assert [c["name"] for c in data["stacks"]["gpu-dev"]["changes"]] == ["gpu-vm-0"]


def test_a_reader_with_changes_says_so_under_its_producer(
    sides: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = sides
    edit(head / "gpu-dev.json", bigger_vm)

    def relabel(snap: dict[str, Any]) -> None:
        snap["outputs"]["note"] = "changed"

    edit(head / "apps-dev.json", relabel)
    code, out, _ = run(capsys, base, head)
    assert code == 1
    assert "  read by: apps-dev (changes)\n" in out


def test_a_stack_on_one_side_only_is_all_creates_or_all_deletes(
    sides: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = sides
    (base / "workstation.json").unlink()
    code, out, err = run(capsys, base, head, "--markdown")
    assert (code, err) == (1, "")
    section = out.split("### Plan diff: `gpu-ci/workstation`")[1]
    assert "> A new stack (only on head): everything in it is created." in section
    assert "**8 to create, 0 to update, 0 to replace, 0 to delete, 0 unchanged" in section

    code, out, err = run(capsys, head, base, "--markdown")
    assert (code, err) == (1, "")
    section = out.split("### Plan diff: `gpu-ci/workstation`")[1]
    assert "> A removed stack (only on base): everything in it is deleted." in section
    assert "**0 to create, 0 to update, 0 to replace, 8 to delete, 0 unchanged" in section


def test_a_base_that_did_not_plan_is_all_creates_with_its_reason(
    sides: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = sides
    (base / "workstation.json").unlink()
    (base / "workstation.error").write_text("Pulumi.workstation.yaml: a mistake\n")
    code, out, err = run(capsys, base, head)
    assert (code, err) == (1, "")
    assert (
        "workstation: The base did not plan (Pulumi.workstation.yaml: a mistake): everything "
        "shows as created.\n"
    ) in out


def test_a_head_that_does_not_plan_is_an_error_not_a_deletion(
    sides: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    base, head = sides
    (head / "workstation.json").unlink()
    (head / "workstation.error").write_text("Pulumi.workstation.yaml: a mistake\n")
    report = tmp_path / "diff.json"
    code, out, err = run(capsys, base, head, "--markdown", "--json", str(report))
    assert code == 2
    assert err == "error: workstation: does not plan on head: Pulumi.workstation.yaml: a mistake\n"
    assert "### `workstation`: does not plan on head\n\n```\nPulumi.workstation.yaml: a " in out
    assert "to delete" not in out
    assert "1 cannot be diffed (`workstation`)" in out
    data = json.loads(report.read_text())
    assert data["errors"] == {"workstation": err.split(": ", 2)[2].rstrip("\n")}
    assert "workstation" not in data["stacks"] and len(data["stacks"]) == 5


def test_a_file_that_is_not_a_snapshot_is_one_line_and_the_others_are_diffed(
    sides: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = sides
    (head / "dev.json").write_text('{"stack": "dev"}\n')
    edit(head / "gpu-dev.json", bigger_vm)
    code, out, err = run(capsys, base, head)
    assert code == 2
    assert err == (
        f"error: dev: {head / 'dev.json'}: not a plan snapshot (`project` is missing or not a "
        "str)\n"
    )
    assert "gpu-ci/gpu-dev: 0 to create, 1 to update" in out
    assert "gpu-ci/arc: no changes" in out and "gpu-ci/dev" not in out


def test_a_snapshot_of_another_stack_is_refused(
    sides: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = sides
    shutil.copy(head / "arc.json", head / "dev.json")
    code, _, err = run(capsys, base, head)
    assert code == 2
    assert err == f"error: dev: {head / 'dev.json'}: the snapshot of stack 'arc', not 'dev'\n"


def test_a_failing_diff_of_one_stack_leaves_the_others(
    sides: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:

    def broken(base: dict[str, Any], head: dict[str, Any]) -> Any:
        if head["stack"] == "arc":
            raise KeyError("urn")
        return diff_snapshots(base, head)

    monkeypatch.setattr(diff_dirs_module, "diff_snapshots", broken)
    code, out, err = run(capsys, *sides)
    assert code == 2
    assert err.startswith("error: arc: the diff failed: KeyError: 'urn' (")
    assert len(out.splitlines()) == 5


def test_a_missing_dir(sides: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    base, _ = sides
    missing = base.parent / "nowhere"
    assert run(capsys, base, missing) == (2, "", f"error: {missing}: no such directory\n")


def test_a_dir_and_a_file(sides: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    base, head = sides
    code, out, err = run(capsys, base, head / "dev.json")
    assert (code, out) == (2, "")
    assert err == (
        f"error: {head / 'dev.json'}: not a directory, and {base} is one: give two snapshots "
        "or two dirs\n"
    )


def test_two_empty_dirs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    code, _, err = run(capsys, tmp_path / "a", tmp_path / "b")
    assert code == 2
    assert err.startswith("error: no STACK.json in")


def test_two_files_still_diff_as_before(
    sides: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = sides
    edit(head / "gpu-dev.json", bigger_vm)
    code, out, _ = run(capsys, base / "gpu-dev.json", head / "gpu-dev.json")
    assert code == 1
    assert out.startswith("gpu-ci/gpu-dev: 0 to create, 1 to update")
    assert "read by" not in out


def test_the_example_consumer_references_its_producer(planned: Path) -> None:
    """Spellings of a reference: test_diff_dirs_synthetic.py."""
    apps = json.loads((planned / "apps-dev.json").read_text())
    assert references(apps) == {"gpu-dev"}
    assert references(json.loads((planned / "dev.json").read_text())) == set()


def test_a_stack_error_file_cannot_write_workflow_commands(
    sides: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """A STACK.error is read back and printed: its text is escaped for the log."""
    base, head = sides
    (head / "workstation.json").unlink()
    (head / "workstation.error").write_text("bad\n::add-mask::x ##[add-mask]y\n")
    code, _, err = run(capsys, base, head)
    assert code == 2
    assert err == ("error: workstation: does not plan on head: bad ::add-mask::x ##%5Badd-mask]y\n")
