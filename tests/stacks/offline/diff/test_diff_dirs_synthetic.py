"""`python -m stacks diff BASE_DIR HEAD_DIR` (`stacks.offline.diff.dirs`) on small synthetic
`plan --all` folders, each output compared whole: the stacks in the order `pulumi up` needs
them (a stack after the stacks it reads through a StackReference, otherwise by name), a
stack on one side only, a base that did not plan, and each kind of bad input one escaped
line on stderr (exit 2) while the other stacks are still diffed."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

import stacks.offline.diff.dirs as diff_dirs_module
from stacks.offline.diff.changes import diff_snapshots
from stacks.offline.diff.dirs import diff_dirs, producers_first, references
from stacks.offline.engine.fakes import STACK_REFERENCE
from tests.stacks.offline.diff.diff_dirs_helpers import run
from tests.stacks.offline.synthetic import res

REPLACED = (
    "p/zeta: 0 to create, 0 to update, 1 to replace, 0 to delete, 0 unchanged\n"
    "+- oci:Core/vcn:Vcn  net  (replace: dnsLabel changed)\n"
    '      dnsLabel: "a" \u2192 "b"\n'
)


def snapshot(
    stack: str, dns: str = "a", *reads: str, project: str = "p", vcn: str = "net"
) -> dict[str, Any]:
    """One VCN, and a StackReference to each of `reads` (as the SDK names them)."""
    resources = [res(vcn, dnsLabel=dns)]
    for name in reads:
        ref = res(f"ref-{name.replace('/', '-')}", STACK_REFERENCE, name=name)
        resources.append({**ref, "read": True})
    return {"project": project, "stack": stack, "resources": resources, "outputs": {}}


def write(folder: Path, stack: str, *args: str, **kwargs: str) -> None:
    folder.mkdir(exist_ok=True)
    (folder / f"{stack}.json").write_text(json.dumps(snapshot(stack, *args, **kwargs)))


def folders(root: Path, head_dns: str = "b") -> tuple[Path, Path]:
    """`apps` reads `zeta` (of its own project, `org/p/zeta`); `zeta`'s VCN is replaced on
    head when `head_dns` differs; `mid` reads nothing and stays."""
    base, head = root / "base", root / "head"
    for side, dns in ((base, "a"), (head, head_dns)):
        write(side, "apps", "a", "org/p/zeta")
        write(side, "zeta", dns)
        write(side, "mid")
    return base, head


def test_stacks_come_after_those_they_read_and_each_side_says_what_it_lacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`late`'s base did not plan (its reason's whitespace read as one line), `gone` is on
    base only, `new` on head only: all but `mid` and the reader `apps` have changes. A
    resource's name is printed to its last character, an `X` or a space."""
    base, head = folders(tmp_path)
    write(base, "gone", vcn="pool-X")
    write(head, "new", vcn="pool ")
    (base / "late.error").write_text("Pulumi.late.yaml:\n  a  mistake\n")
    write(head, "late")
    assert run(capsys, base, head) == (
        1,
        "gone: A removed stack (only on base): everything in it is deleted.\n"
        "p/gone: 0 to create, 0 to update, 0 to replace, 1 to delete, 0 unchanged\n"
        " - oci:Core/vcn:Vcn  pool-X\n"
        "late: The base did not plan (Pulumi.late.yaml: a mistake): everything shows as "
        "created.\n"
        "p/late: 1 to create, 0 to update, 0 to replace, 0 to delete, 0 unchanged\n"
        " + oci:Core/vcn:Vcn  net\n"
        "p/mid: no changes (1 resources)\n"
        "new: A new stack (only on head): everything in it is created.\n"
        "p/new: 1 to create, 0 to update, 0 to replace, 0 to delete, 0 unchanged\n"
        " + oci:Core/vcn:Vcn  pool \n" + REPLACED + "  read by: apps (no changes)\n"
        "p/apps: no changes (2 resources)\n",
        "",
    )


def test_the_markdown_heads_each_stack_with_its_notes_and_its_readers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = folders(tmp_path)
    write(head, "new")
    code, out, err = run(capsys, base, head, "--markdown")
    assert (code, err) == (1, "")
    assert out.startswith(
        "**4 stacks:** 2 with changes (`new`, `zeta`); 2 without (`mid`, `apps`).\n\n"
        "### Plan diff: `p/mid`\n\nNo changes: the same 1 resources with the same inputs.\n\n"
        "### Plan diff: `p/new`\n\n"
        "> A new stack (only on head): everything in it is created.\n\n"
        "**1 to create, 0 to update, 0 to replace, 0 to delete, 0 unchanged**\n\n"
    )
    zeta = out.split("### Plan diff: `p/zeta`\n\n")[1]
    assert zeta.startswith(
        "Read by (StackReference): `apps` (no changes)\n\n"
        "**0 to create, 0 to update, 1 to replace, 0 to delete, 0 unchanged**\n\n"
    )
    assert out.endswith(
        "### Plan diff: `p/apps`\n\nNo changes: the same 2 resources with the same inputs.\n"
    )
    assert out.count("Read by") == 1


