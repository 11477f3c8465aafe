"""What a real chart's values know, for the did-you-mean of a dead value: read from an
unpacked chart's own files, or by the pinned `helm show` from a packed one, each dependency
under its alias or name (its own keys where the chart holds it unpacked), `global` open."""

from __future__ import annotations

from pathlib import Path

import pytest

from components.platform.chart_values.lookup import ChartValues
from components.platform.chart_values.paths import FREE
from core.errors import GpuCiError
from stacks.offline.charts.keys import chart_keys
from stacks.offline.charts.release import ChartCheckError
from tests.stacks.offline.charts.scratch_charts import packed, scratch_chart
from tests.upstream_tools import tool

PARENT_VALUES = "image:\n  tag: v1\n  pullPolicy: IfNotPresent\nsub:\n  enabled: true\n"
SUB = {"name": "sub", "version": "0.1.0", "condition": "sub.enabled"}
DEPENDENCIES = [
    "not-a-dependency",
    {"alias": "nameless", "version": "0.1.0"},
    SUB,
    {"name": "other", "version": "0.1.0", "alias": "renamed"},
]


@pytest.fixture
def parent(tmp_path: Path) -> Path:
    """A chart with its dependency `sub` unpacked in charts/, `other` (as `renamed`) not."""
    chart = scratch_chart(tmp_path, "parent", PARENT_VALUES, meta={"dependencies": DEPENDENCIES})
    scratch_chart(chart / "charts", "sub", "replicas: 1\nimage:\n  tag: v2\n")
    return chart


def test_a_misspelt_key_gets_the_charts_own_key(parent: Path) -> None:
    keys = chart_keys(tool("helm"), parent)
    assert (keys.name, keys.version) == ("parent", "0.1.0")
    assert keys.miss(["image", "tag"]) is None
    assert keys.miss(["image", "tagg"]) == (
        "the parent chart (0.1.0) has no value 'image.tagg' (did you mean 'image.tag'?); "
        "keys under 'image': pullPolicy, tag"
    )


def test_the_release_version_names_the_chart_over_its_chart_yaml(parent: Path) -> None:
    """An unpacked chart's Chart.yaml may be a development build's (gpu-operator's git one)."""
    assert chart_keys(tool("helm"), parent, "v26.7.0").version == "v26.7.0"


def test_an_unpacked_dependency_is_known_by_its_own_values(parent: Path) -> None:
    """Its own values.yaml, not the parent's `sub:` block (which holds only its switch)."""
    keys = chart_keys(tool("helm"), parent)
    assert keys.miss(["sub", "replicas"]) is None
    assert keys.miss(["sub", "image", "tag"]) is None
    assert keys.miss(["sub", "replica"]) == (
        "the parent chart (0.1.0) has no value 'sub.replica' (did you mean 'sub.replicas'?); "
        "keys under 'sub': image, replicas"
    )


def test_a_dependency_not_unpacked_is_free_under_its_alias_and_global_is_open(
    parent: Path,
) -> None:
    keys = chart_keys(tool("helm"), parent)
    assert keys.miss(["renamed", "anything", "at", "all"]) is None
    assert keys.miss(["global", "imageRegistry"]) is None
    assert keys.miss(["other", "x"]) == (
        "the parent chart (0.1.0) has no value 'other'; top-level keys: global, image, renamed, sub"
    )


def test_a_dependency_entry_without_a_name_opens_nothing_and_the_rest_still_count(
    parent: Path,
) -> None:
    keys = chart_keys(tool("helm"), parent)
    assert "has no value 'nameless'" in (keys.miss(["nameless"]) or "")
    assert keys.miss(["sub", "replicas"]) is None


def test_an_unpacked_chart_is_read_from_its_files_without_helm(
    parent: Path, tmp_path: Path
) -> None:
    """Its dependency missing from charts/ (`renamed`) included: nothing to ask Helm."""
    calls = tmp_path / "calls"
    helm = tmp_path / "helm"
    helm.write_text(f'#!/bin/sh\necho "$@" >> {calls}\nexit 1\n', encoding="utf-8")
    helm.chmod(0o755)
    assert chart_keys(helm, parent) == chart_keys(tool("helm"), parent)
    assert not calls.exists()


def test_a_chart_without_dependencies_has_no_open_global(tmp_path: Path) -> None:
    chart = scratch_chart(tmp_path, "plain", "replicas: 1\n")
    assert chart_keys(tool("helm"), chart).miss(["global", "x"]) == (
        "the plain chart (0.1.0) has no value 'global'; top-level keys: replicas"
    )


def test_a_chart_without_values_knows_any_key(tmp_path: Path) -> None:
    """No values.yaml: nothing says which keys its templates read, even beside a dependency."""
    chart = scratch_chart(tmp_path, "bare", None, meta={"dependencies": [SUB]})
    assert chart_keys(tool("helm"), chart) == ChartValues("bare", "0.1.0", FREE)


def test_a_folder_without_a_usable_chart_yaml_is_named_by_the_folder(tmp_path: Path) -> None:
    nothing = tmp_path / "nothing"
    nothing.mkdir()
    assert chart_keys(tool("helm"), nothing) == ChartValues("nothing", "", FREE)
    listed = scratch_chart(tmp_path, "listed", "a: 1\n")
    (listed / "Chart.yaml").write_text("- name: not-a-map\n", encoding="utf-8")
    keys = chart_keys(tool("helm"), listed)
    assert (keys.name, keys.version, keys.miss(["a"])) == ("listed", "", None)


def test_a_chart_yaml_that_is_not_yaml_is_refused_naming_it(tmp_path: Path) -> None:
    chart = scratch_chart(tmp_path, "broken", "a: 1\n")
    (chart / "Chart.yaml").write_text("name: [broken\n", encoding="utf-8")
    with pytest.raises(GpuCiError, match=r"broken/Chart\.yaml"):
        chart_keys(tool("helm"), chart)


def test_a_packed_chart_is_read_by_helm_show_its_dependencies_free(
    tmp_path: Path,
) -> None:
    """`helm package` keeps charts/ inside the archive, which this does not open: there a
    dependency's values are free-form."""
    chart = scratch_chart(tmp_path / "src", "packme", PARENT_VALUES, meta={"dependencies": [SUB]})
    scratch_chart(chart / "charts", "sub", "replicas: 1\n")
    tgz = packed(chart, tmp_path / "repo")
    assert tgz.name == "packme-0.1.0.tgz"
    keys = chart_keys(tool("helm"), tgz)
    assert (keys.name, keys.version) == ("packme", "0.1.0")
    assert "(did you mean 'image.tag'?)" in (keys.miss(["image", "tagg"]) or "")
    assert keys.miss(["sub", "anything"]) is None
    assert keys.miss(["global", "x"]) is None


def test_a_helm_that_cannot_start_is_one_error_naming_it(tmp_path: Path) -> None:
    """A check-charts error (exit 2), not a traceback."""
    tgz = tmp_path / "x-0.1.0.tgz"
    tgz.write_bytes(b"")
    missing = tmp_path / "no-helm"
    with pytest.raises(ChartCheckError, match=rf"^{missing}: cannot run helm \("):
        chart_keys(missing, tgz)


def test_an_archive_helm_cannot_read_knows_any_key(tmp_path: Path) -> None:
    broken = tmp_path / "broken-0.1.0.tgz"
    broken.write_bytes(b"not a gzipped chart")
    assert chart_keys(tool("helm"), broken) == ChartValues("broken-0.1.0.tgz", "", FREE)
