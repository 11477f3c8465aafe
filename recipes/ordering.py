"""Deployment order: a topological sort over `dependencyRefs`.

Among components whose dependencies are all placed, the alphabetically first goes next
(Kahn's algorithm with a sorted ready set), so the order is deterministic and matches AICR.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence

from recipes.errors import RecipeError


def deployment_order(deps: Mapping[str, Sequence[str]]) -> list[str]:
    """Names in an order where each comes after its dependencies."""
    for name in sorted(deps):
        missing = [d for d in deps[name] if d not in deps]
        if missing:
            raise RecipeError(
                f"component {name!r} depends on unknown component(s): {', '.join(missing)}"
            )
    waiting = {name: set(ds) for name, ds in deps.items()}
    users: dict[str, list[str]] = {name: [] for name in deps}
    for name, ds in deps.items():
        for d in set(ds):
            users[d].append(name)
    ready = [name for name, ds in waiting.items() if not ds]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        name = heapq.heappop(ready)
        order.append(name)
        for user in users[name]:
            waiting[user].discard(name)
            if not waiting[user]:
                heapq.heappush(ready, user)
    if len(order) < len(deps):
        stuck = sorted(n for n in deps if n not in order)
        raise RecipeError(f"dependency cycle among components: {', '.join(stuck)}")
    return order
