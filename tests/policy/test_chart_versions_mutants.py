"""`helm-chart-versions-pinned`, exactly: which charts are the repository's own, what the
message names, and a version with a trailing newline (mutation-testing survivors of
policy/chart_versions.py)."""

from __future__ import annotations

from typing import Any

import pytest

from policy.chart_versions import HELM_TYPES, check_chart_version
from policy.rule import UNKNOWN, Resource


def check(**props: Any) -> list[str]:
    return check_chart_version(Resource(HELM_TYPES[0], "r", props), {})


WHERE = f"r ({HELM_TYPES[0]})"


@pytest.mark.parametrize("chart", ["./charts/x", "../charts/x", "/srv/charts/x"])
def test_a_chart_in_the_repository_is_pinned_by_the_commit(chart: str) -> None:
    assert check(chart=chart) == []


def test_a_chart_without_a_version_is_named() -> None:
    assert check(chart="gpu-operator") == [
        f"{WHERE}: chart 'gpu-operator' has no version; pin an exact one"
    ]
    assert check() == [f"{WHERE}: chart '' has no version; pin an exact one"]
    assert check(chart="gpu-operator", version=UNKNOWN) == []  # known at apply: not judged


@pytest.mark.parametrize("version", ["~1.2", ">=1.0.0", "1.2", "latest", "1.2.3\n", " 1.2.3"])
def test_a_range_or_no_version_is_refused_by_its_text(version: str) -> None:
    assert check(chart="c", version=version) == [
        f"{WHERE}: chart 'c' version {version!r} is a range or not a version; pin an exact "
        "one (e.g. 1.2.3)"
    ]


@pytest.mark.parametrize("version", ["1.2.3", "v25.3.1", "1.0.0-rc.1", "1.0.0+build.5"])
def test_an_exact_version_passes(version: str) -> None:
    assert check(chart="c", version=version) == []
