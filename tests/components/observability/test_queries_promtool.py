"""Every dashboard and usage query, run by Prometheus (promtool) over the scenario's series.

Each assertion is the value the panel must show for the jobs and GPUs of scenario.py; the
expressions are the program's own (dashboard.py builds its panels from the same functions),
with Grafana's variables substituted as Grafana would.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from components.observability import queries
from components.observability.dashboard import dashboard_json
from components.observability.queries import Query
from tests.components.observability import scenario
from tests.components.observability.promtool import outcome, run, substitute
from tests.components.observability.scenario import A10, JOBS, POD, in_window
from tests.components.observability.series import END, controller, gauge

AT = f"{END}m"


def expect(
    query: Query, samples: list[tuple[dict[str, str], float]], at: str = AT, **variables: str
) -> dict[str, Any]:
    """A promtool expression test: `query`, evaluated `at`, returns exactly `samples`."""
    return {
        "expr": substitute(query.expr, **variables),
        "eval_time": at,
        "exp_samples": [
            {
                "labels": "{" + ",".join(f'{k}="{v}"' for k, v in sorted(labels.items())) + "}",
                "value": value,
            }
            for labels, value in samples
        ],
    }


def case(series: list[dict[str, str]], *tests: dict[str, Any]) -> dict[str, Any]:
    return {"interval": "1m", "input_series": series, "promql_expr_test": list(tests)}


def _observed(
    value: str, at: str, window: tuple[int, int], scale_set: str | None = None
) -> list[float]:
    return [
        getattr(j, value)
        for j in JOBS
        if in_window(getattr(j, at), window) and scale_set in (None, j.scale_set)
    ]


def test_jobs_completed_counts_each_new_series_first_job(tmp_path: Path) -> None:
    """J4 (a new job name), J5 (the listener's new pod) and J8 (new name, after a restart)
    are their series' first jobs; J7 comes after an in-place reset of J2's and J6's series
    (`increase()`, rounded to whole jobs: unrounded, 2 * STRETCH)."""
    counts: dict[tuple[str, str], float] = defaultdict(float)
    for job in JOBS:
        if in_window(job.end):
            counts[(job.scale_set, job.result)] += 1
    assert counts == {
        (A10, "succeeded"): 2,
        (A10, "failed"): 1,
        (POD, "succeeded"): 2,
        (POD, "cancelled"): 1,
    }
    samples = [({"scale_set": s, "job_result": r}, n) for (s, r), n in counts.items()]
    run(tmp_path, [case(scenario.listener(), expect(queries.jobs_completed(), samples))])


def test_quantiles_in_range_are_every_jobs(tmp_path: Path) -> None:
    tests = []
    for histogram, value, at, bounds in (
        (queries.STARTUP, "startup_s", "start", scenario.BUCKETS[queries.STARTUP]),
        (queries.EXECUTION, "execution_s", "end", scenario.BUCKETS[queries.EXECUTION]),
    ):
        seen = _observed(value, at, scenario.WINDOW)
        p50, p95 = queries.in_range(histogram)
        tests += [
            expect(p50, [({}, scenario.bucket_quantile(0.5, seen, bounds))]),
            expect(p95, [({}, scenario.bucket_quantile(0.95, seen, bounds))]),
        ]
    startup = _observed("startup_s", "start", scenario.WINDOW)
    assert sorted(startup) == [15, 20, 45, 300, 600, 900]  # J3..J8 started in range
    assert scenario.bucket_quantile(0.5, startup, scenario.BUCKETS[queries.STARTUP]) == 50.0
    run(tmp_path, [case(scenario.listener(), *tests)])


def test_quantiles_of_the_last_hour_per_scale_set(tmp_path: Path) -> None:
    last_hour = (END - 60, END)
    bounds = scenario.BUCKETS[queries.EXECUTION]
    tests = []
    for q, query in zip((0.5, 0.95), queries.over_the_last_hour(queries.EXECUTION), strict=True):
        samples = [
            (
                {"scale_set": s},
                scenario.bucket_quantile(q, _observed("execution_s", "end", last_hour, s), bounds),
            )
            for s in (A10, POD)
        ]
        tests.append(expect(query, samples))
    assert _observed("execution_s", "end", last_hour, POD) == [2400.0, 1800.0, 120.0]
    run(tmp_path, [case(scenario.listener(), *tests)])


def _job_hours(scale_set: str) -> float:
    """The set's execution hours in the range, the restarted series' as `increase()` reads
    them (scenario.STRETCH)."""
    ran = [j for j in JOBS if j.scale_set == scale_set and in_window(j.end)]
    stretched = [j for j in ran if (j.scale_set, j.job_name) == scenario.RESTARTED]
    seconds = sum(j.execution_s for j in ran)
    return (seconds + (scenario.STRETCH - 1) * sum(j.execution_s for j in stretched)) / 3600


def test_job_hours_per_scale_set(tmp_path: Path) -> None:
    samples = [({"scale_set": s}, _job_hours(s)) for s in (A10, POD)]
    assert [v for _, v in samples] == [7800 / 3600, (120 + 4200 * scenario.STRETCH) / 3600]
    run(tmp_path, [case(scenario.listener(), expect(queries.job_hours(), samples))])


def test_the_range_panels_honour_the_scale_set(tmp_path: Path) -> None:
    """`$scale_set` picks one set: its jobs only, in counts, quantiles and hours."""
    startup = _observed("startup_s", "start", scenario.WINDOW, A10)
    assert startup == [600.0, 300.0, 900.0]  # J3, J4, J5
    p50, _ = queries.in_range(queries.STARTUP)
    _, p95 = queries.over_the_last_hour(queries.EXECUTION)
    last_hour = _observed("execution_s", "end", (END - 60, END), POD)
    bounds = scenario.BUCKETS
    tests = [
        expect(
            queries.jobs_completed(),
            [
                ({"scale_set": A10, "job_result": "succeeded"}, 2.0),
                ({"scale_set": A10, "job_result": "failed"}, 1.0),
            ],
            scale_set=A10,
        ),
        expect(
            p50,
            [({}, scenario.bucket_quantile(0.5, startup, bounds[queries.STARTUP]))],
            scale_set=A10,
        ),
        expect(
            p95,
            [
                (
                    {"scale_set": POD},
                    scenario.bucket_quantile(0.95, last_hour, bounds[queries.EXECUTION]),
                )
            ],
            scale_set=POD,
        ),
        expect(queries.job_hours(), [({"scale_set": POD}, _job_hours(POD))], scale_set=POD),
    ]
    run(tmp_path, [case(scenario.listener(), *tests)])


def test_usage_queries_measure_the_week(tmp_path: Path) -> None:
    usage = queries.usage_queries()
    week = (-7 * 24 * 60, END)
    startup, execution = (
        _observed(v, at, week) for v, at in (("startup_s", "start"), ("execution_s", "end"))
    )
    assert len(startup) == len(execution) == len(JOBS)
    tests = [
        expect(usage["jobsPerDay"], [({}, len(JOBS) / 7)]),
        expect(usage["minutesPerJob"], [({}, sum(execution) / len(execution) / 60)]),
        expect(usage["overheadMinutesPerJob"], [({}, sum(startup) / len(startup) / 60)]),
    ]
    run(tmp_path, [case(scenario.listener(scenario.STEADY_LIVES), *tests)])


def test_runner_panels_and_failed_runners_honour_the_scale_set(tmp_path: Path) -> None:
    series = [
        gauge(A10, "gha_busy_runners", {m: 2.0 for m in range(END + 1)}),
        gauge(POD, "gha_busy_runners", {m: 1.0 for m in range(END + 1)}, ip="10.0.2.7"),
        gauge(A10, "gha_assigned_jobs", {m: 3.0 for m in range(END + 1)}),
        gauge(A10, "gha_running_jobs", {m: 2.0 for m in range(END + 1)}),
        controller(
            "gha_controller_failed_ephemeral_runners", A10, {m: 2.0 for m in range(END + 1)}
        ),
        controller(
            "gha_controller_failed_ephemeral_runners", POD, {m: 1.0 for m in range(END + 1)}
        ),
    ]
    busy, _idle, _desired, _max = queries.runners()
    assigned, running = queries.jobs_waiting()
    failed = queries.failed_runners()
    tests = [
        expect(busy, [({"scale_set": A10}, 2.0)], scale_set=A10),
        expect(busy, [({"scale_set": A10}, 2.0), ({"scale_set": POD}, 1.0)], scale_set=".*"),
        expect(assigned, [({"scale_set": A10}, 3.0)], scale_set=A10),
        expect(running, [({"scale_set": A10}, 2.0)], scale_set=A10),
        expect(failed, [({"scale_set": A10}, 2.0)], scale_set=A10),
        expect(failed, [({"scale_set": POD}, 1.0)], scale_set=POD),
    ]
    run(tmp_path, [case(series, *tests)])


def test_gpu_panels_keep_each_hosts_gpu_apart(tmp_path: Path) -> None:
    """Both hosts' GPU is `gpu="0"`: one series per GPU, each named by its host."""
    a, b = A, B
    used, paid = queries.gpu_hours()
    tests = [
        expect(queries.gpu_utilization(), [(a, 100.0), (b, 40.0)], at="90m"),
        expect(queries.gpu_utilization(), [(a, 0.0), (b, 40.0)], at="150m"),
        expect(queries.gpu_memory(), [(a, 50.0), (b, 25.0)], at="90m"),
        expect(queries.gpu_memory(), [(a, 1.25), (b, 25.0)], at="150m"),
        # 3 h at one-minute steps is 180 steps (61-240: the subquery, left-open like any
        # range, leaves out the range's start): node b's GPU busy at each, node a's at the 59
        # of them inside the hour a job held it (60-119); both are paid at each.
        expect(used, [({}, (180 + 59) / 60)]),
        expect(paid, [({}, 2 * 180 / 60)]),
    ]
    run(tmp_path, [case(scenario.gpus(), *tests)])


def test_gpu_memory_without_the_reserve_exported(tmp_path: Path) -> None:
    """An exporter configured with AICR's counters (no FB_RESERVED): used of used + free."""
    series = [s for s in scenario.gpus() if "FB_RESERVED" not in s["series"]]
    # as Prometheus computes it: (100 * used) / (used + free)
    a, b = 100 * 12000 / (12000 + 11400), 100 * 6000 / (6000 + 17400)
    tests = [expect(queries.gpu_memory(), [(A, a), (B, b)], at="90m")]
    run(tmp_path, [case(series, *tests)])


def test_the_dashboard_runs_only_these_queries() -> None:
    """The tests above (and test_queue_promtool.py's, for the queue-time exporter's) cover
    every query the dashboard shows."""
    shown = {
        t["expr"] for p in dashboard_json()["panels"] if p["type"] != "row" for t in p["targets"]
    }
    tested = {
        *(q.expr for q in queries.over_the_last_hour(queries.STARTUP)),
        *(q.expr for q in queries.over_the_last_hour(queries.EXECUTION)),
        *(q.expr for q in queries.queue_over_the_last_hour()),
        *(q.expr for q in queries.queue_in_range()),
        *(q.expr for q in queries.queued_now()),
        *(q.expr for q in queries.in_range(queries.EXECUTION)),
        queries.jobs_completed().expr,
        *(q.expr for q in queries.runners()),
        *(q.expr for q in queries.jobs_waiting()),
        queries.failed_runners().expr,
        queries.gpu_utilization().expr,
        queries.gpu_memory().expr,
        *(q.expr for q in queries.gpu_hours()),
        queries.job_hours().expr,
        *(q.expr for q in queries.usage_queries().values()),
    }
    assert shown == tested


A = {"UUID": scenario.GPU_A.uuid, "hostname": "gpu-node-a", "gpu": "0", "modelName": "NVIDIA A10"}
B = {**A, "UUID": scenario.GPU_B.uuid, "hostname": "gpu-node-b"}
COMPLETED = queries.selector(queries.COMPLETED, queries.SCALE_SET)


def _broken(query: Query, old: str, new: str) -> Query:
    assert old in query.expr
    return query.model_copy(update={"expr": query.expr.replace(old, new)})


Samples = list[tuple[dict[str, str], float]]
BROKEN: dict[str, tuple[Callable[[], Query], Samples]] = {
    # the label dcgm-exporter used before PR #655: both hosts' `gpu="0"` merge into one series
    "per-host label": (
        lambda: _broken(queries.gpu_utilization(), "UUID, hostname", "Hostname"),
        [(A, 100.0), (B, 40.0)],
    ),
    # plain increase(): a new series' first job is lost, and extrapolation shows fractions
    "plain increase": (
        lambda: _broken(
            queries.jobs_completed(),
            queries.counted(COMPLETED, "$__range"),
            f"increase({COMPLETED}[$__range])",
        ),
        [
            ({"scale_set": A10, "job_result": "succeeded"}, 2.0),
            ({"scale_set": A10, "job_result": "failed"}, 1.0),
            ({"scale_set": POD, "job_result": "succeeded"}, 2.0),
            ({"scale_set": POD, "job_result": "cancelled"}, 1.0),
        ],
    ),
    # the reserved framebuffer left out of the total
    "no reserve": (
        lambda: _broken(queries.gpu_memory(), f" + {queries.RESERVED}", ""),
        [(A, 50.0), (B, 25.0)],
    ),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_broken_query_fails(tmp_path: Path, name: str) -> None:
    """What the good query passes (its test above), the broken one fails."""
    make, samples = BROKEN[name]
    at = AT if name == "plain increase" else "90m"
    series = scenario.listener() if name == "plain increase" else scenario.gpus()
    assert not outcome(tmp_path, [case(series, expect(make(), samples, at=at))])[0]
