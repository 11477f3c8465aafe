"""Values that change no rendered byte: a typo, or a value the chart ignores.

A value gpu-ci passes is *live* when some other value at the same path makes Helm render
something else, and *dead* when no change of it does: `image.tagg` (a typo: the chart
reads `image.tag`), or `serviceMonitor.interval` while the chart's `serviceMonitor.enabled`
is off. A value equal to the chart's default is live, merely redundant: removing it would
change nothing, changing it would. So each leaf is changed, never removed, and the release
rendered again; output byte-identical to the release's own render means dead.

A leaf is a scalar, an empty map, or a list of anything but maps (Helm replaces a list
whole); a list of maps is walked item by item (a pod template's containers). Each leaf is
changed alone, the others kept: changing several at once would let one turn on the template
that prints another (`devicePlugin.config.default` is printed only while
`devicePlugin.config.name` is not empty), and a dead value would pass for live. A render
Helm refuses (a `fail`, a type error) proves the changed value matters.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from itertools import compress
from typing import Any

from components.platform.chart_values.paths import Segment
from stacks.offline.charts.render import Rendered, RenderError

Path_ = tuple[Segment, ...]
Renderer = Callable[[dict[str, Any]], Rendered]
"""Renders the release with the values given (`chart_render.render` bound to its target)."""


@dataclass(frozen=True)
class Leaf:
    path: Path_
    value: Any


def leaves(values: Any, path: Path_ = ()) -> Iterator[Leaf]:
    """Every leaf of `values` (see the module's docstring), in order."""
    if isinstance(values, dict) and values:
        for key, child in values.items():
            yield from leaves(child, (*path, str(key)))
    elif isinstance(values, list) and values and all(isinstance(v, dict) for v in values):
        for index, child in enumerate(values):
            yield from leaves(child, (*path, index))
    else:
        yield Leaf(path, values)


def marker(index: int) -> str:
    """A unique string no chart default contains, valid as a DNS label and a label value."""
    return f"gpuci-probe-{index:04d}z"


def changed(value: Any, index: int) -> Any:
    """A different value of the same shape: what the chart would render otherwise."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 7
    if isinstance(value, list):
        return [changed(v, index) for v in value] if value else [marker(index)]
    if isinstance(value, dict):
        return {marker(index): marker(index)}
    return marker(index)


def with_leaf(values: dict[str, Any], path: Path_, value: Any) -> dict[str, Any]:
    """A copy of `values` with the leaf at `path` set to `value`."""
    copied = copy.deepcopy(values)
    node: Any = copied
    for segment in path[:-1]:
        node = node[segment]
    node[path[-1]] = value
    return copied


PROBE_KEY = "gpu-ci-unread-probe"
"""A top-level key no chart reads: what changes with it alone is noise (a values digest)."""


def dead_leaves(values: dict[str, Any], render: Renderer, base: Rendered) -> list[Leaf]:
    """The leaves of `values` whose change renders the same output as `base` (one render
    per leaf, on as many threads as there are CPUs: Helm does the work).

    "The same" leaves out the lines that change with any values at all: a render with one
    more key no chart reads shows them (gha-runner-scale-set 0.14.2 annotates its
    AutoscalingRunnerSet with `actions.github.com/values-hash`, a digest of all the values,
    templates/autoscalingrunnerset.yaml); every other byte must match."""
    noise = _changed_lines(base.text, render({**values, PROBE_KEY: marker(0)}).text)
    found = [(i, leaf) for i, leaf in enumerate(leaves(values), start=1) if leaf.path]
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        verdicts = list(pool.map(lambda item: _same(values, item, render, base, noise), found))
    return list(compress((leaf for _, leaf in found), verdicts))


def _changed_lines(base: str, other: str) -> frozenset[int]:
    """The lines of `base` that `other` changes, or none at all when it has another line
    count (its lines no longer pair up with `base`'s, so none can be excused as noise)."""
    ours, theirs = base.split("\n"), other.split("\n")
    if len(ours) != len(theirs):
        return frozenset()
    return frozenset(i for i, line in enumerate(ours) if line != theirs[i])


def _same(
    values: dict[str, Any],
    item: tuple[int, Leaf],
    render: Renderer,
    base: Rendered,
    noise: frozenset[int],
) -> bool:
    """Whether the render with the leaf changed is `base` byte for byte, but for noise."""
    index, leaf = item
    try:
        text = render(with_leaf(values, leaf.path, changed(leaf.value, index))).text
    except RenderError:
        return False
    if text == base.text:
        return True
    moved = _changed_lines(base.text, text)
    return bool(moved) and moved <= noise
