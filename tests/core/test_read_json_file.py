"""`core.read_json.read`: a JSON file read by the careful reader, as
`stacks.offline.state.export` reads a `pulumi stack export` file and
`components.host.probe_compare` the host probe's report. Every problem is one line naming the file:
a byte that is not UTF-8, text that is not JSON, nesting past the bound, a symlink out of its
folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core import read_json
from core.read_files import FileRefusedError
from core.read_limits import HOST_PROBE, Limits


def read(path: Path, root: Path | None = None, where: str = "") -> object:
    return read_json.read(path, name=path.name, limits=HOST_PROBE, root=root, where=where)


def refused(path: Path, root: Path | None = None, where: str = "") -> str:
    with pytest.raises((read_json.JsonRefusedError, FileRefusedError)) as err:
        read(path, root, where)
    return str(err.value)


def test_a_json_file_is_read_as_utf8(tmp_path: Path) -> None:
    path = tmp_path / "probe.json"
    path.write_text('{"driver": "570.133.20", "gpus": ["A10 \u00e9t\u00e9"]}', encoding="utf-8")
    assert read(path) == {"driver": "570.133.20", "gpus": ["A10 \u00e9t\u00e9"]}


def test_a_byte_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    path = tmp_path / "probe.json"
    path.write_bytes(b'{"a": "\xc3\xa9", "b": "\xff"}')
    assert refused(path) == "probe.json: byte 0xff is not UTF-8"
    path.write_bytes(b'\xe9{"a": 1}')  # latin-1, first byte
    assert refused(path) == "probe.json: byte 0xe9 is not UTF-8"


def test_text_that_is_not_json_is_one_line_with_its_place(tmp_path: Path) -> None:
    path = tmp_path / "probe.json"
    path.write_text('{"a": 1,\n "b": }\n')
    assert refused(path) == "probe.json: not JSON (Expecting value at line 2, column 7)"


def test_nesting_past_the_bound_is_refused_before_parsing(tmp_path: Path) -> None:
    path = tmp_path / "probe.json"
    path.write_text("[" * 8 + "]" * 8)
    assert read(path) == [[[[[[[[]]]]]]]]
    path.write_text("{\n" + "[" * 9 + "]" * 9 + "}")
    assert refused(path) == (
        "probe.json: values nest more than 8 levels deep (line 2); no host probe report nests "
        "that deep (components/host/scripts/host-probe.sh prints one JSON object of under "
        "2 KiB, 3 deep)"
    )


def test_a_symlink_out_of_its_folder_is_refused_unread(tmp_path: Path) -> None:
    folder, outside = tmp_path / "reports", tmp_path / "secret.json"
    folder.mkdir()
    outside.write_text('{"token": "not-for-the-log"}')
    link = folder / "probe.json"
    link.symlink_to(outside)
    assert read(link) == {"token": "not-for-the-log"}  # no folder given: no bound
    message = refused(link, folder, "the reports folder")
    assert message == (
        "probe.json: a symlink that leads outside the reports folder; put the file itself in "
        "the reports folder instead of a link to a file elsewhere"
    )
    with pytest.raises(FileRefusedError) as err:  # no `where`: the message names the folder
        read_json.read(link, name="probe.json", limits=HOST_PROBE, root=folder)
    assert str(err.value).startswith(f"probe.json: a symlink that leads outside {folder};")


SMALL = Limits(kind="test document", max_bytes=40, max_depth=3, max_values=0, reason="a test")


def test_nesting_is_measured_outside_strings_from_where_it_is() -> None:
    assert read_json.depth_problem('[[["[[[[", "{{{{"]]]', 3) is None
    assert read_json.depth_problem("[[[[]]]]", 3) == 1
    # siblings that closed leave no depth behind, and take none away
    assert read_json.depth_problem("[[], [[[]]]]", 3) == 1
    assert read_json.depth_problem("[[[], [[]]]]", 3) == 1
    assert read_json.depth_problem("[[[]], [[]], [[]]]", 3) is None
    # the line is the one of the bracket past the bound, counted from the text's start
    assert read_json.depth_problem("\n[\n [\n  [\n   [1]]]]\n\n", 3) == 5
    assert read_json.depth_problem("\n[[[[]]]]\n\n", 3) == 2


def test_a_text_is_bounded_by_its_characters_and_integers_by_their_digits() -> None:
    exact = "[" + "1," * 19 + "]"
    assert len(exact) == 40
    with pytest.raises(json.JSONDecodeError):  # 40 characters: read (and not JSON)
        read_json.parse(exact, name="d.json", limits=SMALL)
    with pytest.raises(read_json.JsonRefusedError) as long:
        read_json.parse(exact + " ", name="d.json", limits=SMALL)
    assert str(long.value) == (
        "d.json: 41 characters, more than the 40 a test document may hold (a test); make it smaller"
    )
    with pytest.raises(read_json.JsonRefusedError) as digits:
        read_json.parse("1" * 4301, name="n.json", limits=HOST_PROBE)
    assert str(digits.value) == (
        "n.json: an integer of more than 4300 digits; write it as a string if it is text"
    )
    assert read_json.parse("1" * 4300, name="n.json", limits=HOST_PROBE) == int("1" * 4300)
