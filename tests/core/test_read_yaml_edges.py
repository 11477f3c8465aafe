"""`core.read_yaml` at the edges its callers meet: the size bound to the character, an
empty document, a second document where one is read, the value bound counted over every
document of a manifest (`parse_all`) and over collections after scalars, depth through an
alias to an empty list, the marks of a `yaml.YAMLError` naming the document (recipe files
word it their way), and every refusal one line naming the document."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
import yaml

from core import read_yaml
from core.read_files import FileRefusedError
from core.read_limits import STACK_FILE, Limits
from core.yaml_source import YamlRefusedError

SMALL = Limits(kind="test file", max_bytes=40, max_depth=3, max_values=10, reason="a test")


def refused(call: object) -> str:
    assert callable(call)
    with pytest.raises(YamlRefusedError) as err:
        call()
    return str(err.value)


def test_a_document_of_exactly_the_size_bound_reads_and_one_character_more_does_not() -> None:
    text = "a: " + "x" * 36 + "\n"
    assert len(text) == SMALL.max_bytes
    assert read_yaml.load(text, name="t.yaml", limits=SMALL, schema=read_yaml.CORE).data == {
        "a": "x" * 36
    }
    assert refused(
        lambda: read_yaml.load(text + " ", name="t.yaml", limits=SMALL, schema=read_yaml.CORE)
    ) == ("t.yaml: 41 characters, more than the 40 a test file may hold (a test); make it smaller")


@pytest.mark.parametrize("text", ["", "# only a comment\n"], ids=["empty", "comment"])
def test_an_empty_document_is_none_with_its_text(text: str) -> None:
    parsed = read_yaml.load(text, name="t.yaml", limits=SMALL, schema=read_yaml.CORE)
    assert parsed == read_yaml.Parsed(None, None, text)
    checked: list[yaml.Node] = []
    read_yaml.load(text, name="t.yaml", limits=SMALL, schema=read_yaml.CORE, check=checked.append)
    assert checked == []  # nothing to check


def test_a_document_keeps_its_text_and_node() -> None:
    parsed = read_yaml.load("a: [1]\n", name="t.yaml", limits=SMALL, schema=read_yaml.CORE)
    assert (parsed.data, parsed.text) == ({"a": [1]}, "a: [1]\n")
    assert isinstance(parsed.node, yaml.MappingNode) and parsed.node.start_mark.line == 0


def test_a_second_document_where_one_is_read_is_refused() -> None:
    assert refused(
        lambda: read_yaml.load(
            "a: 1\n---\nb: 2\n", name="t.yaml", limits=SMALL, schema=read_yaml.CORE
        )
    ) == (
        "t.yaml: not valid YAML: expected a single document in the stream (line 1), but "
        "found another document (line 2, column 1); fix the YAML there"
    )


@pytest.mark.parametrize(
    ("text", "error", "line"),
    [("a: [\n", yaml.parser.ParserError, 1), ("a: *nope\n", yaml.composer.ComposerError, 0)],
    ids=["syntax", "undefined-alias"],
)
def test_what_is_not_yaml_raises_an_error_whose_marks_name_the_document(
    text: str, error: type[yaml.MarkedYAMLError], line: int
) -> None:
    """A syntax error (met while the events are scanned) and an undefined alias (met while
    the nodes are composed) alike."""
    with pytest.raises(error) as err:
        read_yaml.parse(text, name="Pulumi.dev.yaml", limits=SMALL, schema=read_yaml.CORE)
    mark = err.value.problem_mark
    assert mark is not None and (mark.name, mark.line) == ("Pulumi.dev.yaml", line)
    assert f'in "Pulumi.dev.yaml", line {line + 1}' in str(err.value)


def test_a_value_that_cannot_be_a_date_is_one_line_naming_the_document() -> None:
    message = (
        "{name}: a value looks like a number or a date but cannot be read as one; quote it "
        "if it is text"
    )
    schema = read_yaml.SAFE
    assert refused(
        lambda: read_yaml.load("d: 2026-13-45\n", name="t.yaml", limits=SMALL, schema=schema)
    ) == message.format(name="t.yaml")
    assert refused(
        lambda: read_yaml.parse_all(
            "a: 1\n---\nd: 2026-13-45\n", name="m.yaml", limits=SMALL, schema=schema
        )
    ) == message.format(name="m.yaml")


def test_a_collection_counts_toward_the_value_bound_after_any_scalar() -> None:
    """10 values: the outer list, 8 scalars and an inner list; one scalar more is 11."""
    text = "[" + "0, " * 8 + "[]]"
    assert read_yaml.load(text, name="t.yaml", limits=SMALL, schema=read_yaml.CORE).data == [
        *[0] * 8,
        [],
    ]
    assert refused(
        lambda: read_yaml.load(
            "[0, " + text[1:], name="t.yaml", limits=SMALL, schema=read_yaml.CORE
        )
    ) == (
        "t.yaml: more than 10 values (line 1); a test file holds far fewer (a test): make it "
        "smaller"
    )


MANIFEST = "[&a [0, 0, 0], *a]\n---\nx\n"
"""Its first document is 9 values with the alias expanded (the outer list, the inner list
and its 3 scalars, and them again); its second one."""


def test_aliases_in_a_manifest_count_over_every_document() -> None:
    limits = Limits(kind="manifest", max_bytes=1000, max_depth=3, max_values=10, reason="r")
    assert read_yaml.parse_all(MANIFEST, name="m.yaml", limits=limits, schema=read_yaml.SAFE) == [
        [[0, 0, 0], [0, 0, 0]],
        "x",
    ]
    past = (
        "m.yaml: aliases expand the value at line 5 past 10 values; write the values out "
        "instead of nesting aliases"
    )
    for more in ("---\ny\n", "---\n[]\n"):  # a scalar document counts as a list does
        call = partial(
            read_yaml.parse_all,
            MANIFEST + more,
            name="m.yaml",
            limits=limits,
            schema=read_yaml.SAFE,
        )
        assert refused(call) == past, more


def test_a_manifest_document_past_the_depth_bound_is_one_line_naming_it() -> None:
    assert (
        refused(
            lambda: read_yaml.parse_all(
                "a\n---\n[[[[0]]]]\n", name="m.yaml", limits=SMALL, schema=read_yaml.SAFE
            )
        )
        == "m.yaml: values nest more than 3 levels deep (line 3); flatten them: no test file "
        "nests that deep"
    )


def test_an_empty_list_is_one_level_deep_through_an_alias() -> None:
    """A chain of aliases ending in `[]` is as deep as one ending in `[x]`: 99 lines and the
    top mapping are 100 levels, the bound."""
    chain = "a0: &a0 []\n" + "".join(f"a{i}: &a{i} [*a{i - 1}]\n" for i in range(1, 99))
    data = read_yaml.load(chain, name="c.yaml", limits=STACK_FILE, schema=read_yaml.CORE).data
    assert isinstance(data, dict) and data["a0"] == [] and len(data) == 99


def test_a_file_linked_out_of_its_root_is_refused_naming_the_root(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (tmp_path / "elsewhere.yaml").write_text("a: 1\n")
    (root / "Pulumi.dev.yaml").symlink_to(tmp_path / "elsewhere.yaml")
    with pytest.raises(FileRefusedError) as err:
        read_yaml.read(
            root / "Pulumi.dev.yaml",
            name="Pulumi.dev.yaml",
            limits=STACK_FILE,
            schema=read_yaml.CORE,
            root=root,
        )
    assert str(err.value) == (
        f"Pulumi.dev.yaml: a symlink that leads outside {root}; put the file itself in "
        f"{root} instead of a link to a file elsewhere"
    )


def test_an_undefined_alias_in_a_later_manifest_document_is_named_as_such() -> None:
    """Not as a second document: a manifest holds many."""
    call = partial(
        read_yaml.parse_all,
        "a: 1\n---\nb: *nope\n",
        name="m.yaml",
        limits=SMALL,
        schema=read_yaml.SAFE,
    )
    with pytest.raises(yaml.composer.ComposerError) as err:
        call()
    assert (err.value.problem, str(err.value.problem_mark).split(",")[0]) == (
        "found undefined alias 'nope'",
        '  in "m.yaml"',
    )
