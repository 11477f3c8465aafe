"""`python -m queue_exporter CONFIG` (queue_exporter/__main__.py): a refused config serves its
error metric and waits, never a crash loop; a good one polls every interval, or later when
GitHub asks it to wait, and never spins. `build`'s wiring is test_queue_poller.py's."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from components.observability.queue_exporter import __main__ as exporter
from components.observability.queue_exporter.exposition import Registry
from components.observability.queue_exporter.settings import Settings, load

GOOD = {
    "apiUrl": "https://api.github.com",
    "repositories": ["octo-org/trainer", "octo-org/sdk"],
    "labels": ["gpu-a10"],
    "intervalSeconds": 30,
    "buckets": [30, 60],
    "rateLimitReserve": 100,
    "port": 9200,
    "stateFile": "/state/seen.json",
    "appIdFile": "/app/id",
    "installationIdFile": "/app/installation",
    "privateKeyFile": "/app/key",
}


class StopLoopError(Exception):
    """Raised by the test's `sleep` to leave the exporter's endless loop."""


class Sleeps:
    """The loop's `sleep`: records each wait, advances the clock by it, stops after `n`."""

    def __init__(self, clock: list[float], n: int) -> None:
        self.clock, self.n, self.waits = clock, n, []  # type: ignore[var-annotated]

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.clock[0] += seconds
        if len(self.waits) == self.n:
            raise StopLoopError


class FakePoller:
    """A poll that takes `took[i]` seconds and leaves GitHub's `blocked[i]` wait."""

    def __init__(self, clock: list[float], took: list[float], blocked: list[float]) -> None:
        self.clock, self.took, self.blocked = clock, took, blocked
        self.blocked_until = 0.0
        self.polls = 0

    def poll(self) -> bool:
        self.clock[0] += self.took[self.polls]
        self.blocked_until = self.blocked[self.polls]
        self.polls += 1
        return True


Served = list[tuple[Callable[[], bytes], int]]


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Served:
    """What the exporter serves at /metrics, and on which port (no socket opened)."""
    calls: Served = []
    monkeypatch.setattr(exporter, "serve", lambda render, port: calls.append((render, port)))
    return calls


def write(tmp_path: Path, raw: Any) -> str:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(raw))
    return str(path)


def test_a_message_is_one_prefixed_line_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    exporter.log("polling")
    assert capsys.readouterr() == ("", "queue-exporter: polling\n")


def test_a_refused_config_serves_its_error_on_the_default_port_and_waits(
    tmp_path: Path, served: Served, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write(tmp_path, {**GOOD, "colour": "red"})
    sleeps = Sleeps([0.0], 2)
    with pytest.raises(StopLoopError):
        exporter.run(config, sleeps)
    assert capsys.readouterr().err == (
        f"queue-exporter: config refused, not polling: {config}: unknown keys ['colour']\n"
    )
    [(render, port)] = served
    assert port == exporter.DEFAULT_PORT == 9102
    assert render().decode().splitlines() == [
        "# HELP gpu_ci_queue_errors_total Polls that failed, by kind.",
        "# TYPE gpu_ci_queue_errors_total counter",
        'gpu_ci_queue_errors_total{kind="config"} 1',
    ]
    assert sleeps.waits == [3600, 3600]  # it stays up, idle, until the ConfigMap is fixed


def polled(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    took: list[float],
    blocked: list[float],
    raw: dict[str, Any] = GOOD,
) -> tuple[list[float], list[tuple[Settings, Registry]]]:
    """The waits of a run whose polls take `took` seconds each (the clock starts at 1000)."""
    clock = [1000.0]
    built: list[tuple[Settings, Registry]] = []
    poller = FakePoller(clock, took, blocked)

    def build(settings: Settings, registry: Registry) -> FakePoller:
        built.append((settings, registry))
        return poller

    monkeypatch.setattr(exporter, "build", build)
    monkeypatch.setattr(time, "time", lambda: clock[0])  # the module's clock
    sleeps = Sleeps(clock, len(took))
    with pytest.raises(StopLoopError):
        exporter.run(write(tmp_path, raw), sleeps)
    assert poller.polls == len(took)
    return sleeps.waits, built


def test_a_good_config_polls_every_interval_on_its_port(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    served: Served,
    capsys: pytest.CaptureFixture[str],
) -> None:
    waits, built = polled(monkeypatch, tmp_path, took=[5.0, 12.5], blocked=[0.0, 0.0])
    assert waits == [25.0, 17.5]  # the interval counts from each poll's start
    [(settings, registry)] = built
    assert settings.labels == ("gpu-a10",) and settings.port == 9200
    [(render, port)] = served
    assert port == 9200
    assert render == registry.render
    assert capsys.readouterr().err == "queue-exporter: polling 2 repositories every 30s\n"


def test_without_repositories_it_polls_the_whole_installation(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    served: Served,
    capsys: pytest.CaptureFixture[str],
) -> None:
    raw = {**GOOD, "repositories": [], "intervalSeconds": 12.5}
    polled(monkeypatch, tmp_path, took=[1.0], blocked=[0.0], raw=raw)
    assert capsys.readouterr().err == (
        "queue-exporter: polling all the installation repositories every 12.5s\n"
    )


def test_it_waits_until_github_unblocks_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, served: Served
) -> None:
    waits, _ = polled(monkeypatch, tmp_path, took=[2.0], blocked=[1000.0 + 1800])
    assert waits == [1798.0]  # GitHub's reset, not the 30 s interval


def test_a_poll_longer_than_the_interval_still_waits_a_second(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, served: Served
) -> None:
    waits, _ = polled(monkeypatch, tmp_path, took=[45.0, 30.5], blocked=[0.0, 0.0])
    assert waits == [1.0, 1.0]


def test_the_pollers_messages_go_to_the_log_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A state file it cannot read is reported once the poller starts: on stderr, prefixed,
    as every message of the exporter (kubectl logs), and counted as a `state` error."""
    state = tmp_path / "seen.json"
    state.write_text("{not json")
    settings = load(write(tmp_path, {**GOOD, "stateFile": str(state)}))
    registry = Registry()
    poller = exporter.build(settings, registry, now=lambda: 1000.0)
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"queue-exporter: {state}: ") and err.count("\n") == 1
    assert 'gpu_ci_queue_errors_total{kind="state"} 1' in registry.render().decode()
    assert poller.started == 1000.0  # the clock given is the poller's
