"""`stacks diff --state EXPORT_DIR HEAD_DIR` on small stacks, in-process: the stacks in
producer order, what each side alone means, one error line per stack that cannot be
diffed while the others still are, the exit code and the `--json` document."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from stacks.offline.snapshot.shape import Snapshot
from stacks.offline.state.dirs import diff_state_dirs, run
from stacks.offline.state.synthetic import export_of
from tests.stacks.offline.state.state_small import mini, reference
from tests.stacks.offline.synthetic import VCN, res

HEADER = "written by pulumi v3.272.0 at 2026-01-01T00:00:00Z"
DEFAULTS = "  the engine's default providers (1) are its own: not compared"


def _consumer() -> Snapshot:
    """a-cons reads b-prod through a StackReference: b-prod must come first."""
    return mini("a-cons", res("x", VCN, displayName="x"), reference("ref", "b-prod"))


def _producer(name: str = "new") -> Snapshot:
    return mini("b-prod", res("y", VCN, displayName=name))


def _sides(tmp_path: Path) -> tuple[Path, Path]:
    exports, head = tmp_path / "exports", tmp_path / "head"
    exports.mkdir()
    head.mkdir()
    return exports, head


def _write(folder: Path, name: str, document: Any) -> Path:
    path = folder / name
    path.write_text(json.dumps(document))
    return path


def _deployed(tmp_path: Path) -> tuple[Path, Path]:
    """Both stacks planned; b-prod deployed with another displayName, a-cons as planned."""
    exports, head = _sides(tmp_path)
    for snap in (_consumer(), _producer()):
        _write(head, f"{snap['stack']}.json", snap)
    _write(exports, "a-cons.json", export_of(_consumer()))
    _write(exports, "b-prod.json", export_of(_producer("old")))
    return exports, head


def _diff(exports: Path, head: Path, **kw: Any) -> tuple[int, str, str]:
    err = io.StringIO()
    code, text = diff_state_dirs(
        exports, head, markdown=kw.get("markdown", False), json_out=kw.get("json_out"), err=err
    )
    return code, text, err.getvalue()


def test_every_stack_is_diffed_producers_first(tmp_path: Path) -> None:
    exports, head = _deployed(tmp_path)
    out = tmp_path / "diff.json"
    code, text, err = _diff(exports, head, json_out=out)
    assert (code, err) == (1, "")
    assert text.splitlines() == [
        "p/b-prod (deployed state) → p/b-prod: 0 to create, 1 to update, 0 to replace, "
        "0 to delete, 0 unchanged",
        " ~ oci:Core/vcn:Vcn  y",
        '      displayName: "old" → "new"',
        f"deployed state: {exports / 'b-prod.json'}: 3 resources, {HEADER}",
        DEFAULTS,
        "p/a-cons (deployed state) → p/a-cons: no changes (2 resources)",
        f"deployed state: {exports / 'a-cons.json'}: 4 resources, {HEADER}",
        DEFAULTS,
    ]
    data = json.loads(out.read_text())
    assert set(data) == {"stacks", "errors"} and data["errors"] == {}
    assert sorted(data["stacks"]) == ["a-cons", "b-prod"]
    assert data["stacks"]["a-cons"]["changes"] == []
    assert data["stacks"]["a-cons"]["state"] == {
        "defaultProviders": ["urn:pulumi:a-cons::p::pulumi:providers:oci::default"],
        "engine": "v3.272.0",
        "export": str(exports / "a-cons.json"),
        "facts": [],
        "integrityError": "",
        "notCompared": [],
        "notDeclared": [],
        "notInState": [],
        "time": "2026-01-01T00:00:00Z",
    }
    assert [(c["name"], c["op"]) for c in data["stacks"]["b-prod"]["changes"]] == [("y", "update")]
    assert out.read_text().endswith("}\n") and out.read_text().startswith('{\n  "errors"')


def test_no_changes_exits_0(tmp_path: Path) -> None:
    exports, head = _sides(tmp_path)
    _write(head, "b-prod.json", _producer())
    _write(exports, "b-prod.json", export_of(_producer()))
    code, text, err = _diff(exports, head)
    assert (code, err) == (0, "")
    assert text.splitlines()[0] == "p/b-prod (deployed state) → p/b-prod: no changes (1 resources)"


def test_markdown_is_each_stacks_diff_with_its_note_as_a_quote(tmp_path: Path) -> None:
    exports, head = _sides(tmp_path)
    _write(head, "b-prod.json", _producer())
    _write(exports, "b-prod.json", export_of(_producer()))
    _write(exports, "gone.json", export_of(mini("gone", res("z", VCN, displayName="z"))))
    code, text, err = _diff(exports, head, markdown=True)
    assert (code, err) == (1, "")
    sections = text.split("### Plan diff: ")
    assert sections[0] == ""
    assert sections[1].startswith("`p/b-prod (deployed state) → p/b-prod`\n\nNo changes")
    assert sections[1].endswith(
        "- the engine's default providers (1) are its own: not compared\n\n> Exported, not "
        "planned: `pulumi up` of this program would delete everything in it.\n\n"
    )
    assert sections[2].startswith("`p/gone (deployed state) → p/gone`\n\n")
    assert "**0 to create, 0 to update, 0 to replace, 1 to delete, 0 unchanged**" in sections[2]
    assert sections[2].endswith("not compared\n\n")


def test_a_stack_on_one_side_only(tmp_path: Path) -> None:
    exports, head = _sides(tmp_path)
    _write(head, "new.json", mini("new", res("n", VCN, displayName="n")))
    _write(exports, "gone.json", export_of(mini("gone", res("z", VCN, displayName="z"))))
    code, text, err = _diff(exports, head)
    assert (code, err) == (1, "")
    assert text.splitlines() == [
        "gone: Exported, not planned: `pulumi up` of this program would delete everything in it.",
        "p/gone (deployed state) → p/gone: 0 to create, 0 to update, 0 to replace, "
        "1 to delete, 0 unchanged",
        " - oci:Core/vcn:Vcn  z",
        f"deployed state: {exports / 'gone.json'}: 3 resources, {HEADER}",
        "  in the state, not declared by the program (1: deleted by `pulumi up`; a removal not "
        "yet applied, or left by a `--target` update): z",
        DEFAULTS,
        "new: Planned, no export: not deployed (or not exported); everything in it is created.",
        "p/new (deployed state) → p/new: 1 to create, 0 to update, 0 to replace, 0 to delete, "
        "0 unchanged",
        " + oci:Core/vcn:Vcn  n",
        f"deployed state: {exports / 'new.json'}: 0 resources, written by pulumi (unknown) at "
        "(unknown)",
        "  declared, not in the state (1: created by `pulumi up`; new in the program, or "
        "skipped by a `--target` update): n",
    ]


def test_a_stack_that_did_not_plan_is_one_line_and_the_others_still_diff(tmp_path: Path) -> None:
    exports, head = _deployed(tmp_path)
    # It failed on head: its STACK.error counts, even beside a stale STACK.json.
    (head / "b-prod.error").write_text("gpu-ci:host.user:\n  not a   user name\n")
    (head / "c.error").write_text(" \n")
    code, text, err = _diff(exports, head)
    assert code == 2
    assert err.splitlines() == [
        "error: b-prod: does not plan on head: gpu-ci:host.user: not a user name",
        "error: c: does not plan on head: (no reason given)",
    ]
    assert text.splitlines()[0] == "p/a-cons (deployed state) → p/a-cons: no changes (2 resources)"
    assert "b-prod" not in text


def test_an_error_file_outside_the_folder_is_not_read(tmp_path: Path) -> None:
    exports, head = _deployed(tmp_path)
    outside = tmp_path / "secret.txt"
    outside.write_text("not to be shown")
    os.symlink(outside, head / "b-prod.error")
    (head / "c.error").write_bytes(b"x" * (1024 * 1024 + 1))
    code, _, err = _diff(exports, head)
    assert code == 2
    assert err.splitlines() == [
        f"error: b-prod: does not plan on head: (b-prod.error: a symlink that leads outside "
        f"{head}; put the file itself in {head} instead of a link to a file elsewhere)",
        "error: c: does not plan on head: (c.error: 1.0 MiB, more than the 1 MiB a plan error "
        "file may be (`plan --all` writes one line there: why the stack did not plan); make it "
        "smaller)",
    ]


def test_an_export_or_plan_of_another_stack_is_refused(tmp_path: Path) -> None:
    exports, head = _deployed(tmp_path)
    _write(exports, "a-cons.json", export_of(_producer()))
    _write(head, "b-prod.json", mini("zzz", res("y", VCN, displayName="new")))
    code, text, err = _diff(exports, head)
    assert (code, text) == (2, "")
    assert err.splitlines() == [
        f"error: a-cons: {exports / 'a-cons.json'}: the state of stack 'b-prod', not 'a-cons'",
        f"error: b-prod: {head / 'b-prod.json'}: the snapshot of stack 'zzz', not 'b-prod'",
    ]


def test_an_export_of_another_project_is_refused(tmp_path: Path) -> None:
    exports, head = _sides(tmp_path)
    _write(head, "b-prod.json", _producer())
    other = mini("b-prod", res("y", VCN, displayName="new"), project="q")
    _write(exports, "b-prod.json", export_of(other))
    code, _, err = _diff(exports, head)
    assert code == 2
    assert err == (
        f"error: b-prod: {head / 'b-prod.json'}: the plan of p/b-prod, and "
        f"{exports / 'b-prod.json'} the state of q/b-prod: export the stack the plan is for "
        "(`pulumi stack export --stack b-prod --file FILE`)\n"
    )


def test_an_empty_export_takes_the_stack_from_its_file_name(tmp_path: Path) -> None:
    """An export with no resources names no stack: it is read as the file's stack."""
    exports, head = _sides(tmp_path)
    _write(head, "b-prod.json", _producer())
    _write(exports, "b-prod.json", {"version": 3, "deployment": {"manifest": {}}})
    code, text, err = _diff(exports, head)
    assert (code, err) == (1, "")
    assert text.splitlines()[:2] == [
        "p/b-prod (deployed state) → p/b-prod: 1 to create, 0 to update, 0 to replace, "
        "0 to delete, 0 unchanged",
        " + oci:Core/vcn:Vcn  y",
    ]


