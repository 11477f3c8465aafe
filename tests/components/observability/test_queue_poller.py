"""One poll of the queue-time exporter, case by case, against the fake GitHub API over HTTP:
which requests it makes, what each kind of job does to the metrics, and what it records.

Each case is a few polls of a small world (queue_harness.py); the whole timelines are
test_queue_exporter.py's and test_queue_promtool.py's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from components.observability.queue_exporter.poller import (
    ERRORS,
    LAST_SUCCESS,
    LEFT,
    OLDEST,
    QUEUED,
    REMAINING,
    REQUESTS,
    SKIPPED,
    WAIT,
)
from tests.components.observability import github_fixtures as gh
from tests.components.observability.fake_github import FakeGitHub, Fault
from tests.components.observability.queue_harness import (
    HOUR,
    LABEL,
    MINUTE,
    T0,
    Clock,
    Life,
    Spec,
    World,
    clock_of,
    series,
    started,
)
from tests.upstream_tools import run_tool

A, B = "octo-org/trainer", "octo-org/katib"
PAIR = f'{{repository="{A}",runner_label="{LABEL}"}}'
BY_LABEL = f'{{runner_label="{LABEL}"}}'


def _life(fake: FakeGitHub, tmp: Path, repos: list[str] | None = None, **changes: Any) -> Life:
    return started(fake, tmp, [A] if repos is None else repos, **changes)


def _at(life: Life, world: World, t: float) -> bool:
    clock_of(world.fake).t = t
    world.sync(t)
    return life.poller.poll()


def _paths(fake: FakeGitHub, since: int = 0) -> list[str]:
    return [
        path.split("?")[0] + ("?" + path.split("?")[1] if "?" in path else "")
        for _, path, _ in fake.log[since:]
    ]


def _record(tmp: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((tmp / "seen.json").read_text())
    return loaded


def test_before_any_poll_every_family_is_declared(fake: FakeGitHub, tmp_path: Path) -> None:
    life = _life(fake, tmp_path)
    text = life.scrape()
    life.stop()
    assert [line for line in text.splitlines() if line.startswith("#")] == [
        f"# HELP {WAIT} Seconds from a job's created_at to its started_at on a runner.",
        f"# TYPE {WAIT} histogram",
        f"# HELP {QUEUED} Jobs queued now (no runner yet), per runner label.",
        f"# TYPE {QUEUED} gauge",
        f"# HELP {OLDEST} Seconds the oldest queued job has waited, per runner label (0: none).",
        f"# TYPE {OLDEST} gauge",
        f"# HELP {LEFT} Jobs that left the queue without a runner (cancelled while queued).",
        f"# TYPE {LEFT} counter",
        f"# HELP {REQUESTS} GitHub API responses by status code (network: none).",
        f"# TYPE {REQUESTS} counter",
        f"# HELP {REMAINING} The App installation's primary rate limit left "
        "(x-ratelimit-remaining).",
        f"# TYPE {REMAINING} gauge",
        f"# HELP {ERRORS} Polls that failed, by kind.",
        f"# TYPE {ERRORS} counter",
        f"# HELP {SKIPPED} Items of GitHub's answers skipped, by reason.",
        f"# TYPE {SKIPPED} counter",
        f"# HELP {LAST_SUCCESS} When the last complete poll ended (epoch seconds).",
        f"# TYPE {LAST_SUCCESS} gauge",
    ]
    assert not [line for line in text.splitlines() if not line.startswith("#")]
    done = run_tool("promtool", "check", "metrics", stdin=text)
    assert done.returncode == 0, done.stdout + done.stderr


def test_one_poll_lists_open_runs_then_their_jobs_and_publishes(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    world = World(
        fake,
        [
            Spec(11, 1, A, (LABEL,), T0 - 600, T0 - 500),  # on a runner after 100 s
            Spec(12, 2, A, ("self-hosted", LABEL.upper()), T0 - 300),  # queued 5 minutes
            Spec(13, 2, A, (LABEL,), T0 - 60),  # queued a minute, in the same run
            Spec(14, 3, A, ("ubuntu-latest",), T0 - 50),  # no watched label
        ],
    )
    life = _life(fake, tmp_path)
    life.poller.started = T0 - HOUR  # as if it had run for an hour
    assert _at(life, world, T0)
    base = f"/repos/{A}/actions/runs"
    assert _paths(fake) == [
        "/app/installations/87654321/access_tokens",
        f"{base}?status=queued&per_page=100",
        f"{base}?status=in_progress&per_page=100",
        *(f"{base}/{run}/jobs?per_page=100" for run in (1, 2, 3)),
    ]
    text = life.scrape()
    assert series(text, f"{WAIT}_sum") == {PAIR: 100.0}
    assert series(text, f"{WAIT}_count") == {PAIR: 1.0}
    assert series(text, QUEUED) == {BY_LABEL: 2.0}
    assert series(text, OLDEST) == {BY_LABEL: 300.0}
    assert series(text, LAST_SUCCESS) == {"": T0}
    assert series(text, REQUESTS) == {'{code="200"}': 5.0, '{code="201"}': 1.0}
    assert series(text, REMAINING) == {"": 5000.0 - 6}
    assert series(text, ERRORS) == {} and series(text, SKIPPED) == {}
    record = _record(tmp_path)
    assert record == {
        "version": 1,
        "watermark": T0,
        "jobs": {"11": T0},
        "openRuns": {A: [1, 2, 3]},
    }
    # A job already recorded is listed again: its time in the record moves, nothing else.
    assert _at(life, world, T0 + MINUTE)
    assert _record(tmp_path)["jobs"] == {"11": T0 + MINUTE}
    assert series(life.scrape(), f"{WAIT}_count") == {PAIR: 1.0}
    life.stop()


def test_each_watched_label_has_queue_gauges_even_when_empty(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    life = _life(fake, tmp_path)
    life.poller.s = type(life.poller.s)(**{**life.poller.s.__dict__, "labels": ("gpu-a10", "h")})
    world = World(fake, [Spec(1, 1, A, ("H",), T0 - 90)])
    assert _at(life, world, T0)
    text = life.scrape()
    assert series(text, QUEUED) == {BY_LABEL: 0.0, '{runner_label="h"}': 1.0}
    assert series(text, OLDEST) == {BY_LABEL: 0.0, '{runner_label="h"}': 90.0}
    # GitHub's clock a little ahead of the pod's: a job created "later" has waited 0 s.
    fake.jobs = {1: [gh.job(1, 1, [LABEL], T0 + 30)]}
    assert life.poller.poll()
    assert series(life.scrape(), OLDEST) == {BY_LABEL: 0.0, '{runner_label="h"}': 0.0}
    life.stop()


@pytest.mark.parametrize(
    ("conclusion", "left"),
    [("cancelled", 1.0), ("timed_out", 1.0), ("failure", None), ("skipped", None)],
)
def test_a_job_that_ends_without_a_runner_left_the_queue_only_if_cancelled(
    fake: FakeGitHub, tmp_path: Path, conclusion: str, left: float | None
) -> None:
    world = World(fake, [Spec(21, 5, A, (LABEL,), T0 - 120, None, T0 - 30, conclusion)])
    life = _life(fake, tmp_path)
    life.poller.started = T0 - HOUR
    fake.runs = {A: [gh.run(A, 5, "in_progress", T0 - 120)]}
    fake.jobs = {5: [gh.job(21, 5, [LABEL], T0 - 120, completed=T0 - 30, conclusion=conclusion)]}
    life.poller.poll()
    text = life.scrape()
    assert series(text, LEFT) == ({} if left is None else {PAIR: left})
    assert series(text, f"{WAIT}_count") == {}
    assert _record(tmp_path)["jobs"] == {"21": T0}  # recorded either way: looked at once
    assert world.specs  # the world only named the job
    life.stop()


def test_a_job_waiting_for_approval_is_neither_queued_nor_recorded(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    life = _life(fake, tmp_path)
    waiting = gh.job(31, 6, [LABEL], T0 - 120)
    waiting["status"] = "waiting"
    running_without_runner = gh.job(32, 6, [LABEL], T0 - 120)
    running_without_runner["status"] = "in_progress"
    fake.runs = {A: [gh.run(A, 6, "in_progress", T0 - 120)]}
    fake.jobs = {6: [waiting, running_without_runner]}
    assert life.poller.poll()
    text = life.scrape()
    assert series(text, QUEUED) == {BY_LABEL: 0.0}
    assert _record(tmp_path)["jobs"] == {}
    life.stop()


def test_a_running_job_without_its_start_time_is_skipped(fake: FakeGitHub, tmp_path: Path) -> None:
    life = _life(fake, tmp_path)
    life.poller.started = T0 - HOUR
    item = gh.job(41, 7, [LABEL], T0 - 120, started=T0 - 60, runner="r")
    item["started_at"] = None
    fake.runs = {A: [gh.run(A, 7, "in_progress", T0 - 120)]}
    fake.jobs = {7: [item]}
    assert life.poller.poll()
    assert series(life.scrape(), SKIPPED) == {'{reason="negative_duration"}': 1.0}
    life.stop()


def test_a_new_pod_skips_jobs_that_started_before_it_and_counts_the_rest(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    world = World(
        fake,
        [
            Spec(51, 8, A, (LABEL,), T0 - 900, T0 - 1),  # on a runner before the pod started
            Spec(52, 9, A, (LABEL,), T0 - 900, T0 + 60),  # after: observed
            Spec(53, 8, A, (LABEL,), T0 - 900, None, T0 - 1, "cancelled"),  # left before
        ],
    )
    life = _life(fake, tmp_path)
    assert life.poller.fresh and life.poller.started == T0
    assert _at(life, world, T0)
    assert not life.poller.fresh  # one poll that worked: a record from now on
    assert _at(life, world, T0 + MINUTE)
    text = life.scrape()
    assert series(text, SKIPPED) == {'{reason="started_before_first_poll"}': 2.0}
    assert series(text, f"{WAIT}_sum") == {PAIR: 960.0}
    assert series(text, LEFT) == {}
    life.stop()


def test_a_new_pod_counts_a_job_created_before_it_that_started_since(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """What decides is when the job reached a runner, not when it was created; a job
    that started the moment the pod did, or the moment it was created, counts."""
    world = World(
        fake,
        [
            Spec(54, 8, A, (LABEL,), T0 - 900, T0 - 50),  # started after the pod
            Spec(55, 8, A, (LABEL,), T0 - 400, T0 - 100),  # exactly when the pod started
            Spec(56, 8, A, (LABEL,), T0 - 30, T0 - 30),  # on a runner at once
        ],
    )
    life = _life(fake, tmp_path)
    life.poller.started = T0 - 100
    assert _at(life, world, T0)
    text = life.scrape()
    assert series(text, SKIPPED) == {}
    assert series(text, f"{WAIT}_count") == {PAIR: 3.0}
    assert series(text, f"{WAIT}_sum") == {PAIR: 850.0 + 300.0}
    life.stop()


def test_an_unchanged_world_is_all_conditional_requests(fake: FakeGitHub, tmp_path: Path) -> None:
    """Every page of the second poll, run lists and job lists alike, is a 304."""
    world = World(fake, [Spec(57, 8, A, (LABEL,), T0 - 60), Spec(58, 9, A, (LABEL,), T0 - 60)])
    life = _life(fake, tmp_path)
    assert _at(life, world, T0)
    start = len(fake.log)
    assert _at(life, world, T0)
    assert [(path, status) for _, path, status in fake.log[start:]] == [
        (f"/repos/{A}/actions/runs?status=queued&per_page=100", 304),
        (f"/repos/{A}/actions/runs?status=in_progress&per_page=100", 304),
        (f"/repos/{A}/actions/runs/8/jobs?per_page=100", 304),
        (f"/repos/{A}/actions/runs/9/jobs?per_page=100", 304),
    ]
    life.stop()


def test_a_pod_with_a_record_counts_jobs_that_started_before_it(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    (tmp_path / "seen.json").write_text(
        json.dumps({"version": 1, "watermark": T0 - 30, "jobs": {}, "openRuns": {}})
    )
    world = World(fake, [Spec(61, 11, A, (LABEL,), T0 - 900, T0 - 600)])
    life = _life(fake, tmp_path)
    assert not life.poller.fresh
    assert _at(life, world, T0)
    assert series(life.scrape(), f"{WAIT}_sum") == {PAIR: 300.0}
    life.stop()


@pytest.mark.parametrize(("gap", "looked_back"), [(2 * MINUTE, False), (2 * MINUTE + 1, True)])
def test_after_a_gap_runs_created_since_the_last_good_poll_are_listed(
    fake: FakeGitHub, tmp_path: Path, gap: float, looked_back: bool
) -> None:
    """More than two intervals since the last poll that worked: runs created from one
    interval before it are listed too, so a run that came and went is still seen."""
    mark = T0 - gap
    (tmp_path / "seen.json").write_text(
        json.dumps({"version": 1, "watermark": mark, "jobs": {}, "openRuns": {}})
    )
    # Job 71 was created, ran and finished while nothing polled.
    world = World(fake, [Spec(71, 12, A, (LABEL,), mark - 30, mark + 10, mark + 50)])
    life = _life(fake, tmp_path)
    assert _at(life, world, T0)
    since = [p for p in _paths(fake) if "created=" in p]
    count = series(life.scrape(), f"{WAIT}_count")
    life.stop()
    if not looked_back:
        assert since == [] and count == {}
        return
    stamp = gh.iso(mark - MINUTE).replace(":", "%3A")
    assert since == [f"/repos/{A}/actions/runs?created=%3E%3D{stamp}&per_page=100"]
    assert count == {PAIR: 1.0}


def test_a_run_that_left_the_lists_is_looked_at_once_more(fake: FakeGitHub, tmp_path: Path) -> None:
    world = World(fake, [Spec(81, 13, A, (LABEL,), T0 - 30, T0 + 30, T0 + 50)])
    life = _life(fake, tmp_path)
    life.poller.started = T0 - HOUR
    assert _at(life, world, T0)  # queued
    assert _record(tmp_path)["openRuns"] == {A: [13]}
    start = len(fake.log)
    assert _at(life, world, T0 + MINUTE)  # it started and ended in between: no longer open
    assert f"/repos/{A}/actions/runs/13/jobs?per_page=100" in _paths(fake, start)
    assert _record(tmp_path)["openRuns"] == {A: []}
    assert series(life.scrape(), f"{WAIT}_sum") == {PAIR: 60.0}
    start = len(fake.log)
    assert _at(life, world, T0 + 2 * MINUTE)
    assert not [p for p in _paths(fake, start) if "/jobs" in p]
    life.stop()


def test_pages_no_longer_asked_for_lose_their_etag(fake: FakeGitHub, tmp_path: Path) -> None:
    """The cached page of a run that went is dropped; listed again, it is fetched whole."""
    life = _life(fake, tmp_path)
    jobs = f"/repos/{A}/actions/runs/14/jobs?per_page=100"
    open_run = {A: [gh.run(A, 14, "queued", T0)]}
    fake.runs, fake.jobs = open_run, {14: [gh.job(91, 14, [LABEL], T0)]}
    assert life.poller.poll()
    assert life.poller.poll()
    fake.runs = {}
    assert life.poller.poll()  # looked at once more (a 404: the fake lists no such run)
    assert life.poller.poll()
    fake.runs = open_run
    start = len(fake.log)
    assert life.poller.poll()
    statuses = {path: status for _, path, status in fake.log[start:]}
    assert statuses[jobs] == 200
    assert statuses[f"/repos/{A}/actions/runs?status=in_progress&per_page=100"] == 304
    assert series(life.scrape(), SKIPPED) == {'{reason="client_error"}': 1.0}
    life.stop()


def test_the_installations_repositories_are_listed_hourly(fake: FakeGitHub, tmp_path: Path) -> None:
    life = _life(fake, tmp_path, [])
    fake.runs = {A: [], B: [], "bad name": []}
    assert life.poller.poll()
    listed = [p for p in _paths(fake) if p.startswith("/installation/")]
    assert listed == ["/installation/repositories?per_page=100"]
    assert life.poller.repositories == (B, A)
    assert f"/repos/{B}/actions/runs?status=queued&per_page=100" in _paths(fake)
    assert series(life.scrape(), SKIPPED) == {'{reason="bad_repository"}': 1.0}
    clock = clock_of(fake)
    for t, lists in ((T0 + HOUR - 1, 1), (T0 + HOUR, 2)):
        clock.t = t
        assert life.poller.poll()
        assert len([p for p in _paths(fake) if p.startswith("/installation/")]) == lists
    life.stop()


def test_a_failed_listing_of_the_installations_repositories_fails_the_poll(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    life = _life(fake, tmp_path, [])
    fake.fail_next(Fault(502, {}, b"{}", path_contains="/installation/repositories"))
    assert life.poller.poll() is False
    assert series(life.scrape(), ERRORS) == {'{kind="server_error"}': 1.0}
    assert life.messages == [
        f"poll failed: server_error: GET {fake.url}/installation/repositories?per_page=100: 502"
    ]
    life.stop()


def test_listed_repositories_that_are_not_objects_are_skipped(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    life = _life(fake, tmp_path, [])
    body = json.dumps({"total_count": 3, "repositories": ["o/r", {"full_name": A}, {"id": 1}]})
    fake.fail_next(Fault(200, {}, body.encode(), path_contains="/installation/repositories"))
    assert life.poller.poll()
    assert life.poller.repositories == (A,)
    assert series(life.scrape(), SKIPPED) == {'{reason="bad_repository"}': 2.0}
    life.stop()


def test_items_that_are_not_runs_are_skipped(fake: FakeGitHub, tmp_path: Path) -> None:
    life = _life(fake, tmp_path)
    runs = [gh.run(A, 15, "queued", T0) for _ in range(4)]
    for run, bad in zip(runs[1:], (True, 0, -2), strict=True):
        run["id"] = bad
    fake.runs, fake.jobs = {A: runs}, {15: []}
    assert life.poller.poll()
    assert series(life.scrape(), SKIPPED) == {'{reason="bad_run"}': 3.0}
    assert _record(tmp_path)["openRuns"] == {A: [15]}
    life.stop()


def test_a_list_is_read_to_its_page_bound(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.max_per_page = 1
    life = _life(fake, tmp_path, max_pages=2)
    fake.runs = {A: [gh.run(A, r, "queued", T0) for r in (16, 17, 18)]}
    assert life.poller.poll()
    assert _record(tmp_path)["openRuns"] == {A: [17, 18]}  # newest first; the third page unread
    assert series(life.scrape(), SKIPPED) == {'{reason="too_many_pages"}': 1.0}
    life.stop()


def test_a_page_without_its_list_is_skipped(fake: FakeGitHub, tmp_path: Path) -> None:
    life = _life(fake, tmp_path)
    fake.runs = {A: [gh.run(A, 19, "queued", T0)]}
    fake.fail_next(
        Fault(200, {}, b'{"total_count": 1}', path_contains="status=queued"),
        Fault(200, {}, b"[]", path_contains="status=in_progress"),
    )
    assert life.poller.poll()
    assert series(life.scrape(), SKIPPED) == {'{reason="missing_field"}': 2.0}
    assert _record(tmp_path)["openRuns"] == {A: []}
    life.stop()


def test_a_list_github_sends_garbled_is_skipped_and_the_repository_kept(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    life = _life(fake, tmp_path, [A, B])
    fake.runs = {A: [gh.run(A, 20, "queued", T0)], B: [gh.run(B, 21, "queued", T0)]}
    (tmp_path / "seen.json").unlink(missing_ok=True)
    life.poller.seen.open_runs = {A: [5]}
    fake.fail_next(Fault(200, {}, b"<html>", path_contains=f"{A}/actions/runs?status=queued"))
    assert life.poller.poll()  # GitHub's data, not the poll's health
    text = life.scrape()
    assert series(text, SKIPPED) == {'{reason="bad_json"}': 1.0}
    assert series(text, ERRORS) == {}
    assert series(text, LAST_SUCCESS) == {"": T0}
    assert _record(tmp_path)["openRuns"] == {A: [5], B: [21]}
    assert life.messages == [f"{A}: bad_json: the body is not JSON"]
    life.stop()


def test_a_revoked_token_is_replaced_at_the_next_poll(fake: FakeGitHub, tmp_path: Path) -> None:
    life = _life(fake, tmp_path)
    assert life.poller.poll()
    fake.fail_next(Fault(401, {}, b'{"message": "Bad credentials"}'))
    assert not life.poller.poll()
    assert series(life.scrape(), ERRORS) == {'{kind="unauthorized"}': 1.0}
    start = len(fake.log)
    assert life.poller.poll()
    assert fake.log[start][:2] == ("POST", "/app/installations/87654321/access_tokens")
    life.stop()


def test_an_app_id_it_cannot_read_is_a_token_error(fake: FakeGitHub, tmp_path: Path) -> None:
    life = _life(fake, tmp_path)
    (tmp_path / "app_id").unlink()
    assert not life.poller.poll()
    assert series(life.scrape(), ERRORS) == {'{kind="token"}': 1.0}
    assert life.messages == [
        f"poll failed: github_app_id ({tmp_path / 'app_id'}) cannot be read: "
        "No such file or directory"
    ]
    life.stop()


def test_a_failed_poll_keeps_the_last_queue_and_moves_no_watermark(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    world = World(fake, [Spec(92, 22, A, (LABEL,), T0 - 90)])
    life = _life(fake, tmp_path)
    assert _at(life, world, T0)
    fake.fail_next(Fault(500, {}, b"{}", path_contains="/jobs"))
    clock_of(fake).t = T0 + MINUTE
    assert not life.poller.poll()
    text = life.scrape()
    assert series(text, OLDEST) == {BY_LABEL: 90.0}  # the last good poll's
    assert series(text, LAST_SUCCESS) == {"": T0}
    assert series(text, ERRORS) == {'{kind="server_error"}': 1.0}
    assert series(text, REQUESTS)['{code="500"}'] == 1.0
    assert _record(tmp_path)["watermark"] == T0
    assert life.messages == [
        f"{A}: server_error: GET {fake.url}/repos/{A}/actions/runs/22/jobs?per_page=100: 500"
    ]
    life.stop()


def test_a_record_that_cannot_be_written_is_an_error_and_the_poll_still_counts(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    state = tmp_path / "gone" / "seen.json"
    life = _life(fake, tmp_path, state_file=str(state))
    assert life.poller.poll()
    text = life.scrape()
    assert series(text, ERRORS) == {'{kind="state"}': 1.0}
    assert series(text, LAST_SUCCESS) == {"": T0}
    assert life.messages == [f"{state}: cannot be written (No such file or directory)"]
    life.stop()


def test_a_rate_limit_is_logged_with_its_end(fake: FakeGitHub, tmp_path: Path) -> None:
    life = _life(fake, tmp_path)
    fake.fail_next(Fault(429, {"retry-after": "90"}))
    assert life.poller.poll() is False
    assert life.messages == [f"GitHub secondary rate limit: no request until {T0 + 90:.0f}"]
    life.stop()


def _budget_left(life: Life, clock: Clock, remaining: int, reset: float) -> bool:
    life.poller.client.budget.remaining = remaining
    life.poller.client.budget.reset = reset
    return life.poller.poll()


def test_the_reserve_is_left_alone_only_below_it_and_until_the_reset(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    life = _life(fake, tmp_path)  # rateLimitReserve 1000 (the default)
    clock = clock_of(fake)
    assert _budget_left(life, clock, 1000, T0 + 600)  # exactly the reserve: still polls
    assert _budget_left(life, clock, 999, T0)  # the reset is now: the budget is whole again
    sent = len(fake.log)
    assert not _budget_left(life, clock, 999, T0 + 600)
    assert len(fake.log) == sent and life.poller.blocked_until == T0 + 600
    assert series(life.scrape(), ERRORS) == {'{kind="reserve"}': 1.0}
    life.stop()
