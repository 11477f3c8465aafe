"""`bench/plan_all.py` runs (its CI smoke run, `--runs 1`) and prints both rows, the ratios
and the load; no time is asserted."""

from __future__ import annotations

import pytest

from bench.plan_all import main


def test_one_run_of_each_prints_both_rows_and_the_ratios(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--runs", "1", "--stack", "workstation"]) == 0
    out = capsys.readouterr().out
    rows = [line.split()[:3] for line in out.splitlines() if line.startswith("plan ")]
    assert [" ".join(row[:2]) for row in rows] == ["plan workstation", "plan --all"]
    assert "load average before: " in out and "load average after: " in out
    assert "all / workstation: wall " in out and "peak RSS " in out
