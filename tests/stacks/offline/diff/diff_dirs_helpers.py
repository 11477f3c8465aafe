"""`python -m stacks diff BASE_DIR HEAD_DIR` as the folder tests call it: exit code, stdout
and stderr of one run of the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from stacks.offline.cli import main


def run(
    capsys: pytest.CaptureFixture[str], base: Path, head: Path, *flags: str
) -> tuple[int, str, str]:
    """`python -m stacks diff BASE HEAD FLAGS...`: (exit code, stdout, stderr)."""
    code = main(["diff", str(base), str(head), *flags])
    captured = capsys.readouterr()
    return code, captured.out, captured.err
