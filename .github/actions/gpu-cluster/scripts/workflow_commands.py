"""What the action's Python steps print for the runner: `::error`/`::warning` annotations,
the step's log lines, `die`, output that is not the step's own, and step outputs.

The runner reads every line a step prints, stdout and stderr, for workflow commands:
`::NAME PROPS::DATA` at the start of a line (after spaces), and the older `##[NAME]DATA`
anywhere in one (actions/runner src/Runner.Common/ActionCommand.cs @079cdb1, TryParseV2
and TryParse). A value the workflow gave, printed as it is, could be a command of its own
(`::set-output ...`, `##[add-mask]...`), so each printer here makes that impossible:
annotations are escaped as @actions/core escapes them, log lines also break `##[`, the
offline plan's output goes between stop-commands and a random resume token, and a step
output that spans lines goes in the heredoc form with a random delimiter.
"""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path
from typing import NoReturn, TextIO

PROGRAM = Path(__file__).resolve().parents[4]  # the program's folder: `core` (prepare.sh)
if str(PROGRAM) not in sys.path:
    sys.path.append(str(PROGRAM))

from core.workflow_text import escape_data, escape_log, escape_property  # noqa: E402

__all__ = ["escape_data", "escape_log", "escape_property"]

STEP = "configure"
TITLE = f"gpu-ci step {STEP}"


def annotate(level: str, message: str, title: str = TITLE) -> None:
    """On stdout, flushed: before the log lines that follow it (stderr is line-buffered),
    such as the one that counts the problems `above`."""
    print(f"::{level} title={escape_property(title)}::{escape_data(message)}", flush=True)


def log(message: str, step: str = STEP) -> None:
    print(f"gpu-ci step {step}: {escape_log(message)}", file=sys.stderr)


def die(cause: str, step: str = STEP) -> NoReturn:
    log(cause, step)
    annotate("error", cause, f"gpu-ci step {step}")
    sys.exit(1)


def untrusted(text: str, out: TextIO | None = None) -> None:
    """`text`, output that is not the step's own (it may repeat values the workflow gave),
    printed with workflow commands off: `::stop-commands::TOKEN` before it, `::TOKEN::`
    after (ActionCommandManager.cs @02523b9, TryProcessCommand), on stdout, where the
    annotations go, so that the runner reads the three in order. TOKEN is random, so
    nothing in `text` can turn commands back on."""
    if not text:
        return
    stream = out or sys.stdout
    token = f"gpu-ci-{secrets.token_hex(16)}"
    if token in text:
        die("output to print holds the random token that would end it; run the step again")
    body = text if text.endswith("\n") else text + "\n"
    stream.write(f"::stop-commands::{token}\n{body}::{token}::\n")
    stream.flush()


def file_command(key: str, value: str) -> str:
    """`key=value` for GITHUB_OUTPUT or GITHUB_ENV; a value with a line break in the
    heredoc form with a random delimiter, as @actions/core's prepareKeyValueMessage writes
    it, so that no line of it is read as an entry of its own (actions/runner
    src/Runner.Worker/FileCommandManager.cs @28a6301, EnvFileKeyValuePairs)."""
    if "\n" not in value and "\r" not in value:
        return f"{key}={value}\n"
    delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
    if delimiter in value:
        die(f"output {key} holds its own random delimiter; run the step again")
    return f"{key}<<{delimiter}\n{value}\n{delimiter}\n"


def write_output(key: str, value: str, variable: str = "GITHUB_OUTPUT") -> None:
    target = os.environ.get(variable)
    if target:
        with open(target, "a", encoding="utf-8") as out:
            out.write(file_command(key, value))
