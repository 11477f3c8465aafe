"""`core.read_yaml`'s bounds at their edges: every value counts toward `max_values` (a
scalar as much as a collection), nesting is measured however the collections before it
closed, and depth through aliases counts as the expanded document's depth. Each refusal is
one line naming the document, the line and the fix; one value or level under the bound
reads."""

from __future__ import annotations

import pytest

from core import read_yaml
from core.read_limits import STACK_FILE
from core.yaml_source import YamlRefusedError

TOO_MANY = (
    "big.yaml: more than 100000 values (line {line}); a stack config holds far fewer (this "
    "project's stack files are under 8 KiB and nest at most 8 deep): make it smaller"
)
TOO_DEEP = (
    "big.yaml: values nest more than 100 levels deep (line {line}); flatten them: no stack "
    "config nests that deep"
)


def load(text: str) -> object:
    return read_yaml.load(text, name="big.yaml", limits=STACK_FILE, schema=read_yaml.CORE).data


def refused(text: str) -> str:
    with pytest.raises(YamlRefusedError) as err:
        load(text)
    return str(err.value)


def items(count: int) -> str:
    return "".join("- 0\n" for _ in range(count))


def test_a_list_of_150000_scalars_is_refused() -> None:
    """Its values are all scalars: the list is one value, each item another."""
    assert (STACK_FILE.max_values, STACK_FILE.max_depth) == (100_000, 100)
    assert refused(items(150_000)) == TOO_MANY.format(line=100_000)
    flow = "[" + ", ".join("0" for _ in range(150_000)) + "]"
    assert refused(flow) == TOO_MANY.format(line=1)


def test_the_value_bound_counts_the_list_and_each_scalar() -> None:
    assert load(items(99_999)) == [0] * 99_999  # 100,000 values with the list
    assert refused(items(100_000)) == TOO_MANY.format(line=100_000)


def test_nesting_counts_from_where_it_is_whatever_closed_before() -> None:
    """Collections that opened and closed before a deep value leave no depth behind, and
    take none away: 100 levels under the top mapping is refused after an empty list too."""
    deep = "[" * 100 + "]" * 100
    assert refused(f"a: []\nb: {deep}\n") == TOO_DEEP.format(line=2)
    assert refused(f"a: [[], [[]], {{}}]\nb: {deep}\n") == TOO_DEEP.format(line=2)
    shallower = "[" * 99 + "]" * 99
    nested: list[object] = []
    for _ in range(98):
        nested = [nested]
    assert load(f"a: []\nb: {shallower}\n") == {"a": [], "b": nested}


def chain(lines: int) -> str:
    """`lines` anchored lists, each holding the one before: the text nests two deep, the
    document it stands for one level deeper per line."""
    return "a0: &a0 [x]\n" + "".join(f"a{i}: &a{i} [*a{i - 1}]\n" for i in range(1, lines))


def test_a_150_line_alias_chain_is_refused_by_its_depth_through_aliases() -> None:
    """Line i's list is i deep once its aliases are expanded: the 101st is refused."""
    assert refused(chain(150)) == TOO_DEEP.format(line=101)


def test_an_alias_chain_to_the_bound_reads_and_one_more_line_does_not() -> None:
    """99 lines: the last list is 99 deep, 100 with the top mapping. 100 lines: the top
    mapping (line 1) is the 101st level."""
    data = load(chain(99))
    assert isinstance(data, dict) and len(data) == 99
    value = data["a98"]
    for _ in range(98):
        (value,) = value
    assert value == ["x"]
    assert refused(chain(100)) == TOO_DEEP.format(line=1)


def test_aliases_count_each_use_toward_the_value_bound() -> None:
    """A list of 10,000 values (itself and 9,999 items) used once more through each of 9
    aliases: with the mapping, its keys and the aliases' list, 100,004 values; with 8
    aliases, 90,004."""
    text = "a: &a [" + ", ".join("0" for _ in range(9_999)) + "]\n"
    text += "b: [" + ", ".join("*a" for _ in range(9)) + "]\n"
    assert refused(text) == (
        "big.yaml: aliases expand the value at line 1 past 100000 values; write the values "
        "out instead of nesting aliases"
    )
    fewer = "a: &a [" + ", ".join("0" for _ in range(9_999)) + "]\n"
    fewer += "b: [" + ", ".join("*a" for _ in range(8)) + "]\n"
    assert len(load(fewer)["b"]) == 8  # type: ignore[index]


def test_depth_counts_on_after_a_collection_closes_deep_inside() -> None:
    """60 lists deep, an empty list, then 41 more inside its sibling: 101 deep."""
    deep = "[" * 60 + "[], " + "[" * 41 + "]" * 41 + "]" * 60
    assert refused(deep) == TOO_DEEP.format(line=1)
    assert len(load("[" * 60 + "[], " + "[" * 40 + "]" * 40 + "]" * 60)) == 1  # type: ignore[arg-type]


def test_values_through_aliases_are_counted_exactly_to_the_bound() -> None:
    """The mapping, its 2 keys, the alias list and a list of 24,999 values (itself and
    24,998 items) used once more through each of 3 aliases: 4 + 4 x 24,999 = 100,000
    values, the bound; one more item is one too many."""
    text = "a: &a [" + ", ".join("0" for _ in range(24_998)) + "]\nb: [*a, *a, *a"
    data = load(text + "]\n")
    assert len(data["b"]) == 3  # type: ignore[index]
    assert refused(text + ", 0]\n") == (
        "big.yaml: aliases expand the value at line 1 past 100000 values; write the values "
        "out instead of nesting aliases"
    )
