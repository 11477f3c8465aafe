"""The PrometheusRule's rule groups (`alerts.rule_groups`), in-process: valid as the pinned
promtool parses rules, reading only what is exported, each with its severity and docs link,
and the thresholds' config. test_alerts.py has the rule in every stack's plan."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from components.observability.alerts import rule_groups
from components.observability.alerts_config import THRESHOLDS, AlertsConfig
from tests.components.observability.promql_check import check
from tests.components.observability.promtool import check_rules

GPU_ALERTS = ["GpuXidError", "GpuMissing"]
ARC_ALERTS = [
    "GpuJobsWaiting",
    "GpuRunnersNotRegistering",
    "GpuRunnersFailed",
    "ArcListenerDown",
    "ArcControllerDown",
    "GpuIdleWhileJobsWait",
]
QUEUE_ALERTS = [ARC_ALERTS[0], "GpuQueueExporterFailing", *ARC_ALERTS[1:]]
"""With the queue-time exporter (on wherever ARC is, by default)."""
RUNNER_QUEUE_ALERTS = ["GpuJobsWaiting", "GpuQueueExporterFailing"]
"""VM runners without ARC: the exporter's group alone."""


def alerts(groups: list[dict[str, Any]]) -> list[str]:
    return [r["alert"] for g in groups for r in g["rules"]]


@pytest.mark.parametrize(
    ("arc", "queue"), [(False, False), (False, True), (True, False), (True, True)]
)
def test_the_rules_parse_as_prometheus_parses_them(tmp_path: Path, arc: bool, queue: bool) -> None:
    groups = rule_groups(AlertsConfig(), arc=arc, queue_time=queue)
    ok, output = check_rules(tmp_path, groups)
    assert ok, output
    assert f"SUCCESS: {len(alerts(groups))} rules found" in output


def test_a_rule_prometheus_refuses_is_caught(tmp_path: Path) -> None:
    groups = rule_groups(AlertsConfig(), arc=False)
    groups[0]["rules"][0]["expr"] = "max by (UUID (DCGM_FI_DEV_XID_ERRORS)"
    assert not check_rules(tmp_path, groups)[0]


@pytest.mark.parametrize("queue", [False, True])
def test_every_alert_reads_only_what_is_exported(queue: bool) -> None:
    groups = rule_groups(AlertsConfig(), arc=True, queue_time=queue)
    assert alerts(groups) == GPU_ALERTS + (QUEUE_ALERTS if queue else ARC_ALERTS)
    problems = {r["alert"]: check(r["expr"]) for g in groups for r in g["rules"]}
    assert {a: p for a, p in problems.items() if p} == {}
    for rule in (r for g in groups for r in g["rules"]):
        assert rule["labels"]["severity"] in ("warning", "critical")
        assert rule["annotations"]["description"].endswith("See docs/observability.md#alerts.")


@pytest.mark.parametrize("key", THRESHOLDS)
def test_a_threshold_is_a_prometheus_duration(key: str) -> None:
    assert getattr(AlertsConfig(**{key: "1h30m"}), key) == "1h30m"
    with pytest.raises(ValidationError) as caught:
        AlertsConfig(**{key: "15 minutes"})
    (error,) = caught.value.errors()
    assert error["loc"] == (key,)
    assert "'15 minutes' is not a Prometheus duration for an alert threshold" in error["msg"]


def test_the_defaults() -> None:
    cfg = AlertsConfig()
    assert cfg.enabled is True
    assert [getattr(cfg, k) for k in THRESHOLDS] == ["15m", "20m", "5m", "15m", "5m"]
    with pytest.raises(ValidationError):
        AlertsConfig(jobsWaitingLongerThan="15m", unknown="x")  # type: ignore[call-arg]


def test_vm_runners_get_the_exporters_rules_as_arc_has_them() -> None:
    cfg = AlertsConfig(jobsWaitingLongerThan="20m")
    gpus, queue = rule_groups(cfg, arc=False, queue_time=True)
    assert (gpus["name"], queue["name"]) == ("gpu-ci.gpus", "gpu-ci.queue")
    with_arc = {
        r["alert"]: r for g in rule_groups(cfg, arc=True, queue_time=True) for r in g["rules"]
    }
    assert queue["rules"] == [with_arc[alert] for alert in RUNNER_QUEUE_ALERTS]
    assert queue["rules"][0]["expr"] == (
        "max by (runner_label) (gpu_ci_queue_oldest_job_age_seconds) > 1200"
    )


