"""What GitHub's runner makes of a step's output, for the tests: the lines it takes as
workflow commands, and the entries of a GITHUB_OUTPUT or GITHUB_ENV file.

Re-implemented from actions/runner (an oracle, not the action's code):
- src/Runner.Common/ActionCommand.cs @079cdb1d: TryParseV2 (`::NAME PROPS::DATA` once
  leading whitespace is trimmed; properties split at `,`, `%3A` `%2C` `%0D` `%0A` `%25`
  unescaped; data `%0D` `%0A` `%25`) and TryParse (`##[NAME PROPS]DATA` anywhere in the
  line; properties split at `;`);
- src/Runner.Worker/ActionCommandManager.cs @02523b9a: TryProcessCommand (v2 first, then
  v1; a registered name only; after `stop-commands` every command is ignored until one
  named after its token);
- src/Runner.Worker/FileCommandManager.cs @28a63010: EnvFileKeyValuePairs (`KEY=VALUE`,
  or `KEY<<DELIMITER` and the lines up to DELIMITER; on Linux lines end at LF only).
A step's output reaches the runner line by line as .NET's ReadLine splits it: at CR, LF or
CR LF.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

REGISTERED = frozenset(
    {
        "add-mask",
        "add-matcher",
        "add-path",
        "debug",
        "echo",
        "endgroup",
        "error",
        "group",
        "notice",
        "remove-matcher",
        "save-state",
        "set-env",
        "set-output",
        "stop-commands",
        "warning",
    }
)
"""The runner's command extensions (Runner.Worker/ActionCommandManager.cs and siblings)."""

_DATA = (("%0D", "\r"), ("%0A", "\n"), ("%25", "%"))
_PROPERTY = (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%"))
_V1 = (("%3B", ";"), ("%0D", "\r"), ("%0A", "\n"), ("%5D", "]"), ("%25", "%"))


@dataclass(frozen=True)
class Command:
    name: str
    properties: dict[str, str] = field(default_factory=dict)
    data: str = ""


def _unescape(text: str, mappings: tuple[tuple[str, str], ...]) -> str:
    for escaped, token in mappings:
        text = text.replace(escaped, token)
    return text


def _properties(text: str, separator: str, mappings: tuple[tuple[str, str], ...]) -> dict[str, str]:
    found = {}
    for item in text.split(separator):
        key, sep, value = item.partition("=")
        if sep and key and value:
            found[key] = _unescape(value, mappings)
    return found


def parse(line: str, registered: frozenset[str] | set[str] = REGISTERED) -> Command | None:
    """The command `line` is to the runner (v2, else v1), or None."""
    message = line.lstrip()
    if message.startswith("::"):
        end = message.find("::", 2)
        if end >= 0:
            name, space, rest = message[2:end].partition(" ")
            if name.lower() in registered:
                props = _properties(rest.strip(), ",", _PROPERTY) if space else {}
                return Command(name, props, _unescape(message[end + 2 :], _DATA))
    start = line.find("##[")
    if start < 0:
        return None
    close = line.find("]", start)
    if close < 0:
        return None
    name, space, rest = line[start + 3 : close].partition(" ")
    if name.lower() not in registered:
        return None
    props = _properties(rest, ";", _V1) if space else {}
    return Command(name, props, _unescape(line[close + 1 :], _V1))


def lines_of(text: str) -> list[str]:
    return re.split(r"\r\n|\r|\n", text)


@dataclass(frozen=True)
class Processed:
    """The commands the runner carried out, and the stop token still open at the end."""

    commands: list[Command]
    stopped: str | None

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.commands]

    def annotations(self, level: str = "error") -> list[Command]:
        return [c for c in self.commands if c.name == level]


def process(text: str) -> Processed:
    """The commands the runner carries out for a stream of output (stop-commands and its
    resume token are left out of the list)."""
    registered = set(REGISTERED)
    stopped: str | None = None
    done = []
    for line in lines_of(text):
        command = parse(line, registered)
        if command is None:
            continue
        if stopped is not None:
            if command.name.lower() == stopped.lower():
                registered.discard(stopped.lower())
                stopped = None
            continue
        if command.name.lower() == "stop-commands":
            stopped = command.data
            registered.add(stopped.lower())
            continue
        done.append(command)
    return Processed(done, stopped)


def file_entries(text: str) -> list[tuple[str, str]]:
    """The entries of a GITHUB_OUTPUT or GITHUB_ENV file, in order."""
    entries = []
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line:
            continue
        equals, heredoc = line.find("="), line.find("<<")
        if equals >= 0 and (heredoc < 0 or equals < heredoc):
            key, _, value = line.partition("=")
            entries.append((key, value))
            continue
        assert heredoc >= 0, f"invalid format {line!r}"
        key, _, delimiter = line.partition("<<")
        assert key and delimiter, f"invalid format {line!r}"
        held: list[str] = []
        while True:
            assert index < len(lines), f"no delimiter {delimiter!r}"
            index += 1
            if lines[index - 1] == delimiter:
                break
            held.append(lines[index - 1])
        entries.append((key, "\n".join(held)))
    return entries
