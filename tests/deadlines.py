"""Fail a test that would hang (a FIFO opened, an alias bomb expanded) instead of hanging
the suite."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Raise TimeoutError past `seconds`: a blocked open() or read() is interrupted by
    SIGALRM, whose handler raises (PEP 475 retries the call only when the handler returns)."""

    def expired(*_: object) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
