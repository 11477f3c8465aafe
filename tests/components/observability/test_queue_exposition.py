"""The exporter's metrics text and its /metrics server: every rendering checked by the
pinned Prometheus's own parser (`promtool check metrics`, tests/upstream_tools.py) as well as
byte for byte, since Prometheus is what reads it."""

from __future__ import annotations

import math
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from components.observability.queue_exporter.exposition import (
    CONTENT_TYPE,
    Family,
    Registry,
    escape,
    number,
    serve,
)
from tests.upstream_tools import run_tool


def _promtool_accepts(text: str) -> None:
    done = run_tool("promtool", "check", "metrics", stdin=text)
    assert done.returncode == 0, done.stdout + done.stderr


def test_label_values_escape_what_the_text_format_requires() -> None:
    assert escape('a"b\\c\nd') == 'a\\"b\\\\c\\nd'
    assert escape("\\n") == "\\\\n"  # a backslash before an n is not a line feed


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (3.0, "3"),
        (0.0, "0"),
        (-2.0, "-2"),
        (0.25, "0.25"),
        (7200.5, "7200.5"),
        (1e21, "1000000000000000000000"),
        (math.inf, "+Inf"),
        (-math.inf, "-Inf"),
        (math.nan, "NaN"),
    ],
)
def test_numbers_as_the_text_format_writes_them(value: float, text: str) -> None:
    assert number(value) == text


def test_a_counter_and_a_gauge_render_sorted_with_escaped_labels() -> None:
    registry = Registry()
    counter = registry.family("x_errors_total", "counter", "Polls that failed, by kind.")
    gauge = registry.family("x_remaining", "gauge", "Left.")
    counter.inc((("kind", "state"),))
    counter.inc((("kind", "state"),), 2.0)
    counter.inc((("kind", 'a"b\\c\nd'),))
    gauge.set((), 5.0)
    gauge.set((), 4.5)
    registry.family("x_empty", "gauge", "Nothing yet.")
    text = registry.render().decode()
    assert text == (
        "# HELP x_errors_total Polls that failed, by kind.\n"
        "# TYPE x_errors_total counter\n"
        'x_errors_total{kind="a\\"b\\\\c\\nd"} 1\n'
        'x_errors_total{kind="state"} 3\n'
        "# HELP x_remaining Left.\n"
        "# TYPE x_remaining gauge\n"
        "x_remaining 4.5\n"
        "# HELP x_empty Nothing yet.\n"
        "# TYPE x_empty gauge\n"
    )
    _promtool_accepts(text)


def test_a_family_is_made_once_and_keeps_its_first_definition() -> None:
    registry = Registry()
    first = registry.family("x_wait_seconds", "histogram", "Waits.", (1.0,))
    again = registry.family("x_wait_seconds", "counter", "Other.")
    assert again is first and (first.kind, first.help, first.buckets) == (
        "histogram",
        "Waits.",
        (1.0,),
    )
    assert list(registry.families) == ["x_wait_seconds"]


def test_a_histogram_is_cumulative_buckets_to_inf_a_sum_and_a_count() -> None:
    registry = Registry()
    wait = registry.family("x_wait_seconds", "histogram", "Waits.", (60.0, 300.0, 7200.0))
    a, b = (("repository", "o/a"), ("runner_label", "gpu")), (("repository", "o/b"),)
    for value in (60.0, 61.0, 300.0, 9000.0, 0.5):
        wait.observe(a, value)
    wait.observe(b, 7200.0)
    text = registry.render().decode()
    assert text == (
        "# HELP x_wait_seconds Waits.\n"
        "# TYPE x_wait_seconds histogram\n"
        'x_wait_seconds_bucket{repository="o/a",runner_label="gpu",le="60"} 2\n'
        'x_wait_seconds_bucket{repository="o/a",runner_label="gpu",le="300"} 4\n'
        'x_wait_seconds_bucket{repository="o/a",runner_label="gpu",le="7200"} 4\n'
        'x_wait_seconds_bucket{repository="o/a",runner_label="gpu",le="+Inf"} 5\n'
        'x_wait_seconds_sum{repository="o/a",runner_label="gpu"} 9421.5\n'
        'x_wait_seconds_count{repository="o/a",runner_label="gpu"} 5\n'
        'x_wait_seconds_bucket{repository="o/b",le="60"} 0\n'
        'x_wait_seconds_bucket{repository="o/b",le="300"} 0\n'
        'x_wait_seconds_bucket{repository="o/b",le="7200"} 1\n'
        'x_wait_seconds_bucket{repository="o/b",le="+Inf"} 1\n'
        'x_wait_seconds_sum{repository="o/b"} 7200\n'
        'x_wait_seconds_count{repository="o/b"} 1\n'
    )
    _promtool_accepts(text)


def test_a_histogram_without_labels() -> None:
    family = Family("x_wait_seconds", "histogram", "Waits.", (1.5,))
    family.observe((), 1.0)
    assert family.lines()[2:] == [
        'x_wait_seconds_bucket{le="1.5"} 1',
        'x_wait_seconds_bucket{le="+Inf"} 1',
        "x_wait_seconds_sum 1",
        "x_wait_seconds_count 1",
    ]


@pytest.fixture
def server() -> Iterator[str]:
    registry = Registry()
    registry.family("x_up", "gauge", "Up.").set((), 1.0)
    served = serve(registry.render, 0, "127.0.0.1")
    yield f"http://127.0.0.1:{served.server_address[1]}"
    served.shutdown()
    served.server_close()


def test_metrics_are_served_with_the_text_formats_content_type(server: str) -> None:
    for path in ("/metrics", "/metrics?name[]=x_up"):
        with urllib.request.urlopen(server + path, timeout=10) as reply:
            assert reply.status == 200
            assert reply.headers["Content-Type"] == CONTENT_TYPE
            assert CONTENT_TYPE == "text/plain; version=0.0.4; charset=utf-8"
            body = reply.read()
            assert reply.headers["Content-Length"] == str(len(body))
            assert body == b"# HELP x_up Up.\n# TYPE x_up gauge\nx_up 1\n"


def test_any_other_path_is_not_found(server: str) -> None:
    for path in ("/", "/metricsx", "/other/metrics"):
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(server + path, timeout=10)
        assert err.value.code == 404


def test_by_default_metrics_are_served_on_every_interface_from_a_daemon_thread() -> None:
    """The pod's Prometheus scrapes its IP, not loopback; the thread never keeps a process
    that is ending alive."""
    before = set(threading.enumerate())
    served = serve(lambda: b"x_up 1\n", 0)
    try:
        assert served.server_address[0] == "0.0.0.0"
        (thread,) = set(threading.enumerate()) - before
        assert thread.daemon
        port = served.server_address[1]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as reply:
            assert reply.read() == b"x_up 1\n"
    finally:
        served.shutdown()
        served.server_close()
