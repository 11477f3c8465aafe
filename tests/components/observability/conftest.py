"""The fake GitHub the queue-time exporter's tests poll (a test file needing another page
size gives its own `fake`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.components.observability.fake_github import FakeGitHub
from tests.components.observability.queue_harness import served


@pytest.fixture
def fake(tmp_path: Path) -> Iterator[FakeGitHub]:
    with served(tmp_path) as github:
        yield github
