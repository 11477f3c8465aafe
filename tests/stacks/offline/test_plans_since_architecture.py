"""A stack deployed before the one-way architecture (#18) upgrades with nothing replaced.

The refactor moved modules, split them and changed how components take their options;
none of that may change what the engine does to a live resource. Each example stack is
planned with today's code and diffed, by the engine's rules, against its plan from
before the change (`tests/golden/plans-before-architecture/`).
"""

from __future__ import annotations

import gzip
import json
from functools import cache
from typing import Any

import pytest

from stacks.offline.lifecycle import Lifecycle, classify
from stacks.offline.plan import REPO, plan_stack

BEFORE = REPO / "tests" / "golden" / "plans-before-architecture"
STACKS = sorted(p.name.removesuffix(".json.gz") for p in BEFORE.glob("*.json.gz"))


@cache
def before(stack: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(gzip.decompress((BEFORE / f"{stack}.json.gz").read_bytes()))
    return data


@cache
def lifecycle(stack: str) -> Lifecycle:
    return classify(before(stack), plan_stack(stack))


def test_every_example_stack_has_a_plan_from_before() -> None:
    examples = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in REPO.glob("Pulumi.*.yaml"))
    assert examples == STACKS


@pytest.mark.parametrize("stack", STACKS)
def test_nothing_is_replaced_or_deleted(stack: str) -> None:
    destructive = [
        f"{fate.op} {fate.urn} ({', '.join(fate.replace_because) or 'no input named'})"
        for fate in lifecycle(stack).changed
        if fate.op in ("replace", "delete")
    ]
    assert destructive == []


@pytest.mark.parametrize("stack", STACKS)
def test_every_resource_keeps_its_urn_or_an_alias_to_it(stack: str) -> None:
    old = {r["urn"] for r in before(stack)["resources"]}
    fates = lifecycle(stack).fates
    kept = {f.previous_urn or f.urn for f in fates if f.op != "delete"}
    assert old - kept == set()
