"""Every alert of the PrometheusRule, fired (or not) by Prometheus (promtool) over series
shaped as ARC and dcgm-exporter emit them, with the thresholds the config gives."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from components.observability.alerts import rule_groups
from components.observability.alerts_config import AlertsConfig
from components.observability.monitors import CONTROLLER_JOB, LISTENER_JOB
from tests.components.observability.promtool import outcome, run
from tests.components.observability.scenario import GPU_A, GPU_B
from tests.components.observability.series import constant, controller, dcgm, gauge, node, up

A10, POD = "gpu-a10", "gpu-a10-pod"
_TEMPLATE = re.compile(r"\{\{ \$(labels\.(\w+)|value) \}\}")


def rendered(alert: str, labels: dict[str, str], value: float, cfg: AlertsConfig) -> dict[str, str]:
    """The rule's annotations as Prometheus renders them (`$labels.x`, `$value` as Go prints
    a float64: 1, not 1.0)."""
    (rule,) = [r for g in rule_groups(cfg, arc=True) for r in g["rules"] if r["alert"] == alert]

    def render(text: str) -> str:
        return _TEMPLATE.sub(lambda m: labels[m.group(2)] if m.group(2) else f"{value:g}", text)

    return {key: render(text) for key, text in rule["annotations"].items()}


def fires(
    alert: str, at: int, labels: dict[str, str], value: float, cfg: AlertsConfig
) -> dict[str, Any]:
    (rule,) = [r for g in rule_groups(cfg, arc=True) for r in g["rules"] if r["alert"] == alert]
    every = {**rule["labels"], **labels}
    return {
        "eval_time": f"{at}m",
        "alertname": alert,
        "exp_alerts": [
            {"exp_labels": every, "exp_annotations": rendered(alert, every, value, cfg)}
        ],
    }


def quiet(alert: str, at: int) -> dict[str, Any]:
    return {"eval_time": f"{at}m", "alertname": alert, "exp_alerts": []}


def case(series: list[dict[str, str]], *tests: dict[str, Any]) -> dict[str, Any]:
    return {"interval": "1m", "input_series": series, "alert_rule_test": list(tests)}


def waiting_from(start: int) -> list[dict[str, str]]:
    """Scale set gpu-a10: one job assigned and not running from `start`."""
    assigned = {**constant(0.0, 0, start), **constant(1.0, start)}
    return [
        gauge(A10, "gha_assigned_jobs", assigned),
        gauge(A10, "gha_running_jobs", constant(0.0)),
    ]


def check(tmp_path: Path, cfg: AlertsConfig, *cases: dict[str, Any]) -> None:
    run(tmp_path, list(cases), rule_groups(cfg, arc=True))


CUSTOM = AlertsConfig(jobsWaitingLongerThan="10m", listenerDownLongerThan="2m")


@pytest.mark.parametrize("cfg", [AlertsConfig(), CUSTOM], ids=["defaults", "custom"])
def test_jobs_waiting_longer_than_the_threshold(tmp_path: Path, cfg: AlertsConfig) -> None:
    wait = int(cfg.jobsWaitingLongerThan.removesuffix("m"))
    labels = {"scale_set": A10}
    interrupted = [
        gauge(A10, "gha_assigned_jobs", {**constant(1.0, 5, 12), 12: 0.0, **constant(1.0, 13)}),
        gauge(A10, "gha_running_jobs", constant(0.0)),
    ]
    check(
        tmp_path,
        cfg,
        case(
            waiting_from(5),
            quiet("GpuJobsWaiting", 5 + wait - 1),
            fires("GpuJobsWaiting", 5 + wait, labels, 1.0, cfg),
        ),
        # a break restarts the clock: waiting 5-12, nothing at 12, waiting again from 13
        case(
            interrupted,
            quiet("GpuJobsWaiting", 13 + wait - 1),
            fires("GpuJobsWaiting", 13 + wait, labels, 1.0, cfg),
        ),
    )


def test_runners_not_registering_and_failed(tmp_path: Path) -> None:
    cfg = AlertsConfig()
    series = [
        gauge(A10, "gha_desired_runners", constant(2.0)),
        gauge(A10, "gha_registered_runners", {**constant(0.0, 0, 30), **constant(2.0, 30)}),
        controller(
            "gha_controller_failed_ephemeral_runners",
            A10,
            {**constant(0.0, 0, 10), **constant(1.0, 10)},
        ),
    ]
    check(
        tmp_path,
        cfg,
        case(
            series,
            quiet("GpuRunnersNotRegistering", 19),
            fires("GpuRunnersNotRegistering", 20, {"scale_set": A10}, 2.0, cfg),
            quiet("GpuRunnersNotRegistering", 31),  # registered at 30
            quiet("GpuRunnersFailed", 9),
            fires("GpuRunnersFailed", 10, {"scale_set": A10}, 1.0, cfg),
        ),
    )


@pytest.mark.parametrize("cfg", [AlertsConfig(), CUSTOM], ids=["defaults", "custom"])
def test_listener_and_controller_down(tmp_path: Path, cfg: AlertsConfig) -> None:
    down = int(cfg.listenerDownLongerThan.removesuffix("m"))
    series = [
        # gpu-a10's listener answers until 20, then fails every scrape
        up(LISTENER_JOB, "10.0.1.5", {**constant(1.0, 0, 20), **constant(0.0, 20)}, A10),
        # gpu-a10-pod's listener pod is gone at 30 (its target with it)
        up(LISTENER_JOB, "10.0.2.7", {**constant(1.0, 0, 30), 30: "stale"}, POD),
        # the controller answers until 40
        up(CONTROLLER_JOB, "10.0.0.9", {**constant(1.0, 0, 40), **constant(0.0, 40)}),
    ]
    check(
        tmp_path,
        cfg,
        case(
            series,
            quiet("ArcListenerDown", 20 + down - 1),
            fires("ArcListenerDown", 20 + down, {"scale_set": A10}, 0.0, cfg),
            quiet("ArcControllerDown", 40 + down - 1),
            fires("ArcControllerDown", 40 + down, {}, 1.0, cfg),
        ),
        case(
            series[1:2],
            quiet("ArcListenerDown", 30 + down - 1),
            fires("ArcListenerDown", 30 + down, {"scale_set": POD}, 1.0, cfg),
        ),
    )


def test_gpus_idle_while_jobs_wait(tmp_path: Path) -> None:
    cfg = AlertsConfig()
    series = [
        *waiting_from(0),
        dcgm("DCGM_FI_DEV_GPU_UTIL", GPU_A, constant(0.0)),
        dcgm("DCGM_FI_DEV_GPU_UTIL", GPU_B, constant(100.0)),
    ]
    busy = [*waiting_from(0), dcgm("DCGM_FI_DEV_GPU_UTIL", GPU_B, constant(100.0))]
    check(
        tmp_path,
        cfg,
        case(
            series,
            quiet("GpuIdleWhileJobsWait", 14),
            fires("GpuIdleWhileJobsWait", 15, {"scale_set": A10}, 1.0, cfg),
        ),
        case(busy, quiet("GpuIdleWhileJobsWait", 30)),
    )


def _gpu(gpu: Any) -> dict[str, str]:
    return {"UUID": gpu.uuid, "hostname": gpu.host, "gpu": "0", "modelName": "NVIDIA A10"}


def test_a_gpu_with_an_xid_error_or_gone(tmp_path: Path) -> None:
    cfg = AlertsConfig()
    xid = {"err_code": "79", "err_msg": "GPU has fallen off the bus"}
    series = [
        dcgm(
            "DCGM_FI_DEV_XID_ERRORS",
            GPU_A,
            constant(0.0, 0, 10),
            extra={"err_code": "0", "err_msg": "No Error"},
        ),
        dcgm("DCGM_FI_DEV_XID_ERRORS", GPU_A, constant(79.0, 10), extra=xid),
        # node b's GPU stops reporting at 20; node b stays in the cluster
        dcgm("DCGM_FI_DEV_GPU_UTIL", GPU_B, {**constant(30.0, 0, 20), 20: "stale"}),
        node("gpu-node-b"),
        # node a's GPU goes with its node (scaled down at 20): not an alert
        dcgm("DCGM_FI_DEV_GPU_UTIL", GPU_A, {**constant(30.0, 0, 20), 20: "stale"}),
        node("gpu-node-a", end=20),
    ]
    check(
        tmp_path,
        cfg,
        case(
            series,
            quiet("GpuXidError", 9),
            fires("GpuXidError", 10, {**_gpu(GPU_A), **xid}, 79.0, cfg),
            quiet("GpuMissing", 24),
            fires("GpuMissing", 25, _gpu(GPU_B), 30.0, cfg),
        ),
    )


def test_an_alert_that_would_not_fire_is_caught(tmp_path: Path) -> None:
    """The harness fails where an expected alert does not come (so a broken rule fails)."""
    cfg = AlertsConfig()
    ok, output = outcome(
        tmp_path,
        [case(waiting_from(5), fires("GpuJobsWaiting", 10, {"scale_set": A10}, 1.0, cfg))],
        rule_groups(cfg, arc=True),
    )
    assert not ok and "GpuJobsWaiting" in output
