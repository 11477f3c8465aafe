"""Errors a user can fix.

Every failure caused by input (stack config, recipe catalogs, snapshots) is raised as a
`GpuCiError` subclass whose message already says which key or file is wrong and how to fix
it. Entry points print the message alone, never a traceback.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path


class GpuCiError(Exception):
    """An input problem the user can fix; `str(err)` is the complete message."""


def did_you_mean(value: str, choices: Iterable[str], *, cutoff: float = 0.6) -> str | None:
    """The closest of `choices` to `value`, or None when nothing is close enough."""
    options = [str(c) for c in choices]
    matches = difflib.get_close_matches(str(value), options, n=1, cutoff=cutoff)
    if not matches:
        # Case-only slips ("vm.gpu.a10.1") are near misses too.
        folded = {o.casefold(): o for o in options}
        return folded.get(str(value).casefold())
    return matches[0]


def write_output(path: Path, text: str, flag: str) -> None:
    """Write a file the user named on the command line, or fail naming the flag, the path
    and why (a missing folder, a folder given as the file, no permission)."""
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as err:
        reason = err.strerror or str(err)
        hint = ""
        if isinstance(err, FileNotFoundError):
            hint = f"; create {path.parent} first"
        elif isinstance(err, IsADirectoryError):
            hint = "; give a file name, not a folder"
        raise GpuCiError(f"{flag} {path}: cannot write it ({reason}){hint}") from None
