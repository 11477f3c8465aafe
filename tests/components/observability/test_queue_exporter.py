"""The queue-time exporter over a real HTTP fake of GitHub: each job counted exactly once.

One timeline (World) polled every minute: pages of two (the fake caps `per_page`), a label
asked in upper case, a job queued two hours, one cancelled while queued, one for a label
nobody watches, and the exporter restarted mid-stream (one life stops, the next starts on
the same state file an hour later). Everything is read back from /metrics over HTTP.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from components.observability.queue_exporter.poller import LEFT, OLDEST, QUEUED, WAIT
from tests.components.observability.fake_github import FakeGitHub
from tests.components.observability.queue_harness import (
    HOUR,
    LABEL,
    T0,
    Life,
    Spec,
    World,
    clock_of,
    config,
    polls,
    series,
    served,
)

A, B = "octo-org/trainer", "octo-org/katib"
SPECS = [
    Spec(1001, 101, A, ("self-hosted", "GPU-A10"), T0, T0 + 300, T0 + 1500),  # upper case
    Spec(1002, 102, A, (LABEL,), T0 + 60, T0 + 60 + 2 * HOUR, T0 + 3 * HOUR),  # two hours
    Spec(1003, 103, B, (LABEL,), T0 + 120, None, T0 + 900, "cancelled"),  # cancelled queued
    Spec(1004, 104, B, ("ubuntu-latest",), T0 + 120, T0 + 130, T0 + 400),  # not watched
    Spec(1005, 105, A, (LABEL,), T0 + 3000, T0 + 3300, T0 + 5000),  # while no exporter ran
    Spec(1006, 106, B, (LABEL,), T0 + 2000, T0 + 2100, T0 + 9000),  # runs across the restart
    *(Spec(2000 + i, 200 + i, A, (LABEL,), T0 + 10 * i, None) for i in range(3)),  # queued
]
"""Jobs 2000-2002 stay queued: three more runs to page through, and the queue gauges."""


@pytest.fixture
def fake(tmp_path: Path) -> Iterator[FakeGitHub]:
    with served(tmp_path, max_per_page=2) as github:
        yield github


def test_each_job_is_counted_once_across_pages_and_a_restart(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    clock = clock_of(fake)
    world = World(fake, SPECS)
    cfg = config(fake, tmp_path, [A, B])
    first = Life.start(cfg, clock)
    # The first life starts before any job: nothing it sees started before it.
    polls(first, world, T0, T0 + 2940)
    before = first.scrape()
    first.stop()
    # An hour with no exporter; the next life reads the first one's record.
    second = Life.start(cfg, clock)
    polls(second, world, T0 + HOUR, T0 + 3 * HOUR + 600)
    after = second.scrape()
    second.stop()

    a, b = f'repository="{A}",runner_label="{LABEL}"', f'repository="{B}",runner_label="{LABEL}"'
    assert series(before, f"{WAIT}_count") == {f"{{{a}}}": 1.0, f"{{{b}}}": 1.0}
    assert series(before, f"{WAIT}_sum") == {f"{{{a}}}": 300.0, f"{{{b}}}": 100.0}
    assert series(before, LEFT) == {f"{{{b}}}": 1.0}
    # 1005 started while nothing polled (found by `created>=`), 1002 after two hours; 1006,
    # still running, is in the record and not observed again.
    assert series(after, f"{WAIT}_count") == {f"{{{a}}}": 2.0}
    assert series(after, f"{WAIT}_sum") == {f"{{{a}}}": 300.0 + 2 * HOUR}
    assert series(after, f"{WAIT}_bucket").get(f'{{{a},le="7200"}}') == 2.0
    assert series(after, f"{WAIT}_bucket").get(f'{{{a},le="5400"}}') == 1.0
    assert series(after, LEFT) == {}
    # The three never-started jobs, the oldest queued since T0 (three hours and ten minutes).
    assert series(after, QUEUED) == {f'{{runner_label="{LABEL}"}}': 3.0}
    assert series(after, OLDEST) == {f'{{runner_label="{LABEL}"}}': 3 * HOUR + 600}
    gone = [path for _, path, _ in fake.log if "created=" in path]
    assert gone and all("created=%3E%3D2026-12-01T10%3A48%3A00Z" in p for p in gone)
    assert any("page=2" in path for _, path, _ in fake.log)  # the Link header was followed


def test_an_unchanged_world_costs_no_rate_limit(fake: FakeGitHub, tmp_path: Path) -> None:
    """The second poll of the same answers is all 304s, which GitHub does not count."""
    clock = clock_of(fake)
    world = World(fake, SPECS)
    life = Life.start(config(fake, tmp_path, [A, B]), clock)
    polls(life, world, T0 + 200, T0 + 200)
    spent, requests = fake.counted(), len(fake.log)
    polls(life, world, T0 + 260, T0 + 260)
    assert fake.counted() == spent
    assert len(fake.log) > requests
    assert all(status == 304 for _, _, status in fake.log[requests:])
    text = life.scrape()
    life.stop()
    assert (
        series(text, "gpu_ci_queue_api_requests_total")['{code="304"}'] == len(fake.log) - requests
    )


def test_a_new_pod_does_not_count_jobs_that_started_before_it(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """No record: jobs already on a runner may have been counted by a pod before; skipped."""
    clock = clock_of(fake)
    world = World(fake, SPECS)
    life = Life.start(config(fake, tmp_path, [A, B]), clock)
    clock.t = T0 + 2200
    life.poller.started = clock.t
    polls(life, world, T0 + 2200, T0 + 2 * HOUR + 120)
    text = life.scrape()
    life.stop()
    a = f'repository="{A}",runner_label="{LABEL}"'
    # 1006 was running: recorded, not observed. 1001 and 1003 were over, their runs are
    # no longer listed as open, and a pod with no record looks no further back.
    skipped = series(text, "gpu_ci_queue_skipped_items_total")
    assert skipped == {'{reason="started_before_first_poll"}': 1.0}
    assert series(text, f"{WAIT}_count") == {f"{{{a}}}": 2.0}  # 1005 and 1002