def test_no_stacks_in_either_folder(tmp_path: Path) -> None:
    exports, head = _sides(tmp_path)
    (exports / "dir.json").mkdir()  # a folder is no export
    (exports / ".json").write_text("{}")  # nor a file with no stack name
    (head / "notes.txt").write_text("x")
    code, text, err = _diff(exports, head)
    assert (code, text) == (2, "")
    assert err == f"error: no STACK.json in {exports} or {head}\n"


def test_an_unwritable_json_is_an_error_after_the_diff(tmp_path: Path) -> None:
    exports, head = _deployed(tmp_path)
    out = tmp_path / "missing" / "diff.json"
    code, text, err = _diff(exports, head, json_out=out)
    assert code == 2
    assert err == (
        f"error: --json {out}: cannot write it (No such file or directory); create "
        f"{out.parent} first\n"
    )
    assert text.startswith("p/b-prod (deployed state)")


def test_the_json_lists_errors_beside_the_stacks(tmp_path: Path) -> None:
    exports, head = _deployed(tmp_path)
    (head / "c.error").write_text("broken\n")
    out = tmp_path / "diff.json"
    assert _diff(exports, head, json_out=out)[0] == 2
    data = json.loads(out.read_text())
    assert data["errors"] == {"c": "does not plan on head: broken"}
    assert sorted(data["stacks"]) == ["a-cons", "b-prod"]


