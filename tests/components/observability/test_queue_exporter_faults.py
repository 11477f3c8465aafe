"""The queue-time exporter when GitHub limits, fails or sends nonsense, and when its config
is wrong: it waits as GitHub asks, skips and counts what it cannot read, never raises."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from components.observability.queue_exporter.exposition import escape
from components.observability.queue_exporter.settings import SettingsError, load, parse
from tests.components.observability import github_fixtures as gh
from tests.components.observability.fake_github import FakeGitHub, Fault
from tests.components.observability.queue_harness import (
    LABEL,
    MINUTE,
    T0,
    Clock,
    Life,
    World,
    clock_of,
    config,
    series,
)

REPO = "octo-org/trainer"


def _life(fake: FakeGitHub, tmp_path: Path, **changes: object) -> tuple[Life, Clock]:
    clock = clock_of(fake)
    World(fake).sync(T0)
    return Life.start(config(fake, tmp_path, [REPO], **changes), clock), clock


def _metric(life: Life, name: str) -> dict[str, float]:
    return series(life.scrape(), name)


@pytest.mark.parametrize(
    ("fault", "kind", "wait"),
    [
        (
            Fault(403, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(T0) + 1800)}),
            "primary",
            1800.0,
        ),
        (Fault(429, {"retry-after": "120"}), "secondary", 120.0),
        (
            Fault(403, {}, b'{"message": "You have exceeded a secondary rate limit."}'),
            "secondary",
            60.0,
        ),
    ],
    ids=["primary-reset", "secondary-retry-after", "secondary-no-header"],
)
def test_a_rate_limit_stops_every_request_until_github_allows(
    fake: FakeGitHub, tmp_path: Path, fault: Fault, kind: str, wait: float
) -> None:
    life, clock = _life(fake, tmp_path)
    assert life.poller.poll()
    fake.fail_next(fault)
    clock.t += MINUTE
    assert not life.poller.poll()
    assert life.poller.blocked_until == clock.t + wait if kind != "primary" else T0 + 1800
    sent = len(fake.log)
    clock.t = life.poller.blocked_until - 1
    assert not life.poller.poll()
    assert len(fake.log) == sent  # not one request while limited
    clock.t = life.poller.blocked_until
    assert life.poller.poll()
    assert _metric(life, "gpu_ci_queue_errors_total") == {f'{{kind="{kind}_rate_limit"}}': 1.0}
    life.stop()


def test_a_server_error_fails_one_poll_and_the_next_recovers(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    life, clock = _life(fake, tmp_path)
    assert life.poller.poll()
    done = _metric(life, "gpu_ci_queue_last_success_timestamp_seconds")
    fake.fail_next(Fault(502, {}, b"<html>Bad gateway</html>"))
    clock.t += MINUTE
    assert not life.poller.poll()
    assert _metric(life, "gpu_ci_queue_last_success_timestamp_seconds") == done
    assert _metric(life, "gpu_ci_queue_errors_total") == {'{kind="server_error"}': 1.0}
    clock.t += MINUTE
    assert life.poller.poll()
    assert _metric(life, "gpu_ci_queue_last_success_timestamp_seconds") == {"": clock.t}
    assert _metric(life, "gpu_ci_queue_api_requests_total")['{code="502"}'] == 1.0
    life.stop()


def test_the_primary_budget_below_the_reserve_waits_for_the_reset(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.used = fake.limit - 10  # the scale sets' listeners spent the rest
    life, clock = _life(fake, tmp_path)
    assert life.poller.poll()
    sent = len(fake.log)
    clock.t += MINUTE
    assert not life.poller.poll()
    assert len(fake.log) == sent
    assert life.poller.blocked_until == (int(T0) // 3600 + 1) * 3600
    # 10 left, less the token and the two run lists of the first poll.
    assert _metric(life, "gpu_ci_queue_rate_limit_remaining") == {"": 7.0}
    life.stop()


def test_hostile_answers_are_skipped_and_counted(fake: FakeGitHub, tmp_path: Path) -> None:
    """Missing fields, a start before the creation, labels with quotes and newlines, a
    page over the bound: skipped with reasons; the good job in between is still observed."""
    life, _ = _life(fake, tmp_path, max_body_bytes=64 * 1024)
    good = gh.job(1, 10, [LABEL], T0 - 600, started=T0 - 300, runner="r1")
    backwards = gh.job(2, 10, [LABEL], T0 - 100, started=T0 - 400, runner="r2")
    evil = gh.job(3, 10, ['gpu-a10"} 1\nevil{x="', LABEL + "\n"], T0 - 50, started=T0, runner="r3")
    missing = {k: v for k, v in gh.job(4, 10, [LABEL], T0).items() if k != "created_at"}
    fake.runs = {
        REPO: [gh.run(REPO, 10, "in_progress", T0 - 600), gh.run(REPO, 11, "in_progress", T0)]
    }
    fake.jobs = {10: [good, backwards, evil, missing, "not a job"], 11: []}  # type: ignore[list-item]
    huge = json.dumps({"total_count": 1, "jobs": [good] * 200}).encode()
    fake.fail_next(Fault(200, {}, huge, path_contains="/runs/11/jobs"))
    life.poller.started = T0 - 3600  # a record from before: every job may be observed
    life.poller.fresh = False
    assert life.poller.poll()
    text = life.scrape()
    assert _metric(life, "gpu_ci_queue_skipped_items_total") == {
        '{reason="bad_timestamp"}': 1.0,
        '{reason="negative_duration"}': 1.0,
        '{reason="not_an_object"}': 1.0,
        '{reason="oversized_response"}': 1.0,
    }
    assert _metric(life, "gpu_ci_queue_wait_seconds_count") == {
        f'{{repository="{REPO}",runner_label="{LABEL}"}}': 1.0
    }
    assert "evil" not in text
    life.stop()


def test_label_values_are_escaped_as_the_text_format_requires() -> None:
    assert escape('a"b\\c\nd') == 'a\\"b\\\\c\\nd'


def test_a_wrong_config_file_is_one_message(tmp_path: Path) -> None:
    base = {
        "apiUrl": "https://api.github.com",
        "repositories": ["octo-org/trainer"],
        "labels": [LABEL],
        "intervalSeconds": 60,
        "buckets": [1, 10],
        "rateLimitReserve": 100,
        "port": 9102,
        "stateFile": "/s",
        "appIdFile": "/a",
        "installationIdFile": "/i",
        "privateKeyFile": "/k",
    }
    cases = {
        "labels": ([], "config.json: `labels` is empty: name the runner labels GPU jobs use"),
        "repositories": (
            ["trainer"],
            "config.json: `repositories` has entries that are not "
            "[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}: ['trainer']",
        ),
        "intervalSeconds": (1, "config.json: `intervalSeconds` must be 10 to 3600, not 1.0"),
        "buckets": ([10, 1], "config.json: `buckets` must be positive and strictly increasing"),
        "port": ("9102", "config.json: `port` must be a int, not '9102'"),
    }
    for key, (value, message) in cases.items():
        with pytest.raises(SettingsError) as err:
            parse({**base, key: value}, "config.json")
        assert str(err.value) == message
    with pytest.raises(SettingsError, match=r"unknown keys \['extra'\]"):
        parse({**base, "extra": 1}, "config.json")
    path = tmp_path / "config.json"
    path.write_text("{not json")
    with pytest.raises(SettingsError, match="not JSON"):
        load(str(path))


def test_an_app_key_github_refuses_is_an_error_not_a_crash(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.app_id = "999"  # the JWT's `iss` is not this App: GitHub answers 401
    life, _ = _life(fake, tmp_path)
    assert not life.poller.poll()
    assert _metric(life, "gpu_ci_queue_errors_total") == {'{kind="unauthorized"}': 1.0}
    life.stop()


def test_a_record_it_cannot_read_starts_afresh_with_one_message(
    fake: FakeGitHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "seen.json").write_text('{"version": 1, "jobs": {"x": "y"}')
    life, _ = _life(fake, tmp_path)
    assert capsys.readouterr().err == (
        f"queue-exporter: {tmp_path / 'seen.json'}: not a record this exporter wrote; "
        "starting afresh\n"
    )
    assert life.poller.fresh
    assert life.poller.poll()
    assert _metric(life, "gpu_ci_queue_errors_total") == {'{kind="state"}': 1.0}
    assert json.loads((tmp_path / "seen.json").read_text())["version"] == 1
    life.stop()