SEE = "See docs/observability.md#alerts."
GPU = "GPU {{ $labels.gpu }} ({{ $labels.UUID }}) on {{ $labels.hostname }}"
DISTINCT = AlertsConfig(
    jobsWaitingLongerThan="31m",
    runnersUnregisteredLongerThan="22m",
    listenerDownLongerThan="3m",
    gpusIdleWhileJobsWaitLongerThan="17m",
    gpuMissingLongerThan="7m",
)
"""Each threshold different, so each text shows which one it reads."""
SHOWN = {
    "GpuXidError": (
        None,
        "critical",
        f"{GPU} reported XID {{{{ $labels.err_code }}}} ({{{{ $labels.err_msg }}}})",
        "DCGM_FI_DEV_XID_ERRORS is the last XID the driver reported for this GPU; 79 means it "
        "fell off the bus, 48 and 94/95 memory errors. Drain the node and check `nvidia-smi` "
        "and the kernel log.",
    ),
    "GpuMissing": (
        "7m",
        "critical",
        f"{GPU} stopped reporting",
        "The DCGM exporter reported this GPU in the last 1d but no longer does, and its node "
        "is still in the cluster: the GPU may have fallen off the bus, or the exporter cannot "
        "reach it.",
    ),
    "GpuJobsWaiting": (
        None,
        "warning",
        "A GPU job for runner label {{ $labels.runner_label }} has been queued for "
        "{{ $value | humanizeDuration }}",
        "GitHub has held a job asking for this label for over 31m with no runner (created_at, "
        "from GitHub's job list): no capacity (an AD out of GPUs, the set at maxRunners), "
        "runners that do not start, or no scale set or runner serving the label.",
    ),
    "GpuQueueExporterFailing": (
        "3m",
        "warning",
        "The queue-time exporter has not polled GitHub",
        "For 3m, either its pod answers no scrape, or its last complete poll is over twice "
        "that old: queue times are not measured and GpuJobsWaiting cannot fire. "
        "gpu_ci_queue_errors_total says why (rate limits, the App's token, GitHub's 5xx).",
    ),
    "GpuRunnersNotRegistering": (
        "22m",
        "warning",
        "Scale set {{ $labels.scale_set }} wants {{ $value }} more runners than are registered",
        "For 22m: runners are created but do not register with GitHub (VM launch, image pull, "
        "runner registration).",
    ),
    "GpuRunnersFailed": (
        None,
        "warning",
        "{{ $value }} runners of scale set {{ $labels.scale_set }} failed",
        "EphemeralRunners in phase Failed (they failed to start five times); they block "
        "scale-up until deleted (the cleanup CronJob deletes them).",
    ),
    "ArcListenerDown": (
        "3m",
        "critical",
        "The listener of scale set {{ $labels.scale_set }} is down",
        "Its metrics endpoint has failed every scrape, or its pod is gone, for 3m: no job "
        "reaches the scale set. A scale set removed on purpose fires this for under 1h.",
    ),
    "ArcControllerDown": (
        "3m",
        "critical",
        "The ARC controller is not answering",
        "No scrape of the controller has worked for 3m: no runner is created or cleaned up.",
    ),
    "GpuIdleWhileJobsWait": (
        "17m",
        "warning",
        "{{ $value }} jobs of scale set {{ $labels.scale_set }} wait while cluster GPUs are idle",
        "For 17m, at least one GPU had no utilization for 5m while jobs waited: the capacity "
        "is somewhere the jobs cannot use it (a vm-launcher set's jobs never run on cluster "
        "GPUs), or pods cannot be scheduled onto it.",
    ),
}


def _shown(rule: dict[str, Any]) -> tuple[str | None, str, str, str]:
    annotations = rule["annotations"]
    assert annotations["description"].endswith(f" {SEE}")
    description = annotations["description"].removesuffix(f" {SEE}")
    return rule.get("for"), rule["labels"]["severity"], annotations["summary"], description


def test_what_alertmanager_shows_for_each_alert() -> None:
    """Each alert's `for`, severity, summary and description, as Prometheus's Alerts page and
    Alertmanager show them (before Prometheus fills in the labels and value)."""
    groups = rule_groups(DISTINCT, arc=True, queue_time=True)
    assert [g["name"] for g in groups] == ["gpu-ci.gpus", "gpu-ci.arc"]  # Prometheus's Rules page
    assert {r["alert"]: _shown(r) for g in groups for r in g["rules"]} == SHOWN


def test_jobs_waiting_without_the_exporter_counts_arcs_assigned_jobs() -> None:
    (_, arc) = rule_groups(DISTINCT, arc=True, queue_time=False)
    assert arc["rules"][0] == {
        "alert": "GpuJobsWaiting",
        "expr": "sum by (scale_set) (gha_assigned_jobs) - sum by (scale_set) "
        "(gha_running_jobs) > 0",
        "for": "31m",
        "labels": {"severity": "warning"},
        "annotations": {
            "summary": "{{ $value }} jobs of scale set {{ $labels.scale_set }} wait for a runner",
            "description": "Jobs were assigned to the scale set but not running for 31m "
            "without a break: no capacity or runners that do not start. The queue-time exporter "
            f"is off, so GitHub's queue before the scale set takes a job is not counted. {SEE}",
        },
    }
