"""`parse_ns` is Go's `time.ParseDuration` (go1.26 `src/time/format.go`) on every string of the
table, whose verdicts and nanoseconds `test_durations.py` holds to the pinned
`chainsaw` binary; the preview refuses exactly the strings Go refuses and the timeouts that
are not positive."""

from __future__ import annotations

import pytest

from components.platform.chainsaw.durations import DurationError, parse_ns
from tests.components.platform.chainsaw.go_durations import LOADS
from tests.components.platform.health_docs import doc, parsed, refused


def test_parse_ns_gives_go_s_nanoseconds_or_refuses_as_go_does() -> None:
    for text, ns in LOADS.items():
        if ns is None:
            with pytest.raises(DurationError):
                parse_ns(text)
        else:
            assert parse_ns(text) == ns, text


def test_the_preview_refuses_what_go_refuses_and_timeouts_that_are_not_positive() -> None:
    for text, ns in LOADS.items():
        test = doc(timeouts={"assert": text})
        if ns is None:
            assert "is not a duration Chainsaw can load" in refused(test), text
        elif ns <= 0:
            assert "is not a positive duration" in refused(test), text
        else:
            assert parsed(test).reads, text


TOO_LONG = "longer than Go's time.Duration holds, about 2562047h"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty"),
        ("-", "empty"),
        ("m", "each part must start with a number"),
        ("five minutes", "each part must start with a number"),
        (".s", "a point needs digits"),
        ("5", "a number has no unit"),
        ("1.5", "a number has no unit"),
        ("1s.5", "a number has no unit"),
        ("5minutes", "unknown unit 'minutes'"),
        ("1h-1m", "unknown unit 'h-'"),
        ("99999999999999999999ns", TOO_LONG),
        ("9223372036854775808ns", TOO_LONG),
        ("2562047h2562047h", TOO_LONG),
        ("-2562047h2562047h", TOO_LONG),
        ("2562047.9999h", TOO_LONG),
    ],
)
def test_each_refusal_says_why(text: str, reason: str) -> None:
    with pytest.raises(DurationError) as caught:
        parse_ns(text)
    assert str(caught.value) == reason
