"""Text that reaches a CI log or a workflow command, escaped for where it goes.

A GitHub Actions runner reads `::command::` at the start of a line and the legacy `##[command]`
anywhere in a line (actions/runner `ActionCommand.cs`, TryParse), so a value of a user's (a
stack name, a file's text, an input) printed raw could mask a log, set an output or forge an
annotation. What gpu-ci prints of such a value goes through `escape_log`.
"""

from __future__ import annotations


def escape_data(text: str) -> str:
    """A workflow command's message: % CR LF escaped, so that a value with a line break
    stays in its one annotation and cannot start a workflow command of its own
    (@actions/core packages/core/src/command.ts @a944251, escapeData)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property (`title=`): the message's escapes, and `:` and `,`
    (command.ts, escapeProperty)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def escape_log(text: str) -> str:
    """Text on a log line of ours: one line (escape_data), and `##[`, which the runner reads
    as a command anywhere in a line (ActionCommand.cs, TryParse), broken as `##%5B`."""
    return escape_data(text).replace("##[", "##%5B")
