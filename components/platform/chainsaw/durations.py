"""Go's duration syntax, as Chainsaw reads every timeout of a Test.

Chainsaw's timeouts are `metav1.Duration` (kyverno/chainsaw v0.2.15
`pkg/apis/v1alpha1/types.go` `Timeouts`), which Kubernetes parses with Go's
`time.ParseDuration` when it loads the Test (go1.26 `src/time/format.go`). A string Go
refuses fails the check Job on every run, so the preview must refuse exactly those; the
tests hold this parser to the `chainsaw` binary itself on every string of their table.

Go's rules, restated: an optional sign; then `0` alone, or one or more numbers (digits with
an optional fraction, at least one digit) each followed by a unit (`ns`, `us`, `µs`, `μs`,
`ms`, `s`, `m`, `h`); the total must fit a signed 64-bit count of nanoseconds, and the
integer part of each number must fit in 2^63 before its unit multiplies it.
"""

from __future__ import annotations

LIMIT = 1 << 63
"""One past the largest `time.Duration` in nanoseconds (about 2562047h)."""
_UNITS_NS = {
    "ns": 1,
    "us": 1_000,
    "\u00b5s": 1_000,  # micro sign
    "\u03bcs": 1_000,  # Greek small letter mu
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60 * 1_000_000_000,
    "h": 3600 * 1_000_000_000,
}
_DIGITS = "0123456789"
_TOO_LONG = "longer than Go's time.Duration holds, about 2562047h"


class DurationError(ValueError):
    """A string Go's `time.ParseDuration` refuses; the message says why."""


def _integer(text: str) -> tuple[int, str]:
    """The leading digits as a number, refusing one past 2^63 as Go does."""
    value, index = 0, 0
    while index < len(text) and text[index] in _DIGITS:
        value = value * 10 + int(text[index])
        if value > LIMIT:
            raise DurationError(_TOO_LONG)
        index += 1
    return value, text[index:]


def _fraction(text: str) -> tuple[int, float, str]:
    """The digits after a point (as Go keeps them: those that fit, then ignored). Go's
    `leadingFraction` also stops at `x > (1<<63-1)/10`, lest `x*10` wrap its uint64; a
    Python int does not wrap, and any such `x` makes `bigger` pass 2^63 too."""
    value, scale, index, full = 0, 1.0, 0, False
    while index < len(text) and text[index] in _DIGITS:
        bigger = value * 10 + int(text[index])
        full = full or bigger > LIMIT
        if not full:
            value, scale = bigger, scale * 10
        index += 1
    return value, scale, text[index:]


def parse_ns(text: str) -> int:
    """`text` in nanoseconds, or `DurationError` where Go refuses it."""
    rest, negative = text, False
    if rest[:1] in ("-", "+"):
        negative, rest = rest[0] == "-", rest[1:]
    if rest == "0":
        return 0
    if not rest:
        raise DurationError("empty")
    total = 0
    while rest:
        if rest[0] != "." and rest[0] not in _DIGITS:
            raise DurationError("each part must start with a number")
        before = len(rest)
        whole, rest = _integer(rest)
        digits = len(rest) != before
        fraction, scale = 0, 1.0
        if rest[:1] == ".":
            before = len(rest) - 1
            fraction, scale, rest = _fraction(rest[1:])
            digits = digits or len(rest) != before
        if not digits:
            raise DurationError("a point needs digits")
        end = next((i for i, c in enumerate(rest) if c == "." or c in _DIGITS), len(rest))
        unit, rest = rest[:end], rest[end:]
        if not unit:
            raise DurationError("a number has no unit")
        if unit not in _UNITS_NS:
            raise DurationError(f"unknown unit {unit!r}")
        # Go bounds `v` before `v*unit`, and each part before the sum, lest its uint64 wrap;
        # Python's ints do not, so bounding the sum refuses the same strings.
        size = _UNITS_NS[unit]
        total += whole * size + int(float(fraction) * (float(size) / scale))
        if total > LIMIT:
            raise DurationError(_TOO_LONG)
    if not negative and total > LIMIT - 1:
        raise DurationError(_TOO_LONG)
    return -total if negative else total