def test_the_command_with_folders_files_or_one_of_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    exports, head = _deployed(tmp_path)
    assert run(exports, head, markdown=False, json_out=None) == 1
    captured = capsys.readouterr()
    assert captured.err == ""
    assert captured.out.startswith("p/b-prod (deployed state) → p/b-prod: 0 to create, 1 to")
    assert captured.out.endswith(DEFAULTS + "\n")

    mixed = run(exports / "b-prod.json", head, markdown=False, json_out=None)
    captured = capsys.readouterr()
    assert (mixed, captured.out) == (2, "")
    assert captured.err == (
        f"error: give an export and a plan, or a dir of each: {exports / 'b-prod.json'}, {head}\n"
    )

    out = tmp_path / "one.json"
    one = run(exports / "b-prod.json", head / "b-prod.json", markdown=True, json_out=out)
    captured = capsys.readouterr()
    assert (one, captured.err) == (1, "")
    assert captured.out.startswith("### Plan diff: `p/b-prod (deployed state) → p/b-prod`\n")
    assert json.loads(out.read_text())["changes"][0]["op"] == "update"

    wrong = run(exports / "a-cons.json", head / "b-prod.json", markdown=False, json_out=None)
    captured = capsys.readouterr()
    assert (wrong, captured.out) == (2, "")
    assert captured.err == (
        f"error: {head / 'b-prod.json'}: the plan of p/b-prod, and {exports / 'a-cons.json'} "
        "the state of p/a-cons: export the stack the plan is for (`pulumi stack export "
        "--stack b-prod --file FILE`)\n"
    )


