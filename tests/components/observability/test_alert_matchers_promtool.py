"""The alerts' windows and matchers, decided by Prometheus (promtool) over series shaped as
the exporters emit them: a GPU counts as idle only after its whole idle window at zero, a
missing GPU is reported for the day it was seen within and no longer, and a listener is
down by its own job's `up` alone (another target's failing scrape, even one labelled with
the scale set, is not the listener). test_alerts.py: the rule is the object the docs name."""

from __future__ import annotations

from pathlib import Path

from components.observability.alerts import rule_groups
from components.observability.alerts_config import AlertsConfig
from components.observability.monitors import CONTROLLER_JOB, LISTENER_JOB
from tests.components.observability import test_alerts_promtool as alerts
from tests.components.observability.promtool import run
from tests.components.observability.scenario import GPU_A, GPU_B
from tests.components.observability.series import Point, constant, dcgm, node, up

A10 = alerts.A10
CFG = AlertsConfig()


def test_a_listener_is_down_by_its_own_jobs_up_only(tmp_path: Path) -> None:
    """Scale set gpu-a10's listener answers every scrape; the controller and another job's
    target carrying the scale set's label fail theirs from minute 0."""
    down = int(CFG.listenerDownLongerThan.removesuffix("m"))
    series = [
        up(LISTENER_JOB, "10.0.1.5", constant(1.0), A10),
        up(CONTROLLER_JOB, "10.0.0.9", constant(0.0)),
        up("gpu-ci-sidecar", "10.0.1.6", constant(0.0), A10),
    ]
    run(
        tmp_path,
        [
            alerts.case(
                series,
                alerts.fires("ArcControllerDown", down, {}, 1.0, CFG),
                alerts.quiet("ArcListenerDown", down),
                alerts.quiet("ArcListenerDown", 90),
            ),
            # the listener's own target failing is the alert, at the same threshold
            alerts.case(
                [up(LISTENER_JOB, "10.0.1.5", constant(0.0), A10)],
                alerts.quiet("ArcListenerDown", down - 1),
                alerts.fires("ArcListenerDown", down, {"scale_set": A10}, 0.0, CFG),
            ),
        ],
        rule_groups(CFG, arc=True),
    )


def test_a_gpu_is_idle_only_after_a_whole_idle_window(tmp_path: Path) -> None:
    """Idle means no utilization for 5 minutes: node a's GPU busy at minute 20 and idle from
    21 is idle at 25 (the window (20, 25]), and with jobs waiting the alert's 15 minutes
    end at 40. A GPU busy one scrape in every 5 is never idle."""
    wait = int(CFG.gpusIdleWhileJobsWaitLongerThan.removesuffix("m"))
    idle_from_21 = {**constant(100.0, 0, 21), **constant(0.0, 21)}
    pulsing: dict[int, Point] = {m: (100.0 if m % 5 == 0 else 0.0) for m in range(241)}
    run(
        tmp_path,
        [
            alerts.case(
                [*alerts.waiting_from(0), dcgm("DCGM_FI_DEV_GPU_UTIL", GPU_A, idle_from_21)],
                alerts.quiet("GpuIdleWhileJobsWait", 25 + wait - 1),
                alerts.fires("GpuIdleWhileJobsWait", 25 + wait, {"scale_set": A10}, 1.0, CFG),
            ),
            alerts.case(
                [*alerts.waiting_from(0), dcgm("DCGM_FI_DEV_GPU_UTIL", GPU_A, pulsing)],
                alerts.quiet("GpuIdleWhileJobsWait", 60),
                alerts.quiet("GpuIdleWhileJobsWait", 200),
            ),
        ],
        rule_groups(CFG, arc=True),
    )


def _for_a_day(series: dict[str, str], value: str) -> dict[str, str]:
    """`series` going on past the timeline's end with `value` every minute for 1300 more."""
    return {**series, "values": f"{series['values']} {value}+0x1300"}


def test_a_missing_gpu_is_reported_for_the_day_it_was_seen_within(tmp_path: Path) -> None:
    """Node b's GPU reports until minute 19 (stale at 20) while node b stays: missing from
    25 (the 5 minutes' `for`), while 19 is inside the day's window (t - 1440, t], so up to
    1458; from 1459 it was not seen within the day and is no longer reported."""
    gpu_b = {"UUID": GPU_B.uuid, "hostname": GPU_B.host, "gpu": "0", "modelName": "NVIDIA A10"}
    series = [
        dcgm("DCGM_FI_DEV_GPU_UTIL", GPU_B, {**constant(30.0, 0, 20), 20: "stale"}),
        _for_a_day(node("gpu-node-b"), "1"),
        # node a's GPU reports throughout (the exporter is up)
        _for_a_day(dcgm("DCGM_FI_DEV_GPU_UTIL", GPU_A, constant(30.0)), "30"),
        _for_a_day(node("gpu-node-a"), "1"),
    ]
    run(
        tmp_path,
        [
            alerts.case(
                series,
                alerts.quiet("GpuMissing", 24),
                alerts.fires("GpuMissing", 25, gpu_b, 30.0, CFG),
                alerts.fires("GpuMissing", 1458, gpu_b, 30.0, CFG),
                alerts.quiet("GpuMissing", 1459),
            )
        ],
        rule_groups(CFG, arc=False),
    )
