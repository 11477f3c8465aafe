"""`gpu-ci:observability.queueTime`: the queue-time exporter (queue_deploy.py) and what it polls.

On wherever the stack runs ARC or registers VM runners (`gpu-ci:runner`) of an organization
or a repository (an enterprise's App installation reads no repository): it reads GitHub with
their GitHub App (the scale sets' Secret, or a Secret of its own holding the runners' App).
Repositories are `owner/name`; none listed means the runners' repository where their URL
names one (they take no other's jobs), else every repository the App's installation can
access (listed hourly). Labels are the runner labels GPU jobs ask for with `runs-on`
(case-insensitive, as GitHub compares them); by default the scale sets' names, which are
their labels, or the VM runners' labels.
"""

from __future__ import annotations

import re

from pydantic import Field, field_validator

from components.config_base import ConfigModel
from components.host.params.runner import github_scope
from components.observability.durations import duration

_REPOSITORY = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}")
_LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
MIN_INTERVAL_MS, MAX_INTERVAL_MS = 15_000, 3_600_000


def runner_repository(github_url: str) -> str | None:
    """The repository a runner URL names (`https://github.com/o/r` -> `o/r`), whose jobs
    alone its runners take; None for an organization's or an enterprise's runners. The
    runner step's own reading of the URL (`github_scope`)."""
    scope = github_scope(github_url)
    return scope.removeprefix("repos/") if scope.startswith("repos/") else None


def _unique(values: list[str], what: str) -> list[str]:
    folded = [v.casefold() for v in values]
    twice = sorted({v for v in values if folded.count(v.casefold()) > 1})
    if twice:
        raise ValueError(f"{what} listed twice (case-insensitively): {twice}")
    return values


class QueueTimeConfig(ConfigModel):
    """The whole queue time of GPU jobs, from GitHub's own job timestamps."""

    enabled: bool | None = Field(
        None,
        description="default: on where the stack runs ARC (gpu-ci:arc) or registers VM "
        "runners of an organization or repository (gpu-ci:runner); the queue-time exporter, "
        "which polls GitHub's REST API with their GitHub App",
    )
    repositories: list[str] = Field(
        default_factory=list,
        max_length=500,
        description="default: the VM runners' repository where gpu-ci:runner.url names "
        "one, else every repository the App's installation can access; the repositories "
        "whose workflow runs are polled, as `owner/name`",
    )
    labels: list[str] | None = Field(
        None,
        min_length=1,
        max_length=100,
        description="default: the scale sets' names, or the VM runners' labels; the "
        "runner labels of GPU jobs (`runs-on`), case-insensitive",
    )
    interval: str = Field(
        "60s", description="how often GitHub is polled (a Prometheus duration, 15s to 1h)"
    )
    rateLimitReserve: int = Field(
        1000,
        ge=0,
        le=100_000,
        description="the App's hourly requests the exporter leaves to the runners (the "
        "scale sets' listeners, the VM runners' JIT configs): below this many left it waits "
        "for the limit's reset",
    )

    @field_validator("repositories")
    @classmethod
    def _repositories(cls, values: list[str]) -> list[str]:
        bad = [v for v in values if not _REPOSITORY.fullmatch(v)]
        if bad:
            raise ValueError(f"not a repository as `owner/name` (e.g. kubeflow/trainer): {bad}")
        return _unique(values, "repositories")

    @field_validator("labels")
    @classmethod
    def _labels(cls, values: list[str] | None) -> list[str] | None:
        if values is None:
            return None
        bad = [v for v in values if not _LABEL.fullmatch(v)]
        if bad:
            raise ValueError(f"runner labels hold letters, digits, '.', '_' and '-': {bad}")
        return _unique(values, "labels")

    @field_validator("interval")
    @classmethod
    def _interval(cls, value: str) -> str:
        ms = duration(value, "queueTime.interval")
        if not MIN_INTERVAL_MS <= ms <= MAX_INTERVAL_MS:
            raise ValueError(f"{value!r} is outside 15s to 1h")
        return value

    @property
    def interval_s(self) -> float:
        return duration(self.interval, "queueTime.interval") / 1000
