"""The docs hold together: README.md and every docs/*.md.

Every relative link names a file or folder of the checkout, and every `#anchor` (on the
same page or another) is a heading of its target as GitHub slugs it. Every page is linked
from the README and from the docs index, and opens with what the reader can do after
reading it. The README stays short (the rest is on the pages). References to a page (or a
README anchor) in the code's comments and docstrings resolve as well.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from urllib.parse import unquote

import pytest

from stacks.offline.plan import REPO

README = REPO / "README.md"
DOCS = REPO / "docs"
INDEX = DOCS / "README.md"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
TOPICS = [
    "getting-started.md",
    "configuration.md",
    "day-2.md",
    "ci-integration.md",
    "observability.md",
    "recipes.md",
    "security.md",
    "architecture.md",
    "benchmarks.md",
    "contributing.md",
]
README_MAX_LINES = 300

_FENCE = re.compile(r"^(```|~~~).*?^\1\s*$", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")
_MD_LINK_TEXT = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def _rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def prose(text: str) -> str:
    """The text outside fenced code blocks (a `# comment` in a block is no heading)."""
    return _FENCE.sub("", text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading (github-slugger): the rendered text, lower-cased,
    punctuation and symbols dropped (`-` and `_` kept), each space a hyphen."""
    text = _MD_LINK_TEXT.sub(r"\1", heading).replace("`", "").lower()
    kept = (
        c
        for c in text
        if c in "-_ " or unicodedata.category(c)[0] in "LNM"  # letters, numbers, marks
    )
    return "".join(kept).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every anchor of a page: its headings' slugs (a repeated one gets -1, -2, ...)."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    text = prose(page.read_text(encoding="utf-8"))
    for heading in _HEADING.findall(text):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found | set(_HTML_ANCHOR.findall(text))


def links(page: Path) -> list[str]:
    """The link targets of a page's prose, code spans left out."""
    text = _CODE_SPAN.sub("code", prose(page.read_text(encoding="utf-8")))
    return _LINK.findall(text)


def broken(page: Path, target: str) -> str | None:
    """Why a link of `page` does not resolve, or None."""
    if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:: not ours to check
        return None
    path, _, anchor = target.partition("#")
    resolved = (page.parent / unquote(path)).resolve() if path else page
    if not resolved.is_relative_to(REPO):
        return f"{target}: outside the checkout"
    if not resolved.exists():
        return f"{target}: no {_rel(resolved)}"
    if anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
        return f"{target}: {_rel(resolved)} has no heading #{anchor}"
    return None


def test_the_slugs_are_githubs() -> None:
    assert slug("Stack config (`gpu-ci:` namespace)") == "stack-config-gpu-ci-namespace"
    assert slug("Day 2: what each change does to live resources") == (
        "day-2-what-each-change-does-to-live-resources"
    )
    assert slug("Try it: two commands on a fresh machine (only Python 3.11+)") == (
        "try-it-two-commands-on-a-fresh-machine-only-python-311"
    )
    assert slug("The set-up's critical path") == "the-set-ups-critical-path"
    assert slug("A real `pulumi up`") == "a-real-pulumi-up"
    assert slug("toolkit \u00d7 nvkind \u2192 CDI_rules") == "toolkit--nvkind--cdi_rules"


def test_anchors_skip_code_and_number_repeats(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n```yaml\n# not a heading\n```\n\n## Day 2\n\n## Day 2\n")
    assert anchors(page) == {"title", "day-2", "day-2-1"}


def test_links_are_read_from_prose_only(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("[a](one.md) `[b](two.md)` ![c](c.png)\n\n```\n[d](three.md)\n```\n")
    assert links(page) == ["one.md", "c.png"]


def test_a_broken_link_is_named() -> None:
    page = DOCS / "index-of-nothing.md"  # never read: only its folder is used
    assert broken(page, "getting-started.md#real-use") is None
    assert broken(page, "../README.md") is None
    assert broken(page, "../stacks/config") is None
    assert broken(page, "https://example.com/x.md#y") is None
    assert broken(page, "gone.md") == "gone.md: no docs/gone.md"
    assert broken(page, "day-2.md#day-3") == "day-2.md#day-3: docs/day-2.md has no heading #day-3"
    assert broken(page, "../../elsewhere") == "../../elsewhere: outside the checkout"


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_every_link_and_anchor_resolves(page: Path) -> None:
    found = links(page)
    assert [why for target in found if (why := broken(page, target))] == []


def test_the_pages_link_to_each_other() -> None:
    assert len([t for p in PAGES for t in links(p) if "#" in t]) > 20  # the check has work


def test_every_topic_has_its_page() -> None:
    assert [name for name in TOPICS if not (DOCS / name).is_file()] == []


@pytest.mark.parametrize("index", [README, INDEX], ids=_rel)
def test_every_page_is_linked_from_the_readme_and_the_index(index: Path) -> None:
    linked = {
        (index.parent / target.partition("#")[0]).resolve()
        for target in links(index)
        if not re.match(r"[a-z][a-z0-9+.-]*:", target)
    }
    pages = [p for p in DOCS.glob("*.md") if p != index]
    assert sorted(_rel(p) for p in pages if p.resolve() not in linked) == []


def test_the_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines: move a topic to docs/"


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_every_page_opens_with_what_it_is_for(page: Path) -> None:
    """A title, then a paragraph (not a heading, list, table or code): who it is for."""
    blocks = page.read_text(encoding="utf-8").split("\n\n")
    assert blocks[0].startswith("# ") and "\n" not in blocks[0]
    assert not blocks[1].startswith(("#", "|", "- ", "* ", "1. ", ">", "```")), blocks[1][:80]


_SOURCES = ("*.py", "*.yml", "*.yaml", "*.sh", "*.toml")
_SKIPPED = {".git", ".venv", "out", "node_modules", ".mypy_cache", ".pytest_cache"}
_REFERENCE = re.compile(r"(?<![\w/.-])(docs/[\w-]+\.md|README\.md)(?:#([\w-]+))?")


def _sources() -> list[Path]:
    return sorted(
        path
        for pattern in _SOURCES
        for path in REPO.rglob(pattern)
        if not _SKIPPED & set(path.relative_to(REPO).parts)
        and path != Path(__file__).resolve()  # its own examples of broken links
    )


def test_the_code_points_at_pages_and_anchors_that_exist() -> None:
    """A comment or docstring that sends the reader to a page (`docs/day-2.md#...`)."""
    bad = []
    for path in _sources():
        for match in _REFERENCE.finditer(path.read_text(encoding="utf-8", errors="replace")):
            page, anchor = REPO / match[1], match[2]
            if match[1] == "README.md" and not anchor:
                continue  # "README.md" alone is also any folder's README, or a temp file
            if not page.is_file() or (anchor and anchor not in anchors(page)):
                bad.append(f"{_rel(path)}: {match[0]}")
    assert bad == []
