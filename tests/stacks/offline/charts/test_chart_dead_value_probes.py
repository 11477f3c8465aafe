"""How the dead-value rule probes a release: one render per leaf, each changing that leaf
alone to a value of its shape; lines that change with any values at all (a digest of the
values) excused, every other byte counted; a change Helm refuses counted as live. Stated on
stand-in renderers and checked once on a small chart the pinned Helm renders."""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Any

from stacks.offline.charts.dead_values import PROBE_KEY, changed, dead_leaves, leaves
from stacks.offline.charts.render import Rendered, RenderError
from tests.stacks.offline.charts.chart_helpers import render_chart
from tests.stacks.offline.charts.scratch_charts import scratch_chart


def _digest(values: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()[:12]


def _hashed_chart(values: dict[str, Any]) -> Rendered:
    """Like gha-runner-scale-set's values-hash annotation: a digest of every value on a line
    of its own; then image.tag, and one line per enabled extra (`debug` adds one)."""
    lines = [f"values-hash: {_digest(values)}", f"tag: {values.get('image', {}).get('tag', 'v1')}"]
    if values.get("debug") is True:
        lines.append("debug: on")
    return Rendered("\n".join(lines) + "\n")


def _dead(values: dict[str, Any], chart: Any) -> list[str]:
    found = dead_leaves(values, chart, chart(values))
    return [".".join(map(str, leaf.path)) for leaf in found]


def test_a_values_digest_is_noise_and_a_typo_under_it_is_still_dead() -> None:
    values = {"image": {"tag": "v2", "tagg": "v3"}}
    assert _dead(values, _hashed_chart) == ["image.tagg"]


def test_a_change_that_adds_a_line_is_live_even_where_a_digest_changes_too() -> None:
    """The digest's line is excused only where the rest of the output still pairs up line
    for line; `debug` adds a line, so it is live."""
    assert _dead({"debug": False, "image": {"tagx": "v3"}}, _hashed_chart) == ["image.tagx"]


def test_without_a_digest_a_value_that_changes_nothing_is_dead() -> None:
    def chart(values: dict[str, Any]) -> Rendered:
        return Rendered(f"tag: {values.get('image', {}).get('tag', 'v1')}\n")

    assert _dead({"image": {"tag": "v2", "pullPolicy": "Always"}}, chart) == ["image.pullPolicy"]


def test_a_value_helm_refuses_once_changed_is_live_even_at_its_default() -> None:
    """`mode` takes two words only (a chart's `fail`): its probe is refused, so it matters."""

    def chart(values: dict[str, Any]) -> Rendered:
        if values.get("mode", "fast") not in ("fast", "safe"):
            raise RenderError("mode: fast or safe")
        return Rendered("ok\n")

    assert _dead({"mode": "fast", "other": "x"}, chart) == ["other"]


def test_a_count_probe_stays_a_valid_count() -> None:
    """A chart may check a value it does not print (`replicas` at least 0, printed only while
    `enabled`): the probe of an unused count must not trip that check, or the dead value would
    pass for live. So numbers are raised, never lowered."""

    def chart(values: dict[str, Any]) -> Rendered:
        if values.get("replicas", 1) < 0:
            raise RenderError("replicas: at least 0")
        return Rendered(f"replicas: {values['replicas']}\n" if values.get("enabled") else "")

    assert _dead({"enabled": False, "replicas": 0}, chart) == ["replicas"]


def _at(values: Any, path: tuple[Any, ...]) -> Any:
    for segment in path:
        values = values[segment]
    return values


def test_each_probe_changes_one_leaf_alone_to_a_value_of_its_shape() -> None:
    """One render with an unread key added, then one per leaf: that leaf changed (same type,
    a marker no other probe uses), every other value as given, the caller's values intact."""
    values: dict[str, Any] = {
        "image": {"tag": "v1", "pullPolicy": "IfNotPresent"},
        "replicas": 2,
        "containers": [{"name": "a", "args": ["--x"]}, {"name": "b", "debug": False}],
        "extra": {},
    }
    given = json.loads(json.dumps(values))
    seen: list[dict[str, Any]] = []
    lock = threading.Lock()

    def chart(rendered: dict[str, Any]) -> Rendered:
        with lock:
            seen.append(json.loads(json.dumps(rendered)))
        return Rendered(json.dumps(rendered, sort_keys=True, indent=1))

    assert dead_leaves(values, chart, chart(values)) == []
    assert values == given
    base, probe, *probes = seen
    assert base == given
    marker = probe.pop(PROBE_KEY)
    assert probe == given
    paths = [leaf.path for leaf in leaves(given)]
    assert len(probes) == len(paths) == 8
    markers = [marker]
    for path in paths:
        (one,) = [p for p in probes if _at(p, path) != _at(given, path)]
        assert type(_at(one, path)) is type(_at(given, path)), path
        assert [q for q in paths if _at(one, q) != _at(given, q)] == [path]
        markers += {s for s in json.dumps(one).split('"') if s.startswith("gpuci-probe-")}
    # the probe's, then the strings': tag, pullPolicy, both names, args, extra's new key
    assert len(markers) == len(set(markers)) == 1 + 6


def test_a_list_is_changed_item_by_item_each_keeping_its_type() -> None:
    value: list[Any] = [1, 2.5, True, "a", ["b"], {"k": 1}, None]
    other = changed(value, 3)
    assert [type(v) for v in other] == [int, float, bool, str, list, dict, str]
    assert all(a != b for a, b in zip(value, other, strict=True))


def test_on_a_chart_helm_renders_a_typo_and_an_unused_value_are_dead(tmp_path: Path) -> None:
    """The rule with Helm as the oracle: a null would give back the chart's default, so a
    value equal to it is live only because its probe is another value; a digest annotation
    is noise; a `fail` on the probe makes `mode` live."""
    chart = scratch_chart(
        tmp_path,
        "probe",
        "image:\n  tag: v1\nmode: fast\nmonitor:\n  enabled: false\n  interval: 1m\n",
        {
            "cm.yaml": (
                '{{- if not (has .Values.mode (list "fast" "safe")) }}'
                '{{ fail "mode: fast or safe" }}{{ end }}\n'
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: probe\n  annotations:\n"
                "    values-hash: {{ .Values | toJson | sha256sum | trunc 12 }}\n"
                "data:\n  tag: {{ .Values.image.tag | quote }}\n"
                "  {{- if .Values.monitor.enabled }}\n"
                "  interval: {{ .Values.monitor.interval | quote }}\n  {{- end }}\n"
            )
        },
    )

    def render(values: dict[str, Any]) -> Rendered:
        return render_chart(chart, values)

    values = {"image": {"tag": "v1", "tagg": "v2"}, "mode": "fast", "monitor": {"interval": "5m"}}
    assert _dead(values, render) == ["image.tagg", "monitor.interval"]
