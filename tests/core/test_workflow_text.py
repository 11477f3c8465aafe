"""What gpu-ci prints of a user's value cannot become a GitHub Actions workflow command.

The escapes are @actions/core's (packages/core/src/command.ts @a944251, escapeData and
escapeProperty); the runner reads `::command::` at a line's start and `##[command]` anywhere
in a line (actions/runner src/Runner.Worker/ActionCommandManager.cs, ActionCommand.cs
TryParse), so a log line must hold no line break and no `##[`."""

from __future__ import annotations

import pytest

from core.workflow_text import escape_data, escape_log, escape_property


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("plain text: a, b", "plain text: a, b"),
        ("100%", "100%25"),
        ("a\nb", "a%0Ab"),
        ("a\rb", "a%0Db"),
        # % first, so the escapes it makes are not escaped again (command.ts's order)
        ("x\r\n::set-output name=a::%0A", "x%0D%0A::set-output name=a::%250A"),
    ],
    ids=["plain", "percent", "line-feed", "carriage-return", "all-three"],
)
def test_a_message_is_escaped_as_actions_core_escapes_data(text: str, escaped: str) -> None:
    assert escape_data(text) == escaped


def test_a_property_also_escapes_its_colons_and_commas() -> None:
    assert escape_property("file: a,b\n50%") == "file%3A a%2Cb%0A50%25"


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("error: stack x", "error: stack x"),
        ("a ##[add-mask]secret", "a ##%5Badd-mask]secret"),
        ("x\n::warning::forged", "x%0A::warning::forged"),
        ("# [not a command] ##", "# [not a command] ##"),
        ("50% ##[group]\r", "50%25 ##%5Bgroup]%0D"),
    ],
    ids=["plain", "legacy-command", "line-break", "no-legacy-marker", "all"],
)
def test_a_log_line_stays_one_line_with_no_legacy_command(text: str, escaped: str) -> None:
    assert escape_log(text) == escaped
