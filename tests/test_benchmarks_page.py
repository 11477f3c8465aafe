"""docs/benchmarks.md's facts of the tree are the tree's (issue 41): a stale page fails.

Timings are a day's measurements; what they are about is not. The page states, in its
"stacks today" section, the number of example stacks, each plan's resource count (the
examples and the generated stacks its tables measure) and which provider SDKs `python -m
stacks plan STACK` imports. Each is computed here (`bench/stack_facts.py`: plans in-process,
imports from `sys.modules` of a fresh process after a plan) and compared with the page.
Elsewhere the page may give counts only as of a measurement ("resources then") and makes
no claim about imports.
"""

from __future__ import annotations

import re

import pytest

from bench import stack_facts
from stacks.offline.plan import REPO
from stacks.offline.stack_file.read import stacks_here

PAGE = REPO / "docs" / "benchmarks.md"
SECTION = "## The stacks today"
WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
NUMBERS = {word: i for i, word in enumerate(WORDS)}
EXAMPLES = stacks_here(REPO)
FIX = "regenerate it: .venv/bin/python bench/stack_facts.py"


def _section(text: str) -> str:
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    return text[start : end if end > 0 else len(text)]


def _table(text: str, header: str) -> dict[str, list[str]]:
    """The rows (first cell -> cells) of the table under `header`."""
    lines = text.splitlines()
    start = lines.index(header) + 2
    rows: dict[str, list[str]] = {}
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[cells[0]] = cells
    return rows


def _tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    """Every markdown table of `text`: (header cells, rows of cells)."""
    found: list[tuple[list[str], list[list[str]]]] = []
    lines = text.splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.startswith("|") and re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", lines[i + 1].strip()):
            header = [c.strip() for c in line.strip("|").split("|")]
            rows = []
            for row in lines[i + 2 :]:
                if not row.startswith("|"):
                    break
                rows.append([c.strip() for c in row.strip("|").split("|")])
            found.append((header, rows))
    return found


def test_every_count_of_example_stacks_is_the_trees() -> None:
    text = PAGE.read_text()
    said = re.findall(r"\b(\w+) example stacks\b", text)
    assert said, "the page names how many example stacks there are"
    for word in said:
        number = NUMBERS.get(word.lower(), int(word) if word.isdigit() else -1)
        assert number == len(EXAMPLES), f"{PAGE.name}: {word!r} example stacks; {EXAMPLES}"


def test_each_example_stacks_resources_are_its_plans() -> None:
    rows = _table(_section(PAGE.read_text()), stack_facts.EXAMPLE_HEADER)
    assert sorted(rows) == EXAMPLES, FIX
    counts = stack_facts.resource_counts(REPO, EXAMPLES)
    assert {s: int(cells[1]) for s, cells in rows.items()} == counts, FIX


def test_each_generated_stacks_resources_are_its_plans() -> None:
    rows = _table(_section(PAGE.read_text()), stack_facts.GENERATED_HEADER)
    names = [f"{kind}-{n}" for kind, n in stack_facts.GENERATED]
    assert list(rows) == names, FIX
    assert {s: int(cells[2]) for s, cells in rows.items()} == stack_facts.generated_counts(), FIX


@pytest.mark.parametrize("stack", EXAMPLES)
def test_the_sdks_a_stacks_plan_imports_are_the_pages(stack: str) -> None:
    rows = _table(_section(PAGE.read_text()), stack_facts.EXAMPLE_HEADER)
    assert rows[stack][2].split(", ") == stack_facts.imported_sdks(stack), FIX


def test_no_other_table_or_sentence_states_todays_counts_or_imports() -> None:
    """Counts outside the section are as of a measurement ("resources then"); claims about
    which SDK a stack loads live in the section's table only."""
    text = PAGE.read_text()
    section = _section(text)
    rest = text.replace(section, "")
    for header, _ in _tables(rest):
        assert "resources" not in header, f"a table outside {SECTION!r} says `resources`: {header}"
    sdk = re.compile(r"\b(loads?|imports?|loaded|imported)\b.*\bpulumi-(oci|kubernetes|command)")
    claims = [line for line in rest.splitlines() if sdk.search(line)]
    assert not claims, f"say which SDKs a plan imports in {SECTION!r}'s table: {claims}"
