"""Samples exactly on a window's edges, as Prometheus 3 (the pinned promtool) reads them.

Prometheus 3 made range selectors, subqueries and the lookback left-open, `(t - range, t]`:
a sample exactly at a window's start is before it (the migration guide of Prometheus v3.11.3,
"Range selectors and lookback exclude samples coinciding with the left boundary";
promql/engine.go `matrixIterSlice` drops every sample at or before the start). Prometheus 2
counted it in both the window and the value before it. Here the dashboard's range is minutes
60-240 (`$__range` 3h at END), so minute 60 is its left edge and END its right one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from components.observability import queries
from components.observability.alerts import IDLE_WINDOW, LISTENER_SEEN_WITHIN, rule_groups
from components.observability.alerts_config import AlertsConfig
from components.observability.monitors import LISTENER_JOB
from components.observability.queries import Query
from tests.components.observability import test_alerts_promtool as alerts
from tests.components.observability.promtool import outcome, run
from tests.components.observability.scenario import (
    A10,
    BUCKETS,
    E2E,
    GPU_A,
    GPU_B,
    POD,
    in_window,
)
from tests.components.observability.series import (
    END,
    Job,
    Listener,
    constant,
    dcgm,
    listener_series,
    up,
)
from tests.components.observability.test_queries_promtool import case, expect

LEFT = 60
"""The range's left edge: the value before the range, not a sample in it."""
RESTART = LEFT + 1
"""gpu-a10-pod's listener restarts in place right after the left edge's sample."""
EDGE_LIVES = [
    Listener(A10, "gpu-a10-754b578d-listener", "10.0.1.5", start=0),
    Listener(POD, "gpu-a10-pod-5d4f7c8b-listener", "10.0.2.7", start=0, end=RESTART),
    Listener(POD, "gpu-a10-pod-5d4f7c8b-listener", "10.0.2.7", start=RESTART),
]
EDGE_JOBS = [
    Job(A10, "nightly", "schedule", "failed", start=30, end=LEFT, startup_s=60),
    Job(A10, E2E, "pull_request", "succeeded", start=200, end=END, startup_s=60),
    Job(POD, E2E, "pull_request", "succeeded", start=10, end=20, startup_s=30),
    Job(POD, E2E, "pull_request", "succeeded", start=25, end=40, startup_s=30),
    # the listener's new life records its first job at RESTART: its counter reads 1 where
    # the sample before the range read 2
    Job(POD, E2E, "pull_request", "succeeded", start=50, end=RESTART, startup_s=30),
    Job(POD, E2E, "pull_request", "succeeded", start=100, end=150, startup_s=30),
    Job(POD, E2E, "pull_request", "succeeded", start=180, end=END, startup_s=30),
]


def _edge_counts() -> dict[tuple[str, str], float]:
    return {
        (s, r): float(
            sum(1 for j in EDGE_JOBS if (j.scale_set, j.result) == (s, r) and in_window(j.end))
        )
        for s, r in ((A10, "failed"), (A10, "succeeded"), (POD, "succeeded"))
    }


def _completed(query: Query) -> dict[str, Any]:
    counts = _edge_counts()
    return expect(query, [({"scale_set": s, "job_result": r}, n) for (s, r), n in counts.items()])


def test_a_restart_right_after_the_ranges_first_sample_counts_every_new_job(
    tmp_path: Path,
) -> None:
    """gpu-a10-pod's counter falls from 2 (minute 60) to 1 (61) and ends at 3: three jobs, all
    after the restart, which resets() over the range cannot see. A job completed exactly at
    minute 60 is not in the range (its new series counts 0); one completed at END is."""
    assert _edge_counts() == {(A10, "failed"): 0, (A10, "succeeded"): 1, (POD, "succeeded"): 3}
    seconds = {
        s: sum(j.execution_s for j in EDGE_JOBS if j.scale_set == s and in_window(j.end)) / 3600
        for s in (A10, POD)
    }
    hours = expect(queries.job_hours(), [({"scale_set": s}, h) for s, h in seconds.items()])
    series = listener_series(EDGE_LIVES, EDGE_JOBS, BUCKETS)
    run(tmp_path, [case(series, _completed(queries.jobs_completed()), hours)])


def test_the_count_prometheus_2_got_right_here_fails(tmp_path: Path) -> None:
    """`counted()` before Prometheus 3, which left the restart to resets() (Prometheus 2's
    range held the sample at minute 60), counts 3 - 2 = 1 of gpu-a10-pod's jobs."""
    completed = queries.selector(queries.COMPLETED, queries.SCALE_SET)
    before = f"last_over_time({completed}[{queries.SEEN_BEFORE}] offset $__range)"
    most, least = (f"{f}_over_time({completed}[$__range])" for f in ("max", "min"))
    query = queries.jobs_completed()
    assert f"({before} <= {least})" in query.expr
    old = query.expr.replace(f"({before} <= {least})", f"(({most} - {before}) >= 0)")
    series = listener_series(EDGE_LIVES, EDGE_JOBS, BUCKETS)
    ok, output = outcome(tmp_path, [case(series, _completed(Query(expr=old)))])
    assert not ok and 'scale_set="gpu-a10-pod"} 1E+00' in output


def test_gpu_hours_count_the_steps_after_the_ranges_start(tmp_path: Path) -> None:
    """The subquery steps once a minute over (60, 240]: 180 steps, each the GPUs at that
    minute. Node b's GPU is there throughout, node a's only until the left edge (stale from
    61) and again at END: paid is node b's 180 minutes and node a's one."""
    series = [
        dcgm("DCGM_FI_DEV_GPU_UTIL", GPU_B, constant(40.0)),
        dcgm(
            "DCGM_FI_DEV_GPU_UTIL",
            GPU_A,
            {**constant(100.0, 0, LEFT + 1), LEFT + 1: "stale", END: 100.0},
        ),
    ]
    used, paid = queries.gpu_hours()
    run(
        tmp_path,
        [case(series, expect(used, [({}, 181 / 60)]), expect(paid, [({}, 181 / 60)]))],
    )


def test_alert_windows_leave_out_their_first_instant(tmp_path: Path) -> None:
    """`GpuIdleWhileJobsWait`: node a's GPU last busy at minute 20 has been idle for the 5
    minutes (20, 25] at 25, so the 15 minutes' wait ends at 40. `ArcListenerDown` for a
    listener pod gone at 30: its last sample (29) leaves the hour's window at 89."""
    assert (IDLE_WINDOW, LISTENER_SEEN_WITHIN) == ("5m", "1h")
    cfg = AlertsConfig()
    wait = int(cfg.gpusIdleWhileJobsWaitLongerThan.removesuffix("m"))
    idle = [
        *alerts.waiting_from(0),
        dcgm("DCGM_FI_DEV_GPU_UTIL", GPU_A, {**constant(100.0, 0, 21), **constant(0.0, 21)}),
    ]
    gone = [up(LISTENER_JOB, "10.0.2.7", {**constant(1.0, 0, 30), 30: "stale"}, POD)]
    labels = {"scale_set": POD}
    run(
        tmp_path,
        [
            alerts.case(
                idle,
                alerts.quiet("GpuIdleWhileJobsWait", 25 + wait - 1),
                alerts.fires("GpuIdleWhileJobsWait", 25 + wait, {"scale_set": A10}, 1.0, cfg),
            ),
            alerts.case(
                gone,
                alerts.fires("ArcListenerDown", 88, labels, 1.0, cfg),
                alerts.quiet("ArcListenerDown", 89),
            ),
        ],
        rule_groups(cfg, arc=True),
    )
