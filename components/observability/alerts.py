"""The GPU CI alerts: the rule groups of the PrometheusRule `gpu-ci-alerts` (monitoring.py).

Prometheus evaluates them (kube-prometheus-stack's operator loads every PrometheusRule its
`ruleSelector` matches: the chart's default is the label `release: <release name>`,
templates/prometheus/prometheus.yaml); they show on Prometheus's Alerts page and in Grafana's
alert list, and reach an Alertmanager where one is configured. Thresholds: AlertsConfig.

- GPUs, wherever a cluster runs the GPU operator: a GPU reporting an XID error (79: fallen off
  the bus), or a GPU that no longer reports while its node is still there.
- ARC, where the stack runs it: jobs waiting for a runner (the whole queue time, from the
  queue-time exporter; ARC's assigned-but-not-running where the exporter is off), runners not
  registering or failing, a listener, the controller or the exporter not answering, GPUs idle
  while jobs wait.
- VM runners without ARC, where the queue-time exporter watches them: jobs waiting for a
  runner (the whole queue time) and the exporter not answering, in a group of their own.
"""

from __future__ import annotations

from typing import Any

from components.observability.alerts_config import AlertsConfig
from components.observability.durations import duration
from components.observability.monitors import CONTROLLER_JOB, LISTENER_JOB
from components.observability.queries import PER_GPU
from components.observability.queue_deploy import JOB as QUEUE_JOB
from components.observability.queue_exporter import poller as queue

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


def _seconds(value: str) -> str:
    return f"{duration(value, 'an alert threshold') / 1000:g}"


def jobs_waiting(cfg: AlertsConfig, *, whole: bool) -> dict[str, Any]:
    """GpuJobsWaiting: over the whole queue time (the exporter's oldest queued job per runner
    label, which fires the moment one job has waited the threshold), or, without the
    exporter, ARC's jobs assigned to a scale set and not running for that long."""
    if not whole:
        return _rule(
            "GpuJobsWaiting",
            _WAITING,
            "warning",
            "{{ $value }} jobs of scale set {{ $labels.scale_set }} wait for a runner",
            f"Jobs were assigned to the scale set but not running for "
            f"{cfg.jobsWaitingLongerThan} without a break: no capacity or runners that do "
            "not start. The queue-time exporter is off, so GitHub's queue before the scale "
            "set takes a job is not counted.",
            cfg.jobsWaitingLongerThan,
        )
    return _rule(
        "GpuJobsWaiting",
        f"max by (runner_label) ({queue.OLDEST}) > {_seconds(cfg.jobsWaitingLongerThan)}",
        "warning",
        "A GPU job for runner label {{ $labels.runner_label }} has been queued for "
        "{{ $value | humanizeDuration }}",
        f"GitHub has held a job asking for this label for over {cfg.jobsWaitingLongerThan} "
        "with no runner (created_at, from GitHub's job list): no capacity (an AD out of "
        "GPUs, the set at maxRunners), runners that do not start, or no scale set or runner "
        "serving the label.",
    )


def exporter_rule(cfg: AlertsConfig) -> dict[str, Any]:
    """GpuQueueExporterFailing: no complete poll of GitHub for the threshold (rate limits,
    the App's credentials, GitHub down) or no scrape of the exporter."""
    stale = f"time() - max({queue.LAST_SUCCESS}) > {_seconds(cfg.listenerDownLongerThan)} * 2"
    return _rule(
        "GpuQueueExporterFailing",
        f'({stale}) or absent(up{{job="{QUEUE_JOB}"}} == 1)',
        "warning",
        "The queue-time exporter has not polled GitHub",
        f"For {cfg.listenerDownLongerThan}, either its pod answers no scrape, or its last "
        f"complete poll is over twice that old: queue times are not measured and "
        "GpuJobsWaiting cannot fire. gpu_ci_queue_errors_total says why (rate limits, "
        "the App's token, GitHub's 5xx).",
        cfg.listenerDownLongerThan,
    )


def arc_rules(cfg: AlertsConfig, *, queue_time: bool) -> list[dict[str, Any]]:
    idle = f"count(max by (UUID) (max_over_time(DCGM_FI_DEV_GPU_UTIL[{IDLE_WINDOW}])) == 0) > 0"
    gone = (
        f"max by (scale_set) (max_over_time({_LISTENER_UP}[{LISTENER_SEEN_WITHIN}])) "
        f"unless on (scale_set) {_LISTENER_UP}"
    )
    return [
        jobs_waiting(cfg, whole=queue_time),
        *([exporter_rule(cfg)] if queue_time else []),
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


def queue_rules(cfg: AlertsConfig) -> list[dict[str, Any]]:
    """The queue-time exporter's rules where there is no ARC (VM runners): the whole queue
    time's GpuJobsWaiting and GpuQueueExporterFailing, as ARC's group has them."""
    return [jobs_waiting(cfg, whole=True), exporter_rule(cfg)]


def rule_groups(cfg: AlertsConfig, *, arc: bool, queue_time: bool = False) -> list[dict[str, Any]]:
    """The PrometheusRule's `spec.groups`: the GPU rules, and ARC's where the stack has ARC
    (`queue_time`: with the queue-time exporter), or the exporter's alone (VM runners)."""
    groups = [{"name": "gpu-ci.gpus", "rules": gpu_rules(cfg)}]
    if arc:
        groups.append({"name": "gpu-ci.arc", "rules": arc_rules(cfg, queue_time=queue_time)})
    elif queue_time:
        groups.append({"name": "gpu-ci.queue", "rules": queue_rules(cfg)})
    return groups
