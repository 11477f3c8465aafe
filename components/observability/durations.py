"""Prometheus durations as Prometheus itself parses and limits them.

The format is prometheus/common's `model.ParseDuration` (what `--storage.tsdb.retention.time`,
scrape intervals and a rule's `for` are read with, and what the prometheus-operator CRDs'
`Duration` pattern mirrors): whole numbers with the units y (365d), w, d, h, m, s, ms, each at
most once and in that order (`1h30m`, not `30m1h`). A value over int64 nanoseconds (about
292 years) is "duration out of range" there; retention is capped lower still: Prometheus
limits it to 100y (cmd/prometheus/main.go, "Check for overflows. This limits our max
retention to 100y."), so a larger value is refused here rather than silently cut.
"""

from __future__ import annotations

import re

_DURATION = re.compile(
    r"(?:([0-9]+)y)?(?:([0-9]+)w)?(?:([0-9]+)d)?(?:([0-9]+)h)?(?:([0-9]+)m)?(?:([0-9]+)s)?"
    r"(?:([0-9]+)ms)?"
)
_MS = (
    365 * 24 * 3600 * 1000,
    7 * 24 * 3600 * 1000,
    24 * 3600 * 1000,
    3600 * 1000,
    60 * 1000,
    1000,
    1,
)
"""Milliseconds per unit, in the pattern's order (y, w, d, h, m, s, ms)."""
MAX_MS = (2**63 - 1) // 1_000_000
"""The longest duration model.ParseDuration accepts: int64 nanoseconds, in milliseconds."""
MAX_RETENTION_MS = 100 * _MS[0]
"""100y: the longest retention Prometheus keeps as given."""
UNITS = (
    "numbers with units from y, w, d, h, m, s down to ms, each once and in that order, not "
    "all zero; e.g. 15d or 1h30m"
)


def _total(value: str) -> int | None:
    """Milliseconds of a well-formed, non-zero duration (not checked for overflow)."""
    match = _DURATION.fullmatch(value)
    if not value or match is None:
        return None
    total = sum(int(n) * unit for n, unit in zip(match.groups(), _MS, strict=True) if n)
    return total or None


def milliseconds(value: str) -> int | None:
    """The duration in milliseconds, or None where Prometheus would refuse it (format,
    zero, or out of range)."""
    total = _total(value)
    return None if total is None or total > MAX_MS else total


def duration(value: str, what: str) -> int:
    """`value` in milliseconds if Prometheus parses it as a non-zero duration; a message
    naming `what` if not."""
    ms = milliseconds(value)
    if ms is None and _total(value) is None:
        raise ValueError(f"{value!r} is not a Prometheus duration for {what}: {UNITS}")
    if ms is None:
        raise ValueError(
            f"{value!r} is longer than any Prometheus duration for {what} (int64 nanoseconds, "
            "about 292 years)"
        )
    return ms


def retention(value: str) -> str:
    """A retention Prometheus keeps as given: a duration of at most 100y."""
    total = _total(value)
    if total is not None and total > MAX_RETENTION_MS:
        raise ValueError(
            f"{value!r} is over Prometheus's maximum retention, 100y (cmd/prometheus/main.go "
            "cuts a longer one to 100y): give at most 100y, e.g. 90d"
        )
    duration(value, "retention")
    return value
