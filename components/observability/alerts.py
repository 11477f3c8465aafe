"""The GPU CI alerts: the rule groups of the PrometheusRule `gpu-ci-alerts` (monitoring.py).

Prometheus evaluates them (kube-prometheus-stack's operator loads every PrometheusRule its
`ruleSelector` matches: the chart's default is the label `release: <release name>`,
templates/prometheus/prometheus.yaml); they show on Prometheus's Alerts page and in Grafana's
alert list, and reach an Alertmanager where one is configured. Thresholds: AlertsConfig.

- GPUs, wherever a cluster runs the GPU operator: a GPU reporting an XID error (79: fallen off
  the bus), or a GPU that no longer reports while its node is still there.
- ARC, where the stack runs it: jobs waiting for a runner, runners not registering or failing,
  a listener or the controller not answering, GPUs idle while jobs wait.
"""

from __future__ import annotations

from typing import Any

from components.observability.alerts_config import AlertsConfig
from components.observability.monitors import CONTROLLER_JOB, LISTENER_JOB
from components.observability.queries import PER_GPU

RULE_NAME = "gpu-ci-alerts"
DOCS = "docs/observability.md#alerts"
IDLE_WINDOW = "5m"
"""A GPU is idle when its utilization was zero for this long."""
SEEN_WITHIN = "1d"
"""A GPU (or listener) counts as missing when it reported within this window but not now."""
LISTENER_SEEN_WITHIN = "1h"
_GPU = "{{ $labels.gpu }} ({{ $labels.UUID }}) on {{ $labels.hostname }}"
_WAITING = "sum by (scale_set) (gha_assigned_jobs) - sum by (scale_set) (gha_running_jobs) > 0"
_LISTENER_UP = f'up{{job="{LISTENER_JOB}"}}'


def _rule(
    name: str, expr: str, severity: str, summary: str, description: str, wait: str | None = None
) -> dict[str, Any]:
    rule: dict[str, Any] = {"alert": name, "expr": expr}
    if wait is not None:
        rule["for"] = wait
    rule["labels"] = {"severity": severity}
    rule["annotations"] = {"summary": summary, "description": f"{description} See {DOCS}."}
    return rule


def gpu_rules(cfg: AlertsConfig) -> list[dict[str, Any]]:
    node = 'label_replace(kube_node_info, "hostname", "$1", "node", "(.+)")'
    seen = f"max by ({PER_GPU}) (max_over_time(DCGM_FI_DEV_GPU_UTIL[{SEEN_WITHIN}]))"
    return [
        _rule(
            "GpuXidError",
            f"max by ({PER_GPU}, err_code, err_msg) (DCGM_FI_DEV_XID_ERRORS) > 0",
            "critical",
            f"GPU {_GPU} reported XID {{{{ $labels.err_code }}}} ({{{{ $labels.err_msg }}}})",
            "DCGM_FI_DEV_XID_ERRORS is the last XID the driver reported for this GPU; 79 means "
            "it fell off the bus, 48 and 94/95 memory errors. Drain the node and check "
            "`nvidia-smi` and the kernel log.",
        ),
        _rule(
            "GpuMissing",
            f"({seen} unless on (UUID) DCGM_FI_DEV_GPU_UTIL) and on (hostname) {node}",
            "critical",
            f"GPU {_GPU} stopped reporting",
            f"The DCGM exporter reported this GPU in the last {SEEN_WITHIN} but no longer "
            "does, and its node is still in the cluster: the GPU may have fallen off the bus, "
            "or the exporter cannot reach it.",
            cfg.gpuMissingLongerThan,
        ),
    ]


def arc_rules(cfg: AlertsConfig) -> list[dict[str, Any]]:
    idle = f"count(max by (UUID) (max_over_time(DCGM_FI_DEV_GPU_UTIL[{IDLE_WINDOW}])) == 0) > 0"
    gone = (
        f"max by (scale_set) (max_over_time({_LISTENER_UP}[{LISTENER_SEEN_WITHIN}])) "
        f"unless on (scale_set) {_LISTENER_UP}"
    )
    return [
        _rule(
            "GpuJobsWaiting",
            _WAITING,
            "warning",
            "{{ $value }} jobs of scale set {{ $labels.scale_set }} wait for a runner",
            f"Jobs were assigned to the scale set but not running for "
            f"{cfg.jobsWaitingLongerThan} without a break: no capacity (an AD out of GPUs, "
            "the set at maxRunners) or runners that do not start. GitHub's queue before the "
            "scale set takes a job is not counted.",
            cfg.jobsWaitingLongerThan,
        ),
        _rule(
            "GpuRunnersNotRegistering",
            "sum by (scale_set) (gha_desired_runners) - sum by (scale_set) "
            "(gha_registered_runners) > 0",
            "warning",
            "Scale set {{ $labels.scale_set }} wants {{ $value }} more runners than are registered",
            f"For {cfg.runnersUnregisteredLongerThan}: runners are created but do not "
            "register with GitHub (VM launch, image pull, runner registration).",
            cfg.runnersUnregisteredLongerThan,
        ),
        _rule(
            "GpuRunnersFailed",
            "sum by (scale_set) (gha_controller_failed_ephemeral_runners) > 0",
            "warning",
            "{{ $value }} runners of scale set {{ $labels.scale_set }} failed",
            "EphemeralRunners in phase Failed (they failed to start five times); they block "
            "scale-up until deleted (the cleanup CronJob deletes them).",
        ),
        _rule(
            "ArcListenerDown",
            f"(max by (scale_set) ({_LISTENER_UP}) == 0) or ({gone})",
            "critical",
            "The listener of scale set {{ $labels.scale_set }} is down",
            f"Its metrics endpoint has failed every scrape, or its pod is gone, for "
            f"{cfg.listenerDownLongerThan}: no job reaches the scale set. A scale set removed "
            f"on purpose fires this for under {LISTENER_SEEN_WITHIN}.",
            cfg.listenerDownLongerThan,
        ),
        _rule(
            "ArcControllerDown",
            f'absent(up{{job="{CONTROLLER_JOB}"}} == 1)',
            "critical",
            "The ARC controller is not answering",
            f"No scrape of the controller has worked for {cfg.listenerDownLongerThan}: no "
            "runner is created or cleaned up.",
            cfg.listenerDownLongerThan,
        ),
        _rule(
            "GpuIdleWhileJobsWait",
            f"({_WAITING}) and on () ({idle})",
            "warning",
            "{{ $value }} jobs of scale set {{ $labels.scale_set }} wait while cluster GPUs "
            "are idle",
            f"For {cfg.gpusIdleWhileJobsWaitLongerThan}, at least one GPU had no utilization "
            f"for {IDLE_WINDOW} while jobs waited: the capacity is somewhere the jobs cannot "
            "use it (a vm-launcher set's jobs never run on cluster GPUs), or pods cannot be "
            "scheduled onto it.",
            cfg.gpusIdleWhileJobsWaitLongerThan,
        ),
    ]


def rule_groups(cfg: AlertsConfig, *, arc: bool) -> list[dict[str, Any]]:
    """The PrometheusRule's `spec.groups`: the GPU rules, and ARC's where the stack has ARC."""
    groups = [{"name": "gpu-ci.gpus", "rules": gpu_rules(cfg)}]
    if arc:
        groups.append({"name": "gpu-ci.arc", "rules": arc_rules(cfg)})
    return groups
