"""Parsing the result line a step prints last."""

from __future__ import annotations

import pytest

from components.host.result import StepResultError, parse_result


def test_last_line_wins_and_extras_are_kept() -> None:
    out = 'noise\n{"step":"tools","changed":true,"installed":["kind"]}\n\n'
    result = parse_result(out, step="tools")
    assert result.changed is True
    assert result.model_extra == {"installed": ["kind"]}


def test_wrong_step_or_garbage_is_an_error() -> None:
    with pytest.raises(StepResultError, match="belongs to step 'docker'"):
        parse_result('{"step":"docker","changed":false}', step="verify")
    with pytest.raises(StepResultError, match="not JSON"):
        parse_result("rebooting...")
    with pytest.raises(StepResultError, match="printed nothing"):
        parse_result("")
