"""`gpu-ci:observability`: on where a stack deploys onto a cluster, every key checked."""

from __future__ import annotations

from typing import Any

import pytest

from stacks.config import ConfigError, StackConfig, load_config, raw_from_flat
from tests.components.arc.arc_helpers import arc_stack, gpu_pod, oke
from tests.stacks.stack_helpers import dev_stack, flat

CLUSTER = {"gpu-ci:host": {"target": "local"}, "gpu-ci:cluster": {"name": "gpu-ci"}}
PLATFORM = {**CLUSTER, "gpu-ci:platform": {"accelerator": "a10"}}
OBS = "gpu-ci:observability"
UNITS = (
    "numbers with units from y, w, d, h, m, s down to ms, each once and in that order, not "
    "all zero; e.g. 15d or 1h30m"
)


def load(values: dict[str, Any]) -> StackConfig:
    return load_config(raw_from_flat(flat(values), {"gpu-ci:arc"} & set(values)), "test")


def problems(values: dict[str, Any]) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load(values)
    return [str(p) for p in caught.value.problems]


def arc(**observability: Any) -> dict[str, Any]:
    values = arc_stack(gpu_pod(), cluster=oke())
    if observability:
        values[OBS] = observability
    return values


@pytest.mark.parametrize(
    ("values", "on"),
    [
        (PLATFORM, True),
        (arc(), True),
        (CLUSTER, False),  # a cluster for other stacks to deploy onto: theirs to watch
        ({"gpu-ci:host": {"target": "local"}}, False),
        ({**PLATFORM, OBS: {"enabled": False}}, False),
    ],
    ids=["platform", "arc", "cluster-only", "host-only", "off"],
)
def test_on_by_default_where_the_stack_deploys_onto_a_cluster(
    values: dict[str, Any], on: bool
) -> None:
    assert load(values).observability_on is on


def test_the_defaults() -> None:
    obs = load(PLATFORM).observability
    assert (obs.prometheus, obs.namespace, obs.releaseName) == (
        "deploy",
        "monitoring",
        "kube-prometheus-stack",
    )
    assert (obs.retention, obs.retentionSize, obs.scrapeInterval) == ("15d", None, "30s")
    assert obs.chartVersion == "84.4.0"
    assert obs.monitorLabels == {"release": "kube-prometheus-stack"}
    assert obs.grafana.adminPassword is None


def test_enabled_without_a_cluster_to_watch_is_refused() -> None:
    assert problems({**CLUSTER, OBS: {"enabled": True}}) == [
        "gpu-ci:observability: enabled, but this stack deploys nothing onto a cluster (no "
        "gpu-ci:platform, no gpu-ci:arc): the metrics are scraped where the GPU operator or "
        "ARC runs (a VM runner without a cluster runs no GPU exporter); set one, or enable "
        # the key holds Grafana's password: never echoed
        "observability in the stack that deploys onto the cluster [given: [secret]]"
    ]


def test_arc_metrics_switched_off_under_observability_is_refused() -> None:
    values = arc()
    values["gpu-ci:arc"]["controller"] = {"metrics": False}
    (problem,) = problems(values)
    assert problem.startswith(
        "gpu-ci:observability: on, but gpu-ci:arc.controller.metrics is false: the job metrics "
        "come from ARC's listeners"
    )
    values[OBS] = {"enabled": False}
    assert load(values).observability_on is False


BAD_VALUES = [
    (
        "retention",
        "15 days",
        "gpu-ci:observability.retention: '15 days' is not a Prometheus "
        "duration for retention: numbers with units from y, w, d, h, m, s down to ms, each "
        "once and in that order, not all zero; e.g. 15d or 1h30m [given: '15 days']",
    ),
    (
        "retention",
        "0d",
        "gpu-ci:observability.retention: '0d' is not a Prometheus duration for retention: "
        f"{UNITS} [given: '0d']",
    ),
    (
        "scrapeInterval",
        "30s\n",
        "gpu-ci:observability.scrapeInterval: '30s\\n' is not a Prometheus duration for "
        f"scrapeInterval: {UNITS} [given: '30s\\n']",
    ),
    (
        "retention",
        "30m1h",
        "gpu-ci:observability.retention: '30m1h' is not a Prometheus duration for "
        f"retention: {UNITS} [given: '30m1h']",
    ),
    (
        "releaseName",
        "a-release-name-over-26-chars",
        "gpu-ci:observability.releaseName: String should have at most 26 characters "
        "[given: 'a-release-name-over-26-chars']",
    ),
    (
        "retentionSize",
        "8G",
        "gpu-ci:observability.retentionSize: '8G' is not a Prometheus size: a "
        "whole number and B, KB, MB, GB, TB, PB or EB, e.g. 8GB [given: '8G']",
    ),
    (
        "chartVersion",
        "latest",
        "gpu-ci:observability.chartVersion: 'latest' is not a chart version "
        "like 84.4.0 [given: 'latest']",
    ),
    (
        "prometheus",
        "grafana",
        "gpu-ci:observability.prometheus: must be one of 'deploy', 'existing' [given: 'grafana']",
    ),
    (
        "namespace",
        "Monitoring",
        "gpu-ci:observability.namespace: not a Kubernetes name: lowercase "
        "letters, digits and '-', starting and ending with a letter or digit, at most 63 "
        "characters [given: 'Monitoring']",
    ),
    (
        "retension",
        "15d",
        "gpu-ci:observability.retension: unknown key (did you mean 'retention'?); allowed "
        "keys: enabled, prometheus, namespace, releaseName, chartVersion, retention, "
        "retentionSize, scrapeInterval, storageSize, storageClassName, monitorLabels, "
        "grafana, alerts, queueTime",
    ),
]