def test_a_producer_without_changes_lists_no_readers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`apps` changes and reads `zeta`, which does not: nothing is said under `zeta`."""
    base, head = folders(tmp_path, head_dns="a")
    write(head, "apps", "b", "org/p/zeta")
    code, out, _ = run(capsys, base, head)
    assert code == 1
    assert out.splitlines()[:3] == [
        "p/mid: no changes (1 resources)",
        "p/zeta: no changes (1 resources)",
        "p/apps: 0 to create, 0 to update, 1 to replace, 0 to delete, 1 unchanged",
    ]
    assert "read by" not in out
    assert "Read by" not in run(capsys, base, head, "--markdown")[1]


def test_a_head_that_does_not_plan_is_an_error_said_in_each_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The text output leaves the stack to stderr, the markdown gives it a section with the
    reason; its base is not read, so it is listed as no stack's reader."""
    base, head = folders(tmp_path)
    (head / "apps.json").unlink()
    (head / "apps.error").write_text("Pulumi.apps.yaml: a mistake\n")
    report = tmp_path / "diff.json"
    code, out, err = run(capsys, base, head, "--json", str(report))
    assert (code, err) == (2, "error: apps: does not plan on head: Pulumi.apps.yaml: a mistake\n")
    assert out == "p/mid: no changes (1 resources)\n" + REPLACED
    data = json.loads(report.read_text())
    assert data["errors"] == {"apps": "does not plan on head: Pulumi.apps.yaml: a mistake"}
    assert sorted(data["stacks"]) == ["mid", "zeta"]
    code, out, _ = run(capsys, base, head, "--markdown")
    assert code == 2
    assert out.startswith(
        "**3 stacks:** 1 with changes (`zeta`); 1 without (`mid`); 1 cannot be diffed "
        "(`apps`).\n\n### `apps`: does not plan on head\n\n```\nPulumi.apps.yaml: a "
        "mistake\n```\n\n### Plan diff: `p/mid`\n\n"
    )
    assert "Read by" not in out


def test_the_json_report_is_every_diff_and_every_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Keys sorted, indented, UTF-8 as written (a reason's `é` stays `é`)."""
    base, head = folders(tmp_path)
    (head / "mid.json").write_text('{"stack": "mid"}\n')
    write(base, "late")
    (head / "late.error").write_text("café")
    report = tmp_path / "diff.json"
    assert run(capsys, base, head, "--json", str(report))[0] == 2
    text = report.read_text(encoding="utf-8")
    expected = {
        "errors": {
            "late": "does not plan on head: café",
            "mid": f"{head / 'mid.json'}: not a plan snapshot (`project` is missing or not a str)",
        },
        "stacks": {
            stack: diff_snapshots(
                json.loads((base / f"{stack}.json").read_text()),
                json.loads((head / f"{stack}.json").read_text()),
            ).as_json()
            for stack in ("apps", "zeta")
        },
    }
    assert json.loads(text) == expected
    assert text.startswith('{\n  "errors": {\n    "late": "does not plan on head: café",\n')
    assert text.endswith("}\n")


def test_a_file_that_is_not_a_snapshot_of_its_stack_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """On either side; the other stacks are still diffed."""
    base, head = folders(tmp_path)
    (base / "mid.json").write_text(json.dumps(snapshot("apps")))
    code, out, err = run(capsys, base, head)
    assert code == 2
    reason = f"{base / 'mid.json'}: the snapshot of stack 'apps', not 'mid'"
    assert err == f"error: mid: {reason}\n"
    assert out == REPLACED + "  read by: apps (no changes)\np/apps: no changes (2 resources)\n"
    code, out, _ = run(capsys, base, head, "--markdown")
    assert out.startswith(
        "**3 stacks:** 1 with changes (`zeta`); 1 without (`apps`); 1 cannot be diffed "
        f"(`mid`).\n\n### `mid`: cannot be diffed\n\n```\n{reason}\n```\n\n"
    )


def test_a_snapshot_is_read_only_from_inside_its_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A `STACK.json` that links out of its folder is refused unread, on either side and
    when its project would name a stack that has no snapshot."""
    base, head = folders(tmp_path, head_dns="a")
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps(snapshot("mid", project="elsewhere")))
    (head / "mid.json").unlink()
    (head / "mid.json").symlink_to(outside)
    code, _, err = run(capsys, base, head)
    assert (code, err) == (
        2,
        f"error: mid: {head / 'mid.json'}: a symlink that leads outside the folder {head}; put "
        f"the file itself in the folder {head} instead of a link to a file elsewhere\n",
    )
    # the project of a stack with no snapshot is not read through the link either
    lone = tmp_path / "lone"
    lone.mkdir()
    (lone / "aaa.json").symlink_to(outside)
    (lone / "late.error").write_text("a mistake")
    code, text = diff_dirs(lone, head, markdown=False, err=io.StringIO())
    assert "p/late: no changes (0 resources)" in text.splitlines()


def test_a_diff_that_fails_is_one_stacks_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its snapshots were read: as a reader of a changed producer it cannot be diffed."""
    base, head = folders(tmp_path)

    def broken(old: dict[str, Any], new: dict[str, Any]) -> Any:
        if new["stack"] == "apps":
            raise KeyError("urn")
        return diff_snapshots(old, new)

    monkeypatch.setattr(diff_dirs_module, "diff_snapshots", broken)
    reason = (
        "KeyError: 'urn' (`python -m stacks diff BASE.json HEAD.json` of its two snapshots "
        "shows the traceback)"
    )
    code, out, err = run(capsys, base, head, "--markdown")
    assert (code, err) == (2, f"error: apps: the diff failed: {reason}\n")
    assert out.endswith(f"### `apps`: the diff failed\n\n```\n{reason}\n```\n")
    assert "Read by (StackReference): `apps` (cannot be diffed)\n" in out
    assert run(capsys, base, head)[1] == (
        "p/mid: no changes (1 resources)\n" + REPLACED + "  read by: apps (cannot be diffed)\n"
    )


def test_what_an_error_file_holds_is_its_reason_or_why_it_has_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = folders(tmp_path)
    for stack in ("apps", "mid", "zeta"):
        (head / f"{stack}.json").unlink()
    (head / "apps.error").write_text(" \n")
    (head / "mid.error").write_bytes(b"bad \xff\n")
    (head / "zeta.error").write_bytes(b"x" * (1024 * 1024 + 1))
    code, out, err = run(capsys, base, head)
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        "error: apps: does not plan on head: (no reason given)",
        "error: mid: does not plan on head: (its mid.error cannot be read: 'utf-8' codec "
        "can't decode byte 0xff in position 4: invalid start byte)",
        "error: zeta: does not plan on head: (zeta.error: 1.0 MiB, more than the 1 MiB a plan "
        "error file may be (`plan --all` writes one line there: why the stack did not "
        "plan); make it smaller)",
    ]


