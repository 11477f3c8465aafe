"""Without promtool the Prometheus tests fail where CI runs and skip, saying why, elsewhere."""

from __future__ import annotations

import pytest

from tests.components.observability import promtool


@pytest.fixture
def no_promtool(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.setattr("shutil.which", lambda name: None)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("GPU_CI_REQUIRE_UPSTREAM", raising=False)
    return monkeypatch


@pytest.mark.parametrize(("key", "value"), [("CI", "true"), ("GPU_CI_REQUIRE_UPSTREAM", "1")])
def test_ci_fails_without_promtool(no_promtool: pytest.MonkeyPatch, key: str, value: str) -> None:
    no_promtool.setenv(key, value)
    with pytest.raises(pytest.fail.Exception, match="install Debian's `prometheus` package"):
        promtool.promtool_path()


def test_elsewhere_it_skips_saying_why(no_promtool: pytest.MonkeyPatch) -> None:
    with pytest.raises(pytest.skip.Exception, match="promtool not found"):
        promtool.promtool_path()


def test_it_is_found_where_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("shutil.which", lambda name: f"/usr/bin/{name}")
    assert promtool.promtool_path() == "/usr/bin/promtool"
