"""`core.read_limits.size_text`: a size as a refusal names it, whole in the largest unit it
reaches (MiB, then KiB) or to one decimal, and in bytes below a KiB; and the bounds a
refusal quotes that way."""

from __future__ import annotations

import pytest

from core.read_limits import KIB, MIB, PLAN_ERROR, STACK_FILE, size_text


@pytest.mark.parametrize(
    ("count", "text"),
    [
        (0, "0 bytes"),
        (1023, "1023 bytes"),
        (KIB, "1 KiB"),
        (KIB + 1, "1.0 KiB"),
        (3 * KIB // 2, "1.5 KiB"),
        (MIB - 1, "1024.0 KiB"),
        (MIB, "1 MiB"),
        (MIB + 1, "1.0 MiB"),
        (5 * MIB // 2, "2.5 MiB"),
        (64 * MIB, "64 MiB"),
        (5 * 1024 * MIB, "5120 MiB"),
    ],
)
def test_a_size_is_named_in_the_largest_unit_it_reaches(count: int, text: str) -> None:
    assert size_text(count) == text


def test_the_bounds_are_named_whole() -> None:
    assert (size_text(STACK_FILE.max_bytes), size_text(PLAN_ERROR.max_bytes)) == ("4 MiB", "1 MiB")
