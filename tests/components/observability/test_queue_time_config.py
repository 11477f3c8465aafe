"""`gpu-ci:observability.queueTime` on its own: what a runner URL says the exporter polls,
and each refusal of a wrong value, as the one message a user reads (test_queue_deploy.py
plans the stacks around it)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from components.observability.queue_time_config import QueueTimeConfig, runner_repository


@pytest.mark.parametrize(
    ("url", "repository"),
    [
        ("https://github.com/kubeflow/trainer", "kubeflow/trainer"),
        ("https://ghe.example.com/repos/x", "repos/x"),  # an owner may be called `repos`
        ("https://github.com/kubeflow", None),
        ("https://github.com/enterprises/acme", None),
    ],
)
def test_only_a_repositorys_runner_url_names_the_repository(
    url: str, repository: str | None
) -> None:
    assert runner_repository(url) == repository


def test_the_defaults() -> None:
    config = QueueTimeConfig()
    assert (config.enabled, config.repositories, config.labels) == (None, [], None)
    assert (config.interval, config.interval_s, config.rateLimitReserve) == ("60s", 60.0, 1000)


def test_values_it_accepts() -> None:
    config = QueueTimeConfig(
        repositories=["kubeflow/trainer", "Kubeflow/katib"],
        labels=["gpu-a10", "gpu.h100_x"],
        interval="15s",
    )
    assert config.repositories == ["kubeflow/trainer", "Kubeflow/katib"]
    assert config.labels == ["gpu-a10", "gpu.h100_x"]
    assert QueueTimeConfig(interval="1h").interval_s == 3600.0


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (
            {"repositories": ["kubeflow/trainer", "Kubeflow/Trainer", "a/b", "A/B", "a/b"]},
            "Value error, repositories listed twice (case-insensitively): ['A/B', "
            "'Kubeflow/Trainer', 'a/b', 'kubeflow/trainer']",
        ),
        (
            {"labels": ["GPU-A10", "gpu-a10", "x"]},
            "Value error, labels listed twice (case-insensitively): ['GPU-A10', 'gpu-a10']",
        ),
        (
            {"repositories": ["kubeflow/trainer", "trainer", "a/b/c"]},
            "Value error, not a repository as `owner/name` (e.g. kubeflow/trainer): "
            "['trainer', 'a/b/c']",
        ),
        ({"interval": "14s"}, "Value error, '14s' is outside 15s to 1h"),
        ({"interval": "61m"}, "Value error, '61m' is outside 15s to 1h"),
    ],
    ids=["repositories-twice", "labels-twice", "not-a-repository", "too-short", "too-long"],
)
def test_a_wrong_value_is_one_message(given: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError) as caught:
        QueueTimeConfig(**given)
    (error,) = caught.value.errors()
    assert error["msg"] == message
