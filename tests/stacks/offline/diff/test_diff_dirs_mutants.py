"""`python -m stacks diff BASE_DIR HEAD_DIR` on small synthetic `plan --all` folders: a
`STACK.error` is read only from inside its folder (a symlink out of it is refused unread,
its target's text never printed), and a `--json` file that cannot be written exits 2 with
one line naming the flag, while the diff itself is still printed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.stacks.offline.diff.diff_dirs_helpers import run
from tests.stacks.offline.synthetic import res


def _snapshot(stack: str, dns: str) -> str:
    snap = {
        "project": "p",
        "stack": stack,
        "resources": [res("net", dnsLabel=dns)],
        "outputs": {},
    }
    return json.dumps(snap, indent=2, sort_keys=True) + "\n"


@pytest.fixture
def sides(tmp_path: Path) -> tuple[Path, Path]:
    base, head = tmp_path / "base", tmp_path / "head"
    for side, dns in ((base, "a"), (head, "a")):
        side.mkdir()
        (side / "one.json").write_text(_snapshot("one", dns))
        (side / "two.json").write_text(_snapshot("two", dns))
    return base, head


def test_the_same_folders_have_no_changes(
    sides: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, *sides)
    assert (code, err) == (0, "")


def test_an_error_file_linked_from_outside_its_folder_is_refused_unread(
    sides: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = sides
    outside = tmp_path / "secret.txt"
    outside.write_text("TOKEN-ghp_not_for_the_log\n")
    (head / "two.json").unlink()
    (head / "two.error").symlink_to(outside)
    code, out, err = run(capsys, base, head)
    assert code == 2
    assert err == (
        f"error: two: does not plan on head: (two.error: a symlink that leads outside {head}; "
        f"put the file itself in {head} instead of a link to a file elsewhere)\n"
    )
    assert "TOKEN" not in out + err
    # the same text inside the folder is its reason
    (head / "two.error").unlink()
    (head / "two.error").write_text("TOKEN-ghp_not_for_the_log\n")
    assert run(capsys, base, head)[2] == (
        "error: two: does not plan on head: TOKEN-ghp_not_for_the_log\n"
    )


def test_an_unwritable_json_file_exits_2_and_still_prints_the_diff(
    sides: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = sides
    (head / "one.json").write_text(_snapshot("one", "b"))  # a change: exit 1 otherwise
    target = tmp_path / "missing" / "diff.json"
    code, out, err = run(capsys, base, head, "--json", str(target))
    assert code == 2
    assert err == (
        f"error: --json {target}: cannot write it (No such file or directory); "
        f"create {target.parent} first\n"
    )
    assert out == (
        "p/one: 0 to create, 0 to update, 1 to replace, 0 to delete, 0 unchanged\n"
        '+- oci:Core/vcn:Vcn  net  (replace: dnsLabel changed)\n      dnsLabel: "a" \u2192 "b"\n'
        "p/two: no changes (1 resources)\n"
    )
    assert not target.exists()
    written = tmp_path / "diff.json"
    code, out_again, err = run(capsys, base, head, "--json", str(written))
    assert (code, out_again, err) == (1, out, "")
    data = json.loads(written.read_text())
    assert set(data["stacks"]) == {"one", "two"} and data["errors"] == {}
