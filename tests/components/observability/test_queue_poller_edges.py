"""The poller's edges beside test_queue_poller.py's cases: the histogram's buckets as the
settings name them, open runs older than a gap's catch-up window, and run lists holding
items that are not runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from components.observability.queue_exporter.poller import OLDEST, QUEUED, SKIPPED, WAIT
from tests.components.observability import github_fixtures as gh
from tests.components.observability.fake_github import FakeGitHub, Fault
from tests.components.observability.promtool import run
from tests.components.observability.queue_harness import (
    HOUR,
    LABEL,
    MINUTE,
    T0,
    Life,
    Spec,
    World,
    samples,
    series,
    started,
)
from tests.components.observability.scenario import bucket_quantile
from tests.upstream_tools import run_tool

A = "octo-org/trainer"
PAIR = f'repository="{A}",runner_label="{LABEL}"'
BY_LABEL = f'{{runner_label="{LABEL}"}}'


def _life(fake: FakeGitHub, tmp: Path, repos: list[str] | None = None, **changes: Any) -> Life:
    return started(fake, tmp, [A] if repos is None else repos, **changes)


def _paths(fake: FakeGitHub, since: int = 0) -> list[str]:
    return [path for _, path, _ in fake.log[since:]]


def test_the_wait_histogram_has_exactly_the_buckets_the_settings_name(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """Not the program's default buckets: the settings' bounds, then +Inf, as Prometheus
    reads them (promtool's parser, and histogram_quantile interpolating inside them)."""
    bounds = (2.5, 30.0, 600.0)
    waits = [2.0, 100.0, 1000.0]
    specs = [Spec(j, 1, A, (LABEL,), T0 - 50 - w, T0 - 50) for j, w in enumerate(waits, 1)]
    World(fake, specs).sync(T0)
    life = _life(fake, tmp_path, buckets=bounds)
    life.poller.started = T0 - HOUR
    assert life.poller.poll()
    text = life.scrape()
    life.stop()
    assert series(text, f"{WAIT}_bucket") == {
        f'{{{PAIR},le="2.5"}}': 1.0,
        f'{{{PAIR},le="30"}}': 1.0,
        f'{{{PAIR},le="600"}}': 2.0,
        f'{{{PAIR},le="+Inf"}}': 3.0,
    }
    done = run_tool("promtool", "check", "metrics", stdin=text)
    assert done.returncode == 0, done.stdout + done.stderr
    scraped = [
        {"series": f"{name}{labels}", "values": f"{value:g}"}
        for (name, labels), value in samples(text).items()
        if name.startswith(WAIT)
    ]
    median = bucket_quantile(0.5, waits, bounds)
    assert median == 315.0  # the rank 1.5 falls in (30, 600]: 30 + 570 * 0.5
    quantile = {
        "expr": f"histogram_quantile(0.5, {WAIT}_bucket)",
        "eval_time": "0m",
        "exp_samples": [{"labels": f"{{{PAIR}}}", "value": median}],
    }
    run(tmp_path, [{"interval": "1m", "input_series": scraped, "promql_expr_test": [quantile]}])


def test_after_a_gap_an_open_run_created_before_the_catch_up_window_is_still_looked_at(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """The `created>=` list only adds to the open runs: a run created long before the last
    good poll and still open has its queued job counted and its started job observed."""
    mark = T0 - HOUR
    (tmp_path / "seen.json").write_text(
        json.dumps({"version": 1, "watermark": mark, "jobs": {}, "openRuns": {}})
    )
    old = mark - 2 * HOUR
    world = World(
        fake,
        [
            Spec(311, 31, A, (LABEL,), old, T0 - 30),  # reached a runner during the gap
            Spec(312, 31, A, (LABEL,), old),  # still queued
            Spec(321, 32, A, (LABEL,), mark + 10, mark + 70, mark + 600),  # came and went
        ],
    )
    world.sync(T0)
    life = _life(fake, tmp_path)
    assert life.poller.poll()
    text = life.scrape()
    life.stop()
    base = f"/repos/{A}/actions/runs"
    stamp = gh.iso(mark - MINUTE).replace(":", "%3A")
    assert _paths(fake)[1:] == [
        f"{base}?status=queued&per_page=100",
        f"{base}?status=in_progress&per_page=100",
        f"{base}?created=%3E%3D{stamp}&per_page=100",  # lists run 32, not run 31
        f"{base}/31/jobs?per_page=100",
        f"{base}/32/jobs?per_page=100",
    ]
    assert series(text, f"{WAIT}_sum") == {f"{{{PAIR}}}": (T0 - 30 - old) + 60.0}
    assert series(text, f"{WAIT}_count") == {f"{{{PAIR}}}": 2.0}
    assert series(text, QUEUED) == {BY_LABEL: 1.0}
    assert series(text, OLDEST) == {BY_LABEL: T0 - old}


def test_run_list_items_that_are_not_objects_are_skipped_and_the_rest_polled(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    life = _life(fake, tmp_path)
    run_23 = gh.run(A, 23, "queued", T0 - 90)
    fake.runs, fake.jobs = {A: [run_23]}, {23: [gh.job(231, 23, [LABEL], T0 - 90)]}
    body = {"total_count": 4, "workflow_runs": ["23", 23, None, run_23]}
    fake.fail_next(Fault(200, {}, json.dumps(body).encode(), path_contains="status=queued"))
    assert life.poller.poll()
    text = life.scrape()
    life.stop()
    assert series(text, SKIPPED) == {'{reason="bad_run"}': 3.0}
    assert series(text, QUEUED) == {BY_LABEL: 1.0}
    assert series(text, OLDEST) == {BY_LABEL: 90.0}
    assert json.loads((tmp_path / "seen.json").read_text())["openRuns"] == {A: [23]}