def test_an_error_line_cannot_start_a_workflow_command(tmp_path: Path) -> None:
    exports, head = _deployed(tmp_path)
    (head / "c.error").write_text("##[error]injected 100%\n")
    err = _diff(exports, head)[2]
    assert err == "error: c: does not plan on head: ##%5Berror]injected 100%25\n"


def test_a_link_out_of_either_folder_is_refused(tmp_path: Path) -> None:
    """Each folder is read as what `plan --all` and `pulumi stack export` wrote there: a
    symlink leading elsewhere is refused, not followed."""
    exports, head = _deployed(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for folder, name in ((exports, "b-prod.json"), (head, "a-cons.json")):
        moved = elsewhere / f"{folder.name}-{name}"
        (folder / name).rename(moved)
        os.symlink(moved, folder / name)
    code, text, err = _diff(exports, head)
    assert (code, text) == (2, "")
    assert err.splitlines() == [
        f"error: a-cons: {head / 'a-cons.json'}: a symlink that leads outside the folder "
        f"{head}; put the file itself in the folder {head} instead of a link to a file "
        "elsewhere",
        f"error: b-prod: {exports / 'b-prod.json'}: a symlink that leads outside {exports}; "
        f"put the file itself in {exports} instead of a link to a file elsewhere",
    ]


def test_a_reason_that_is_not_utf8_is_still_one_line(tmp_path: Path) -> None:
    exports, head = _deployed(tmp_path)
    (head / "c.error").write_bytes(b"bad \xff byte\n")
    (head / "d.error").write_text("naïve — no\n", encoding="utf-8")
    out = tmp_path / "diff.json"
    code, _, err = _diff(exports, head, json_out=out)
    assert code == 2
    assert err.splitlines() == [
        "error: c: does not plan on head: bad \ufffd byte",
        "error: d: does not plan on head: naïve — no",
    ]
    written = out.read_text(encoding="utf-8")
    assert '"d": "does not plan on head: naïve — no"' in written  # as written, not \u-escaped


def test_a_stack_with_no_export_is_an_empty_state(tmp_path: Path) -> None:
    exports, head = _sides(tmp_path)
    _write(head, "b-prod.json", _producer())
    (exports / "other.txt").write_text("x")
    out = tmp_path / "diff.json"
    assert _diff(exports, head, json_out=out)[0] == 1
    state = json.loads(out.read_text())["stacks"]["b-prod"]["state"]
    assert state == {
        "defaultProviders": [],
        "engine": "",
        "export": str(exports / "b-prod.json"),
        "facts": [],
        "integrityError": "",
        "notCompared": [],
        "notDeclared": [],
        "notInState": ["urn:pulumi:b-prod::p::oci:Core/vcn:Vcn::y"],
        "time": "",
    }


def test_the_command_passes_markdown_and_json_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    exports, head = _deployed(tmp_path)
    out = tmp_path / "diff.json"
    assert run(exports, head, markdown=True, json_out=out) == 1
    assert capsys.readouterr().out.startswith(
        "### Plan diff: `p/b-prod (deployed state) → p/b-prod`\n"
    )
    assert sorted(json.loads(out.read_text())["stacks"]) == ["a-cons", "b-prod"]
