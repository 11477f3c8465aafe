"""A job as the exporter reads it from the API, and the record of what it has observed.

Fields are those of GitHub's `job` schema (github/rest-api-description, `components/
schemas/job`): `id`, `run_id`, `status` (queued, in_progress, completed, waiting,
requested, pending), `conclusion`, `created_at`, `started_at`, `labels`, `runner_name`
(null until a runner is assigned). A queued job already carries a `started_at`; only a job
with a runner has really started, so the queue time is `started_at - created_at` of a job
that is in progress or completed with a `runner_name`. A job completed without one left the
queue without a runner (cancelled while queued). Anything else malformed is skipped and
counted by reason, never raised.

The record (`Seen`) is a JSON file on the pod's emptyDir, written atomically after every
poll: a container restart (a crash, an OOM kill) keeps it, so a job observed before the
restart is not observed again, and its `watermark` (the last poll that worked) says from
when runs created while nothing polled must be looked up. A new pod starts with none.
"""

from __future__ import annotations

import calendar
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

_TIME = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|[+-]\d{2}:\d{2})")
STATE_VERSION = 1
FORGET_AFTER_S = 86_400.0
"""A job not listed for this long is dropped from the record: its run is no longer listed."""
MAX_RECORD = 200_000
MAX_STATE_BYTES = 32 << 20


def timestamp(value: object) -> float | None:
    """An ISO 8601 date-time as GitHub writes them (`Z` or an offset), in epoch seconds."""
    if not isinstance(value, str):
        return None
    match = _TIME.fullmatch(value)
    if match is None:
        return None
    year, month, day, hour, minute, second, zone = match.groups()
    try:
        epoch = calendar.timegm(
            time.struct_time(
                (int(year), int(month), int(day), int(hour), int(minute), int(second), 0, 0, 0)
            )
        )
    except (ValueError, OverflowError):
        return None
    if zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        epoch -= sign * (int(zone[1:3]) * 3600 + int(zone[4:6]) * 60)
    return float(epoch)


@dataclass(frozen=True)
class Job:
    id: int
    run_id: int
    status: str
    conclusion: str | None
    created: float
    started: float | None
    labels: tuple[str, ...]
    runner: str | None


STATUSES = {"queued", "in_progress", "completed", "waiting", "requested", "pending"}


def parse_job(item: object) -> Job | str:  # noqa: PLR0911 (one return per reason)
    """The job, or the reason it is skipped."""
    if not isinstance(item, dict):
        return "not_an_object"
    job_id, run_id = item.get("id"), item.get("run_id")
    if not isinstance(job_id, int) or isinstance(job_id, bool) or job_id <= 0:
        return "missing_field"
    if not isinstance(run_id, int) or isinstance(run_id, bool):
        return "missing_field"
    status, labels = item.get("status"), item.get("labels")
    if status not in STATUSES or not isinstance(labels, list):
        return "missing_field"
    if not all(isinstance(label, str) for label in labels):
        return "bad_label"
    created = timestamp(item.get("created_at"))
    if created is None:
        return "bad_timestamp"
    started = timestamp(item.get("started_at")) if item.get("started_at") is not None else None
    runner = item.get("runner_name")
    conclusion = item.get("conclusion")
    return Job(
        id=job_id,
        run_id=run_id,
        status=str(status),
        conclusion=conclusion if isinstance(conclusion, str) else None,
        created=created,
        started=started,
        labels=tuple(labels),
        runner=runner if isinstance(runner, str) and runner else None,
    )


def label_of(job: Job, watched: tuple[str, ...]) -> str | None:
    """The first watched label the job asks for: runner labels are case-insensitive
    (GitHub docs, `content/actions/.../using-labels-with-self-hosted-runners.md`)."""
    asked = {label.casefold() for label in job.labels}
    return next((w for w in watched if w.casefold() in asked), None)


@dataclass
class Seen:
    """Job ids observed (histogram or left the queue), with when each was last listed."""

    jobs: dict[int, float] = field(default_factory=dict)
    open_runs: dict[str, list[int]] = field(default_factory=dict)
    """Per repository: runs queued or in progress at the last poll (looked at once more
    after they leave the lists, for the jobs that started in between)."""
    watermark: float | None = None

    def forget_old(self, now: float) -> None:
        for job_id in [j for j, at in self.jobs.items() if now - at > FORGET_AFTER_S]:
            del self.jobs[job_id]
        if len(self.jobs) > MAX_RECORD:
            for job_id in sorted(self.jobs, key=self.jobs.__getitem__)[
                : len(self.jobs) - MAX_RECORD
            ]:
                del self.jobs[job_id]

    def dump(self, path: str) -> None:
        """Write atomically: a crash mid-write leaves the previous record."""
        data = {
            "version": STATE_VERSION,
            "watermark": self.watermark,
            "jobs": {str(k): v for k, v in self.jobs.items()},
            "openRuns": self.open_runs,
        }
        tmp = f"{path}.tmp"
        with Path(tmp).open("w") as handle:
            json.dump(data, handle, separators=(",", ":"))
        os.replace(tmp, path)


def load_seen(path: str) -> tuple[Seen, str | None]:
    """The record at `path`, or an empty one and why (none yet, or unreadable)."""
    try:
        with Path(path).open("rb") as handle:
            data = handle.read(MAX_STATE_BYTES + 1)
    except FileNotFoundError:
        return Seen(), None
    except OSError as err:
        return Seen(), f"{path}: cannot be read ({err.strerror}); starting afresh"
    try:
        raw = json.loads(data) if len(data) <= MAX_STATE_BYTES else None
        if not isinstance(raw, dict) or raw.get("version") != STATE_VERSION:
            raise ValueError("not a record of this version")
        jobs = {int(k): float(v) for k, v in raw["jobs"].items()}
        runs = {str(r): [int(i) for i in ids] for r, ids in raw["openRuns"].items()}
        mark = raw["watermark"]
        watermark = None if mark is None else float(mark)
    except (ValueError, TypeError, KeyError, AttributeError):
        return Seen(), f"{path}: not a record this exporter wrote; starting afresh"
    return Seen(jobs=jobs, open_runs=runs, watermark=watermark), None
