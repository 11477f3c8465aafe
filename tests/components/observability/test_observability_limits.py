"""`gpu-ci:observability`: a retention Prometheus would cut, or a StorageClass name Kubernetes
would refuse, is one problem naming the key and the fix, before anything registers."""

from __future__ import annotations

from typing import Any

import pytest

from components.observability.durations import MAX_MS, MAX_RETENTION_MS, milliseconds
from stacks.config import ConfigError, StackConfig, load_config, raw_from_flat
from tests.stacks.stack_helpers import flat

PLATFORM = {
    "gpu-ci:host": {"target": "local"},
    "gpu-ci:cluster": {"name": "gpu-ci"},
    "gpu-ci:platform": {"accelerator": "a10"},
}
OBS = "gpu-ci:observability"


def load(observability: dict[str, Any]) -> StackConfig:
    return load_config(raw_from_flat(flat({**PLATFORM, OBS: observability}), set()), "test")


def problems(observability: dict[str, Any]) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load(observability)
    return [str(p) for p in caught.value.problems]


@pytest.mark.parametrize("retention", ["100y", "5214w", "36500d", "15d", "1y2w"])
def test_a_retention_up_to_100y_is_kept(retention: str) -> None:
    assert load({"retention": retention}).observability.retention == retention


@pytest.mark.parametrize("retention", ["101y", "5215w", "36501d", "100y1ms", "300y"])
def test_a_retention_over_100y_is_refused(retention: str) -> None:
    assert problems({"retention": retention}) == [
        f"gpu-ci:observability.retention: {retention!r} is over Prometheus's maximum retention, "
        "100y (cmd/prometheus/main.go cuts a longer one to 100y): give at most 100y, e.g. 90d "
        f"[given: {retention!r}]"
    ]


def test_durations_overflowing_prometheus_are_not_durations() -> None:
    """model.ParseDuration refuses over int64 nanoseconds ("duration out of range")."""
    assert milliseconds("100y") == MAX_RETENTION_MS
    assert MAX_RETENTION_MS < MAX_MS
    assert milliseconds("292y") is not None and milliseconds("293y") is None
    assert milliseconds("1h30m") == 5_400_000 and milliseconds("0s") is None
    assert milliseconds("30m1h") is None and milliseconds("") is None
    assert problems({"scrapeInterval": "293y"}) == [
        "gpu-ci:observability.scrapeInterval: '293y' is longer than any Prometheus duration "
        "for scrapeInterval (int64 nanoseconds, about 292 years) [given: '293y']"
    ]


@pytest.mark.parametrize("name", ["oci-bv", "gp3", "ebs.csi.aws.com", "a" * 253, "standard"])
def test_a_storage_class_is_a_dns_subdomain(name: str) -> None:
    assert load({"storageClassName": name}).observability.storageClassName == name


@pytest.mark.parametrize(
    "name", ["Fast_SSD", "oci bv", "-bv", "bv-", "a..b", "a" * 254, "oci-bv\n", ""]
)
def test_a_storage_class_kubernetes_refuses_is_one_problem(name: str) -> None:
    (problem,) = problems({"storageClassName": name})
    assert problem.split(" [given: ")[0] == (
        f"gpu-ci:observability.storageClassName: {name!r} is not a StorageClass name: a DNS "
        "subdomain (RFC 1123) of lowercase letters, digits, '-' and '.', each dot-separated "
        "part starting and ending with a letter or digit, at most 253 characters; give one "
        "`kubectl get storageclass` lists (e.g. oci-bv), or leave it unset for the cluster's "
        "default"
    )


def test_an_alert_threshold_is_checked_at_its_key() -> None:
    assert problems({"alerts": {"listenerDownLongerThan": "5 min"}}) == [
        "gpu-ci:observability.alerts.listenerDownLongerThan: '5 min' is not a Prometheus "
        "duration for an alert threshold: numbers with units from y, w, d, h, m, s down to ms, "
        "each once and in that order, not all zero; e.g. 15d or 1h30m [given: '5 min']"
    ]
    assert problems({"alerts": {"jobsWaiting": "5m"}})[0].startswith(
        "gpu-ci:observability.alerts.jobsWaiting: unknown key (did you mean "
        "'jobsWaitingLongerThan'?)"
    )
