"""The PrometheusRule `gpu-ci-alerts`: in the plan of every stack with observability, labelled
for the Prometheus that loads it, its thresholds config reaching the rules.

The rule groups themselves (valid as Prometheus parses rules, the thresholds' config) are
test_alert_rules.py's; what each alert does is test_alerts_promtool.py's."""

from __future__ import annotations

from functools import cache

import pytest

from stacks.offline.engine.records import ProgramRun, Registration
from stacks.offline.plan import REPO, plan_run
from tests.components.arc.arc_helpers import arc_stack, gpu_pod, oke
from tests.components.observability.test_alert_rules import (
    GPU_ALERTS,
    QUEUE_ALERTS,
    RUNNER_QUEUE_ALERTS,
    alerts,
)
from tests.stacks.stack_helpers import dev_stack, run_stack

RULE = "kubernetes:monitoring.coreos.com/v1:PrometheusRule"
STACKS = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in REPO.glob("Pulumi.*.yaml"))


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
    # the name Prometheus's rule list, `kubectl get prometheusrules` and docs/observability.md use
    assert rule.inputs["metadata"]["name"] == "gpu-ci-alerts"
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