def test_only_named_json_files_are_stacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder named `x.json`, a file named `.json` or `.error`, and other files are not
    stacks of either side."""
    base, head = folders(tmp_path, head_dns="a")
    (head / "folder.json").mkdir()
    (head / ".json").write_text("{}")
    (head / ".error").write_text("no stack")
    (head / "notes.txt").write_text("x")
    assert run(capsys, base, head) == (
        0,
        "p/mid: no changes (1 resources)\np/zeta: no changes (1 resources)\n"
        "p/apps: no changes (2 resources)\n",
        "",
    )


def test_a_stack_with_no_snapshot_on_either_side_takes_the_first_readable_project(
    tmp_path: Path,
) -> None:
    """A stack whose base did not plan and which head lacks has nothing to name its project
    by: the first snapshot that reads, by side and then by name, names it."""
    base, head = tmp_path / "base", tmp_path / "head"
    base.mkdir()
    (base / "aaa.json").write_text("{}")
    write(base, "bbb", project="q")
    (base / "late.error").write_text("a mistake")
    write(head, "yank", project="r")
    code, text = diff_dirs(base, head, markdown=False, err=io.StringIO())
    assert code == 2
    assert text.splitlines()[3:6] == [
        "late: The base did not plan (a mistake): everything shows as created.",
        "late: A removed stack (only on base): everything in it is deleted.",
        "q/late: no changes (0 resources)",
    ]
    # none that reads: no project
    (base / "bbb.json").unlink()
    (head / "yank.json").write_text("{}")
    code, text = diff_dirs(base, head, markdown=False, err=io.StringIO())
    assert text.splitlines()[-1] == "/late: no changes (0 resources)"


def test_a_stack_on_one_side_is_titled_by_its_own_project(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not by another stack's: its empty other side takes the project it has."""
    base, head = folders(tmp_path, head_dns="a")
    write(base, "gone", project="q")
    write(head, "new", project="r")
    code, out, _ = run(capsys, base, head)
    assert code == 1
    assert "q/gone: 0 to create, 0 to update, 0 to replace, 1 to delete, 0 unchanged" in out
    assert "r/new: 1 to create, 0 to update, 0 to replace, 0 to delete, 0 unchanged" in out


