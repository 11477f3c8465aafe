"""Duration strings and what Go's `time.ParseDuration` (go1.26 `src/time/format.go`) makes of
them: the table `test_durations.py` holds to the pinned `chainsaw` binary and the
parser's own tests (`test_durations_go.py`) hold `parse_ns` to."""

from __future__ import annotations

S = 1_000_000_000
LOADS = {
    "5m": 300 * S,
    "1m30s": 90 * S,
    "250ms": S // 4,
    "1.5h": 5400 * S,
    ".5s": S // 2,
    "5.s": 5 * S,
    "+5m": 300 * S,
    "1h-1m": None,  # a sign only leads
    "1µs": 1000,  # micro sign
    "1μs": 1000,  # Greek mu
    "1us": 1000,
    "0": 0,
    "+0": 0,
    "-0": 0,
    "0s": 0,
    "-5m": -300 * S,
    "00000000000000000000005s": 5 * S,
    "1.0000000000000000000000001s": S,
    "2562047h": 2562047 * 3600 * S,
    "2562047h47m16.854775807s": (1 << 63) - 1,
    "9223372036854775807ns": (1 << 63) - 1,
    "-9223372036854775808ns": -(1 << 63),
    "9223372036854775808ns": None,
    "2562047h47m16.854775808s": None,
    "2562048h": None,
    "3000000h": None,
    "99999999999999999999ns": None,
    "5 m": None,
    " 5m": None,
    "5m ": None,
    "5minutes": None,
    "5M": None,
    "5": None,
    "": None,
    "m": None,
    ".s": None,
    "-": None,
    "1..5s": None,
    "1e3s": None,
    "0x10s": None,
    "five minutes": None,
    "1h.5m": 3630 * S,  # a unit ends at a point as at a digit
    "9.8333781096113888532576674838755h": 35400161194600,  # digits past 2^63 ignored
    "-2562047h47m16.854775808s": -(1 << 63),
    "-9223372036854775809ns": None,
    "2562047h2562047h": None,  # each part fits, the sum does not
    "-2562047h2562047h": None,
    "2562047.9999h": None,  # the fraction takes it past
    "1.5": None,
    "1s.5": None,
    "+": None,
    ".": None,
}
"""Each string: its nanoseconds as Go's ParseDuration gives them, or None where it refuses."""
