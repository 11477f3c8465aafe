"""`bench/queue_exporter_calls.py` runs (a short day) and every started job is observed once;
the call counts it prints are the benchmark's, not asserted."""

from __future__ import annotations

import pytest

from bench.queue_exporter_calls import main


def test_a_short_run_observes_every_started_job_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--hours", "1", "--repos", "3", "--jobs-per-day", "96"]) == 0
    out = capsys.readouterr().out
    assert "jobs: 4 created, 4 started, 4 observed" in out
    assert "counted against the primary limit: " in out
