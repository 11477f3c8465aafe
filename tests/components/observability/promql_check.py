"""A query may name only what the exporters export: every metric in the catalog (metrics.py),
every label it groups, matches or joins on one those metrics carry (or a `label_replace`
makes)."""

from __future__ import annotations

from typing import Any

import promql_parser as pp

from components.observability.metrics import labels_of, series_names
from tests.components.observability.promtool import substitute


def selected(expr: str) -> tuple[set[str], set[str], set[str]]:
    """(metric names selected, labels used, labels a label_replace creates)."""
    names: set[str] = set()
    labels: set[str] = set()
    made: set[str] = set()

    def visit(node: Any) -> None:
        if isinstance(node, pp.VectorSelector):
            assert node.name, f"a selector without a metric name in {expr!r}"
            names.add(node.name)
            labels.update(m.name for m in node.matchers.matchers)
        if isinstance(node, pp.AggregateExpr) and node.modifier is not None:
            labels.update(node.modifier.labels)
        if isinstance(node, pp.BinaryExpr) and node.modifier and node.modifier.matching:
            labels.update(node.modifier.matching.labels)
        if isinstance(node, pp.Call) and node.func.name == "label_replace":
            made.add(node.args[1].val)
            labels.add(node.args[3].val)

    pp.walk(pp.parse(substitute(expr)), pre_visit=visit)
    return names, labels, made


def check(expr: str) -> list[str]:
    """What is wrong with a query: metrics nobody exports, labels those metrics lack."""
    names, labels, made = selected(expr)
    problems = [f"{n}: not exported" for n in sorted(names - series_names())]
    known = set(made).union(*(labels_of(n) for n in names & series_names()))
    problems += [f"label {label}: not on {sorted(names)}" for label in sorted(labels - known)]
    return problems