# Ids with nothing pytest escapes: it escapes an `ids=` id again each time it collects in one
# process, so mutmut (which collects, then runs tests by id) could not select `30s\n` by its id.
@pytest.mark.parametrize(
    ("key", "value", "problem"),
    BAD_VALUES,
    ids=[f"{key}-{value}".replace("\n", " newline") for key, value, _ in BAD_VALUES],
)
def test_each_bad_value_is_one_problem_at_its_key(key: str, value: str, problem: str) -> None:
    assert problems({**PLATFORM, OBS: {key: value}}) == [problem]


@pytest.mark.parametrize("good", ["15d", "1h30m", "90m", "2w", "500ms"])
def test_prometheus_durations(good: str) -> None:
    assert load({**PLATFORM, OBS: {"retention": good}}).observability.retention == good


def test_the_platform_goes_onto_arcs_cluster_with_the_gpu_pools_model() -> None:
    values = arc()
    values["gpu-ci:platform"] = {"service": "oke"}
    platform = load(values).platform
    assert platform is not None and platform.accelerator == "a10"
    values["gpu-ci:arc"]["cluster"] = {"kubeconfig": "apiVersion: v1\nkind: Config\n"}
    assert problems(values) == [
        "gpu-ci:platform: accelerator is required unless the OKE GPU pool's "
        "listed shape gives the GPU model (gpu-ci:arc.cluster.oke.gpuPool.shape; e.g. "
        'accelerator: a10) [given: {"service": "oke"}]'
    ]


APP_KEY = "-----BEGIN RSA PRIVATE KEY-----\nMIIEtest\n-----END RSA PRIVATE KEY-----\n"


def with_runner(url: str, **queue_time: Any) -> dict[str, Any]:
    """The dev stack's layers with a VM runner registered at `url`."""
    values = dev_stack(
        **{
            "gpu-ci:runner": {
                "url": url,
                "githubApp": {"appId": 1, "installationId": 2, "privateKey": APP_KEY},
            }
        }
    )
    if queue_time:
        values[OBS] = {"queueTime": queue_time}
    return values


def load_runner(values: dict[str, Any]) -> StackConfig:
    return load_config(raw_from_flat(flat(values), {"gpu-ci:runner"}), "test")


def runner_problems(values: dict[str, Any]) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_runner(values)
    return [str(p) for p in caught.value.problems]


def test_queue_time_enabled_with_neither_arc_nor_a_vm_runner_is_refused() -> None:
    assert problems({**PLATFORM, OBS: {"queueTime": {"enabled": True}}}) == [
        "gpu-ci:observability: queueTime.enabled, but this stack runs no ARC (gpu-ci:arc) and "
        "registers no VM runner (gpu-ci:runner): the queue-time exporter reads GitHub with "
        "their GitHub App; remove queueTime.enabled or deploy it from the stack with the "
        "runners [given: [secret]]"
    ]


def test_queue_time_enabled_with_a_vm_runner_or_arc_is_accepted() -> None:
    values = with_runner("https://github.com/kubeflow", enabled=True)
    assert load_runner(values).observability.queueTime.enabled is True
    assert load(arc(queueTime={"enabled": True})).observability.queueTime.enabled is True


def test_other_repositories_than_a_repository_runners_are_refused() -> None:
    values = with_runner("https://github.com/kubeflow/trainer", repositories=["kubeflow/sdk"])
    assert runner_problems(values) == [
        "gpu-ci:observability: queueTime.repositories lists ['kubeflow/sdk'], but the VM "
        "runners register at https://github.com/kubeflow/trainer and take only its jobs; "
        "remove queueTime.repositories (it is kubeflow/trainer already) [given: [secret]]"
    ]
    same = with_runner("https://github.com/kubeflow/trainer", repositories=["Kubeflow/Trainer"])
    assert load_runner(same).observability.queueTime.repositories == ["Kubeflow/Trainer"]
    org = with_runner("https://github.com/kubeflow", repositories=["kubeflow/sdk"])
    assert load_runner(org).observability.queueTime.repositories == ["kubeflow/sdk"]


def test_queue_time_enabled_for_enterprise_runners_is_refused() -> None:
    values = with_runner("https://github.com/enterprises/acme", enabled=True)
    assert runner_problems(values) == [
        "gpu-ci:observability: queueTime.enabled, but the VM runners register at "
        "https://github.com/enterprises/acme, an enterprise: their GitHub App's installation "
        "there reaches no repository's workflow runs (GitHub grants an enterprise installation "
        "enterprise permissions only); remove queueTime.enabled [given: [secret]]"
    ]
    assert load_runner(with_runner("https://github.com/enterprises/acme")).observability_on
