"""How the config reference renders a default, a cell and a union, finds the README's markers
and speaks on its command line (mutation-testing survivors of stacks/config/reference.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel, Field

from stacks.config.reference import (
    END,
    START,
    Row,
    _between,
    _scalar,
    _split,
    _Walker,
    _yaml,
    main,
    readme_copy,
    render_reference,
    write,
)


def test_a_scalar_is_quoted_where_yaml_would_not_read_it_back_as_this_text() -> None:
    assert _scalar("plain-text") == "plain-text"
    assert _scalar("") == '""'
    assert _scalar("a: b") == '"a: b"'
    assert _scalar("key:") == '"key:"'
    assert _scalar("a,b") == '"a,b"'  # at the top or in a flow collection
    assert _scalar('say "hi" \\o/') == '"say \\"hi\\" \\\\o/"'


def test_a_default_is_flow_yaml() -> None:
    assert _yaml([None, True, False, 2.0, 2.5, "x"]) == "[null, true, false, 2, 2.5, x]"
    assert _yaml({"a": [1, 2], "b c": None}) == "{a: [1, 2], b c: null}"


class _Tagged(BaseModel):
    tags: set[str] = set()
    size: int = 1


def test_a_model_default_is_its_json_form_without_its_defaults() -> None:
    assert _yaml(_Tagged(tags={"gpu"})) == "{tags: [gpu]}"
    assert _yaml(_Tagged(size=2)) == "{size: 2}"


def test_a_cell_escapes_the_column_bar_and_joins_lines() -> None:
    row = Row("k", ("ssh", "local"), "a|b", "one\ntwo | three", ())
    assert row.markdown() == "| `k` *(ssh, local)* | a\\|b | one two \\| three |"


def test_a_description_splits_at_its_first_semicolon_only() -> None:
    assert _split("default: the agent; meaning; more") == ("the agent", "meaning; more")
    assert _split("required when x; meaning") == ("required when x", "meaning")
    assert _split("just a meaning; with a semicolon") == (None, "just a meaning; with a semicolon")


def test_the_markers_are_found_or_refused() -> None:
    at_start = f"{START}\n| a |\n{END}"
    assert _between(at_start) == (len(START), at_start.index(END))
    assert readme_copy(at_start) == "| a |\n"
    twice = f"{START}\n| a |\n{START}\n| b |\n{END}\n| c |\n{END}\n"
    assert readme_copy(twice) == f"| a |\n{START}\n| b |\n"
    message = f"no {START} ... {END} markers"
    for text in ("no markers", f"only the end {END}", f"{END} before {START}", f"{START} alone"):
        with pytest.raises(ValueError) as err:
            _between(text)
        assert str(err.value) == message


def test_the_copy_keeps_what_is_not_a_line_break() -> None:
    assert readme_copy(f"{START}\n\n  | a |\t\n\n{END}") == "  | a |\t\n"
    assert readme_copy(f"{START}\nX| a |X\n{END}") == "X| a |X\n"


def test_write_says_whether_it_changed_the_file(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"{START}\n| stale |\n{END}\n")
    assert write(readme) is True
    assert readme.read_text() == f"{START}\n{render_reference()}{END}\n"
    assert write(readme) is False


def test_the_cli_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    assert capsys.readouterr() == (render_reference(), "")


def test_the_cli_reports_updated_then_up_to_date(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"{START}\n{END}\n")
    assert main(["--write", str(readme)]) == 0
    assert main(["--write", str(readme)]) == 0
    assert capsys.readouterr() == (f"{readme}: updated\n{readme}: up to date\n", "")


def test_the_cli_reports_a_missing_file_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.md"
    assert main(["--write", str(missing)]) == 2
    assert capsys.readouterr() == (
        "",
        f"error: {missing}: [Errno 2] No such file or directory: '{missing}'\n",
    )


def test_the_cli_help(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "usage: python -m stacks.config.reference [-h] [--write FILE]\n\n"
        "Print the gpu-ci config reference (a markdown table).\n"
    )
    assert f"--write FILE  replace the table between {START} and {END}\n" in out


class _Ssh(BaseModel):
    target: Literal["ssh"] = Field(description="an existing machine")
    address: str = Field(default="", description="its address")
    port: int = Field(default=22, description="its port")


class _Local(BaseModel):
    target: Literal["local"]  # no description
    port: int = Field(default=22, description="its port")
    address: str = Field(default="", description="its address")
    kind: Literal["box"] = "box"
    note: str = ""


class _Top(BaseModel):
    host: _Ssh | _Local = Field(discriminator="target", description="the host")


def _rows() -> list[Row]:
    walker = _Walker()
    walker.model(_Top, "", None, ())
    return walker.rows


def test_a_union_lists_its_tag_then_the_first_members_shared_fields_then_its_own() -> None:
    rows = [(r.key, r.variants, r.default, r.meaning) for r in _rows()]
    assert rows == [
        ("host", (), "required", "the host"),
        ("host.target", (), "required", "`ssh`: an existing machine; `local`: "),
        ("host.address", (), '`""`', "its address"),
        ("host.port", (), "`22`", "its port"),
        ("host.kind", ("local",), "`box`", ""),  # one Literal value: no "one of"
        ("host.note", ("local",), '`""`', ""),  # no description: no meaning
    ]
