"""The one careful reader of JSON: every JSON file or text the program reads from outside
itself goes through it (`tests/test_reader_architecture.py` keeps it so).

Python's `json` module recurses once per nested array or object, so a document nested a few
thousand deep ends in `RecursionError`, a traceback. Before it parses, the text's nesting
is measured by a flat scan of its brackets, strings skipped (a JSON string holds no raw
newline, so the scan's line numbers are the file's), and refused past `Limits.max_depth`.
Files are read by `core.read_files` first (a regular file, inside its root, within
`max_bytes`). JSON has no aliases: its size bounds how many values it holds.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from core.errors import GpuCiError
from core.read_files import read_bytes
from core.read_limits import Limits

_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


class JsonRefusedError(GpuCiError):
    """A JSON document the careful reader refuses; one line naming it and the fix."""


def depth_problem(text: str, max_depth: int) -> int | None:
    """The line where `text` first nests deeper than `max_depth`, or None."""
    bare = _STRING.sub('""', text)
    depth = 0
    for match in _BRACKET.finditer(bare):
        if match.group() in "[{":
            depth += 1
            if depth > max_depth:
                return bare.count("\n", 0, match.start()) + 1
        else:
            depth -= 1
    return None


def parse(text: str, *, name: str, limits: Limits) -> Any:
    """The JSON value in `text`; raises JsonRefusedError past a bound and `json.JSONDecodeError`
    for what is not JSON (callers word it their way)."""
    if len(text) > limits.max_bytes:
        raise JsonRefusedError(
            f"{name}: {len(text)} characters, more than the {limits.max_bytes} a "
            f"{limits.kind} may hold ({limits.reason}); make it smaller"
        )
    line = depth_problem(text, limits.max_depth)
    if line is not None:
        raise JsonRefusedError(
            f"{name}: values nest more than {limits.max_depth} levels deep (line {line}); "
            f"no {limits.kind} nests that deep ({limits.reason})"
        )
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:  # the one other failure: an integer past Python's 4,300 digits
        raise JsonRefusedError(
            f"{name}: an integer of more than 4300 digits; write it as a string if it is text"
        ) from None


def load(text: str, *, name: str, limits: Limits) -> Any:
    """The JSON value in `text`, every error one line naming `name`."""
    try:
        return parse(text, name=name, limits=limits)
    except json.JSONDecodeError as err:
        raise JsonRefusedError(
            f"{name}: not JSON ({err.msg} at line {err.lineno}, column {err.colno})"
        ) from None


def read(
    path: Path, *, name: str, limits: Limits, root: Path | None = None, where: str = ""
) -> Any:
    """The JSON value in file `path` (UTF-8), every error one line naming `name`."""
    raw = read_bytes(path, name=name, limits=limits, root=root, where=where)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise JsonRefusedError(f"{name}: byte 0x{raw[err.start]:02x} is not UTF-8") from None
    return load(text, name=name, limits=limits)