def test_the_markdown_counts_name_the_stacks_of_each_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = folders(tmp_path, head_dns="a")
    assert run(capsys, base, head, "--markdown")[1].startswith(
        "**3 stacks:** 0 with changes; 3 without (`mid`, `zeta`, `apps`).\n\n"
    )
    for stack in ("mid", "zeta"):
        write(head, stack, "b")
    (head / "apps.json").unlink()
    (head / "apps.error").write_text("a mistake")
    (head / "late.error").write_text("another")
    assert run(capsys, base, head, "--markdown")[1].startswith(
        "**4 stacks:** 2 with changes (`mid`, `zeta`); 0 without; 2 cannot be diffed "
        "(`apps`, `late`).\n\n"
    )


def test_every_reader_of_a_changed_producer_is_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = folders(tmp_path)
    write(base, "web", "a", "zeta")
    write(head, "web", "b", "zeta")
    code, out, _ = run(capsys, base, head)
    assert code == 1
    assert "  read by: apps (no changes), web (changes)\n" in out
    markdown = run(capsys, base, head, "--markdown")[1]
    assert "Read by (StackReference): `apps` (no changes), `web` (changes)\n" in markdown


def test_bad_folders_are_one_escaped_line_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    odd = tmp_path / "a##[b%"
    odd.mkdir()
    missing, also = odd / "nowhere", odd / "gone"
    shown = str(odd).replace("%", "%25").replace("##[", "##%5B")
    assert run(capsys, odd, missing) == (2, "", f"error: {shown}/nowhere: no such directory\n")
    assert run(capsys, missing, odd) == (2, "", f"error: {shown}/nowhere: no such directory\n")
    err = io.StringIO()  # the CLI diffs two paths that are no folders as two files
    assert diff_dirs(missing, also, markdown=False, err=err) == (2, "")
    assert err.getvalue() == (
        f"error: {shown}/nowhere: no such directory\nerror: {shown}/gone: no such directory\n"
    )
    (odd / "file.json").write_text("{}")
    assert run(capsys, odd, odd / "file.json") == (
        2,
        "",
        f"error: {shown}/file.json: not a directory, and {shown} is one: give two snapshots "
        "or two dirs\n",
    )
    assert run(capsys, odd / "file.json", odd)[2] == (
        f"error: {shown}/file.json: not a directory, and {shown} is one: give two snapshots "
        "or two dirs\n"
    )
    (odd / "file.json").unlink()
    assert run(capsys, odd, odd) == (
        2,
        "",
        f"error: no STACK.json in {shown} or {shown} (write them with plan --all)\n",
    )


def test_stack_errors_and_an_unwritable_report_are_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = folders(tmp_path)
    (head / "mid.json").unlink()
    (head / "mid.error").write_text("50% ##[add-mask]x")
    odd = tmp_path / "a##[b" / "diff.json"
    code, _, err = run(capsys, base, head, "--json", str(odd))
    assert code == 2
    assert err.splitlines() == [
        "error: mid: does not plan on head: 50%25 ##%5Badd-mask]x",
        f"error: --json {tmp_path}/a##%5Bb/diff.json: cannot write it (No such file or "
        f"directory); create {tmp_path}/a##%5Bb first",
    ]


def test_references_are_the_stacks_of_its_own_project_it_reads() -> None:
    """A StackReference's `name` is `stack` (this project) or `org/project/stack`; another
    project's stacks, other spellings, other types' `name` and a name that is no string
    are not references."""
    snap = snapshot("apps", "a", "one", "org/p/two", "org/other/three", "x/four", "a/b/c/d")
    snap["resources"].append(res("named", "example:index:Thing", name="five"))
    ref = res("odd", STACK_REFERENCE, name=["six"])
    snap["resources"] += [ref, {"type": STACK_REFERENCE}]
    assert references(snap) == {"one", "two"}
    assert references({"project": "p"}) == set()


def test_producers_come_first_then_names_and_a_cycle_does_not_hang() -> None:
    reads = {"apps": {"gpu"}, "gpu": {"net"}, "zeta": set()}
    assert producers_first(["apps", "gpu", "net", "zeta"], reads) == ["net", "gpu", "apps", "zeta"]
    assert producers_first(["a", "b", "c"], {"a": {"b"}, "b": {"a"}, "c": {"a"}}) == ["a", "b", "c"]
    assert producers_first(["a"], {"a": {"a", "missing"}}) == ["a"]
    # a reader of two producers waits for both; what is ready goes by name
    both = {"d": {"b", "y"}, "y": {"b"}}
    assert producers_first(["a", "b", "c", "d", "y"], both) == ["a", "b", "c", "y", "d"]
    assert producers_first(["c", "b", "a"], {"a": {"c"}}) == ["b", "c", "a"]
    # a cycle's stacks by name, after what can go first, and what reads them after them
    cycle = {"m": {"n"}, "n": {"m"}, "x": {"m"}, "b": {"a"}}
    assert producers_first(["a", "b", "m", "n", "x"], cycle) == ["a", "b", "m", "n", "x"]
