"""What the exporter takes from a job of GitHub's API, and its record of observed jobs.

The job fields and statuses are GitHub's `job` schema (github/rest-api-description,
`components/schemas/job`, extracted in ../shared/upstream/schemas/github-rest-api); every
item below that is not built by hand is GitHub's own example (github_fixtures.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from components.observability.queue_exporter.jobs import (
    FORGET_AFTER_S,
    MAX_RECORD,
    MAX_STATE_BYTES,
    Job,
    Seen,
    label_of,
    load_seen,
    parse_job,
    timestamp,
)
from tests.components.observability import github_fixtures as gh

T0 = 1_796_119_200.0  # 2026-12-01T10:00:00Z


@pytest.mark.parametrize(
    ("text", "epoch"),
    [
        ("2026-12-01T10:00:00Z", T0),
        ("2026-12-01T10:00:00.987Z", T0),  # fractions dropped, never rounded up
        ("2026-12-01T12:30:00+02:30", T0),  # an offset east of UTC
        ("2026-12-01T04:15:00-05:45", T0),  # and west
        ("2026-12-01T20:00:00+10:00", T0),
        ("2026-11-30T22:30:00-11:30", T0),
        ("2026-12-01T10:00:00+00:00", T0),
        ("1970-01-01T00:00:07Z", 7.0),
    ],
)
def test_a_github_timestamp_is_epoch_seconds(text: str, epoch: float) -> None:
    assert timestamp(text) == epoch


@pytest.mark.parametrize(
    "value",
    [
        None,
        1796119200,
        "2026-12-01 10:00:00Z",
        "2026-12-01T10:00:00",
        "x2026-12-01T10:00:00Z",
        "2026-13-01T10:00:00Z",
        "0000-01-01T00:00:00Z",
    ],
)
def test_anything_else_is_no_timestamp(value: object) -> None:
    assert timestamp(value) is None


def _item(**changes: Any) -> dict[str, Any]:
    item = gh.job(7, 70, ["self-hosted", "gpu-a10"], T0, started=T0 + 90, runner="r-1")
    item.update(changes)
    return item


def test_a_job_keeps_the_fields_the_queue_time_needs() -> None:
    assert parse_job(_item()) == Job(
        id=7,
        run_id=70,
        status="in_progress",
        conclusion=None,
        created=T0,
        started=T0 + 90,
        labels=("self-hosted", "gpu-a10"),
        runner="r-1",
    )
    done = gh.job(8, 80, ["gpu-a10"], T0, completed=T0 + 60, conclusion="cancelled")
    assert parse_job(done) == Job(8, 80, "completed", "cancelled", T0, T0, ("gpu-a10",), None)


def test_fields_github_may_leave_null_or_empty_are_none() -> None:
    job = parse_job(_item(started_at=None, runner_name="", conclusion=5))
    assert isinstance(job, Job)
    assert (job.started, job.runner, job.conclusion) == (None, None, None)
    unreadable = parse_job(_item(started_at="yesterday"))
    assert isinstance(unreadable, Job) and unreadable.started is None


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"id": True}, "missing_field"),
        ({"id": 0}, "missing_field"),
        ({"id": -3}, "missing_field"),
        ({"id": "7"}, "missing_field"),
        ({"run_id": False}, "missing_field"),
        ({"run_id": "70"}, "missing_field"),
        ({"status": "done"}, "missing_field"),
        ({"labels": "gpu-a10"}, "missing_field"),
        ({"labels": ["gpu-a10", 3]}, "bad_label"),
        ({"created_at": "today"}, "bad_timestamp"),
        ({"created_at": None}, "bad_timestamp"),
    ],
    ids=lambda v: json.dumps(v) if isinstance(v, dict) else str(v),
)
def test_a_malformed_job_is_skipped_with_its_reason(changes: dict[str, Any], reason: str) -> None:
    assert parse_job(_item(**changes)) == reason


def test_the_first_job_id_is_a_job() -> None:
    job = parse_job(_item(id=1, run_id=1))
    assert isinstance(job, Job) and (job.id, job.run_id) == (1, 1)


def test_a_job_without_an_id_or_a_run_or_not_an_object() -> None:
    item = _item()
    assert parse_job({k: v for k, v in item.items() if k != "run_id"}) == "missing_field"
    assert parse_job({k: v for k, v in item.items() if k != "id"}) == "missing_field"
    assert parse_job([item]) == "not_an_object"


@pytest.mark.parametrize(
    "status", ["queued", "in_progress", "completed", "waiting", "requested", "pending"]
)
def test_every_status_of_githubs_schema_is_a_job(status: str) -> None:
    job = parse_job(_item(status=status))
    assert isinstance(job, Job) and job.status == status


def test_the_label_is_the_first_watched_one_the_job_asks_for_in_any_case() -> None:
    job = parse_job(_item(labels=["self-hosted", "GPU-A10", "Linux"]))
    assert isinstance(job, Job)
    assert label_of(job, ("gpu-h100", "gpu-a10", "linux")) == "gpu-a10"
    assert label_of(job, ("LINUX", "gpu-a10")) == "LINUX"  # the watched spelling is kept
    assert label_of(job, ("gpu-h100",)) is None


def test_a_job_not_listed_for_a_day_is_forgotten() -> None:
    seen = Seen(jobs={1: T0, 2: T0 + 1, 3: T0 + 2})
    seen.forget_old(T0 + FORGET_AFTER_S + 1)
    assert seen.jobs == {2: T0 + 1, 3: T0 + 2}  # exactly a day is kept


def test_the_record_keeps_only_the_most_recently_listed_jobs_past_its_bound() -> None:
    count = MAX_RECORD + 2
    seen = Seen(jobs={i: T0 + (i + 3) % count / 10 for i in range(count)})
    seen.forget_old(T0 + count / 10)  # all listed within the day
    assert len(seen.jobs) == MAX_RECORD
    # The two listed longest ago (at T0 and T0 + 0.1) went: jobs MAX_RECORD - 1 and MAX_RECORD.
    assert MAX_RECORD - 1 not in seen.jobs and MAX_RECORD not in seen.jobs
    assert {0, MAX_RECORD + 1, MAX_RECORD - 2} <= set(seen.jobs)


def test_the_record_is_written_whole_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "seen.json"
    path.write_text("the previous record")
    seen = Seen(jobs={12: T0, 5: T0 + 0.5}, open_runs={"o/r": [3, 4]}, watermark=T0 + 60)
    seen.dump(str(path))
    assert path.read_text() == (
        '{"version":1,"watermark":1796119260.0,"jobs":{"12":1796119200.0,"5":1796119200.5},'
        '"openRuns":{"o/r":[3,4]}}'
    )
    assert os.listdir(tmp_path) == ["seen.json"]  # the temporary file was renamed over it
    assert load_seen(str(path)) == (seen, None)
    Seen().dump(str(path))
    assert load_seen(str(path)) == (Seen(), None)


def test_no_record_yet_is_an_empty_one_without_a_message(tmp_path: Path) -> None:
    assert load_seen(str(tmp_path / "seen.json")) == (Seen(), None)


def test_a_record_that_cannot_be_read_is_one_message(tmp_path: Path) -> None:
    assert load_seen(str(tmp_path)) == (
        Seen(),
        f"{tmp_path}: cannot be read (Is a directory); starting afresh",
    )


def _record(**changes: Any) -> dict[str, Any]:
    return {"version": 1, "watermark": T0, "jobs": {"1": T0}, "openRuns": {"o/r": [2]}, **changes}


@pytest.mark.parametrize(
    "raw",
    [
        _record(version=2),
        _record(jobs={"x": T0}),
        _record(jobs={"1": None}),
        _record(jobs=[1]),
        _record(openRuns={"o/r": ["a"]}),
        _record(watermark="soon"),
        {k: v for k, v in _record().items() if k != "openRuns"},
        {k: v for k, v in _record().items() if k != "watermark"},
        [1],
    ],
    ids=json.dumps,
)
def test_a_record_this_exporter_did_not_write_starts_afresh(tmp_path: Path, raw: object) -> None:
    path = tmp_path / "seen.json"
    path.write_text(json.dumps(raw))
    assert load_seen(str(path)) == (
        Seen(),
        f"{path}: not a record this exporter wrote; starting afresh",
    )


def test_a_record_over_the_bound_is_not_parsed(tmp_path: Path) -> None:
    record = json.dumps(_record())
    path = tmp_path / "seen.json"
    path.write_text(record + " " * (MAX_STATE_BYTES - len(record)))
    assert load_seen(str(path)) == (
        Seen(jobs={1: T0}, open_runs={"o/r": [2]}, watermark=T0),
        None,
    )
    with path.open("a") as handle:
        handle.write(" ")
    assert load_seen(str(path))[1] == f"{path}: not a record this exporter wrote; starting afresh"


def test_a_record_without_a_watermark_yet() -> None:
    assert Seen().watermark is None and Seen().jobs == {} and Seen().open_runs == {}
