"""The workflow commands the configure step prints: `::error`/`::warning` annotations
(escaped as GitHub reads them), the step's log line, `die`, and its step outputs."""

from __future__ import annotations

import os
import sys
from typing import NoReturn

STEP = "configure"
TITLE = f"gpu-ci step {STEP}"


def escape_data(text: str) -> str:
    """A workflow command's message: % CR LF escaped, so that a value with a line break
    stays in its one annotation and cannot start a workflow command of its own."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property (`title=`): the message's escapes, and `:` and `,`."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotate(level: str, message: str, title: str = TITLE) -> None:
    print(f"::{level} title={escape_property(title)}::{escape_data(message)}", flush=True)


def die(cause: str) -> NoReturn:
    print(f"gpu-ci step {STEP}: {cause}", file=sys.stderr, flush=True)
    annotate("error", cause)
    sys.exit(1)


def log(message: str) -> None:
    print(f"gpu-ci step {STEP}: {message}", file=sys.stderr, flush=True)


def write_output(key: str, value: str) -> None:
    target = os.environ.get("GITHUB_OUTPUT")
    if target:
        with open(target, "a", encoding="utf-8") as out:
            out.write(f"{key}={value}\n")
