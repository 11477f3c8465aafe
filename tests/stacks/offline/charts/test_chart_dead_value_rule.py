"""The dead-value rule itself, on a stand-in renderer: a value is dead when no change of it
changes the output; one equal to the chart's default is live (changing it would show)."""

from __future__ import annotations

import json
from typing import Any

from stacks.offline.charts.dead_values import changed, dead_leaves, leaves
from stacks.offline.charts.render import Rendered, RenderError

DEFAULTS: dict[str, Any] = {
    "image": {"tag": "v1"},
    "replicas": 1,
    "monitor": {"enabled": False, "interval": "1m"},
}


def _chart(values: dict[str, Any]) -> Rendered:
    """A chart that reads image.tag, replicas (must be a number) and monitor.interval only
    while monitor.enabled; everything else it ignores."""
    merged = {**DEFAULTS, **values}
    if not isinstance(merged["replicas"], int):
        raise RenderError("replicas: not a number")
    out = {"image": merged["image"].get("tag", "v1"), "replicas": merged["replicas"]}
    monitor = {**DEFAULTS["monitor"], **merged.get("monitor", {})}
    if monitor["enabled"]:
        out["interval"] = monitor["interval"]
    return Rendered(json.dumps(out))


def _dead(values: dict[str, Any]) -> list[str]:
    return [".".join(map(str, leaf.path)) for leaf in dead_leaves(values, _chart, _chart(values))]


def test_a_typo_and_a_value_behind_an_off_switch_are_dead() -> None:
    values = {"image": {"tagg": "v2"}, "monitor": {"interval": "30s"}, "replicas": 2}
    assert _dead(values) == ["image.tagg", "monitor.interval"]


def test_a_value_equal_to_the_default_is_live_not_dead() -> None:
    assert _dead({"image": {"tag": "v1"}, "replicas": 1}) == []


def test_a_switch_is_live_and_turns_on_what_it_guards() -> None:
    assert _dead({"monitor": {"enabled": True, "interval": "30s"}}) == []


def test_a_value_helm_refuses_once_changed_is_live() -> None:
    assert _dead({"replicas": 3}) == []


def test_leaves_walk_lists_of_maps_but_keep_other_lists_whole() -> None:
    values = {"a": [{"name": "x", "env": ["A", "B"]}], "b": [1, 2], "c": {}, "d": {"e": None}}
    assert [(leaf.path, leaf.value) for leaf in leaves(values)] == [
        (("a", 0, "name"), "x"),
        (("a", 0, "env"), ["A", "B"]),
        (("b",), [1, 2]),
        (("c",), {}),
        (("d", "e"), None),
    ]


def test_every_change_differs_from_the_value_and_keeps_its_shape() -> None:
    values: list[Any] = [True, False, 0, 2.5, "x", None, [], ["a"], [1], {}]
    for value in values:
        other = changed(value, 1)
        assert other != value
        assert type(other) is type(value) or value is None
