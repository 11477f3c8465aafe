"""The PrometheusRule `gpu-ci-alerts`: in the plan of every stack with observability, labelled
for the Prometheus that loads it, valid as Prometheus parses rules, its thresholds config.

What each alert does is test_alerts_promtool.py's."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from components.observability.alerts import RULE_NAME, rule_groups
from components.observability.alerts_config import THRESHOLDS, AlertsConfig
from stacks.offline.plan import REPO, plan_run
from stacks.offline.records import ProgramRun, Registration
from tests.components.arc.arc_helpers import arc_stack, gpu_pod, oke
from tests.components.observability.promql_check import check
from tests.components.observability.promtool import check_rules
from tests.stacks.stack_helpers import dev_stack, run_stack

RULE = "kubernetes:monitoring.coreos.com/v1:PrometheusRule"
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
STACKS = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in REPO.glob("Pulumi.*.yaml"))


def alerts(groups: list[dict[str, Any]]) -> list[str]:
    return [r["alert"] for g in groups for r in g["rules"]]


@cache
def planned(stack: str) -> ProgramRun:
    return plan_run(stack)


def rule_of(run: ProgramRun) -> Registration:
    return run.one(RULE, "monitoring-alerts")


@pytest.mark.parametrize("stack", STACKS)
def test_every_stack_with_observability_plans_the_rule(stack: str) -> None:
    run = planned(stack)
    monitoring = run.by_type("gpu-ci:observability:Monitoring")
    rules = run.by_type(RULE)
    assert len(rules) == len(monitoring) <= 1
    if not rules:
        return
    (rule,) = rules
    assert rule.parent == monitoring[0].urn
    assert rule.inputs["metadata"]["name"] == RULE_NAME
    monitors = {m.name for m in run.by_type("kubernetes:monitoring.coreos.com/v1:PodMonitor")}
    expected = GPU_ALERTS
    if "monitoring-arc-listeners" in monitors:
        expected = GPU_ALERTS + QUEUE_ALERTS
    elif "monitoring-queue-exporter-monitor" in monitors:  # VM runners (dev)
        expected = GPU_ALERTS + RUNNER_QUEUE_ALERTS
    assert alerts(rule.inputs["spec"]["groups"]) == expected
    # the release's CRDs (and operator) come first: the rule waits for the release
    releases = [
        r.urn for r in run.by_type("kubernetes:helm.sh/v3:Release") if r.name == "monitoring"
    ]
    assert set(releases) <= set(rule.dependencies)


def test_the_example_stacks_that_deploy_onto_a_cluster_have_it() -> None:
    with_rule = [s for s in STACKS if planned(s).by_type(RULE)]
    assert with_rule == ["apps-dev", "arc", "dev"]


def test_labelled_for_the_stacks_rule_selector() -> None:
    """kube-prometheus-stack's default ruleSelector is `release: <release name>`
    (templates/prometheus/prometheus.yaml, `ruleSelectorNilUsesHelmValues`)."""
    deployed = rule_of(run_stack(dev_stack(**{"gpu-ci:observability": {"releaseName": "kps"}})))
    assert deployed.inputs["metadata"]["labels"]["release"] == "kps"
    existing = run_stack(
        dev_stack(
            **{
                "gpu-ci:observability": {
                    "prometheus": "existing",
                    "monitorLabels": {"release": "prom", "team": "ci"},
                }
            }
        )
    )
    labels = rule_of(existing).inputs["metadata"]["labels"]
    assert (labels["release"], labels["team"]) == ("prom", "ci")
    assert labels["app.kubernetes.io/managed-by"] == "gpu-ci"


def test_thresholds_reach_the_rules() -> None:
    cfg = {"jobsWaitingLongerThan": "30m", "gpuMissingLongerThan": "2m"}
    values = arc_stack(gpu_pod(), cluster=oke())
    values["gpu-ci:observability"] = {"alerts": cfg}
    run = run_stack(values, secret_keys={"gpu-ci:arc"})
    rules = {r["alert"]: r for g in rule_of(run).inputs["spec"]["groups"] for r in g["rules"]}
    # The whole queue time: the oldest queued job's age against the threshold, no `for`.
    assert rules["GpuJobsWaiting"]["expr"] == (
        "max by (runner_label) (gpu_ci_queue_oldest_job_age_seconds) > 1800"
    )
    assert "for" not in rules["GpuJobsWaiting"]
    assert rules["GpuMissing"]["for"] == "2m"
    assert rules["ArcListenerDown"]["for"] == "5m"
    assert "for" not in rules["GpuXidError"] and "for" not in rules["GpuRunnersFailed"]


def test_alerts_off_plans_no_rule() -> None:
    run = run_stack(dev_stack(**{"gpu-ci:observability": {"alerts": {"enabled": False}}}))
    assert run.by_type(RULE) == []


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
