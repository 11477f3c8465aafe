"""Deployment order: a topological sort over `dependencyRefs` (AICR's `TopologicalSort`).

Among components whose dependencies are all placed, the alphabetically first goes next
(Kahn's algorithm with a sorted ready set), so the order is deterministic and matches AICR.
Only enabled components are ordered: an edge to a declared but disabled component counts
as satisfied (the dependency is provided some other way, e.g. a CSP-managed cert-manager),
while an edge to an undeclared component is an error (AICR issue #1465).
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Mapping, Sequence

from recipes.errors import RecipeError


def deployment_order(
    deps: Mapping[str, Sequence[str]], disabled: Collection[str] = ()
) -> list[str]:
    """Enabled names (those of `deps` not in `disabled`), each after its dependencies."""
    for name in sorted(deps):
        missing = [d for d in deps[name] if d not in deps]
        if missing:
            raise RecipeError(
                f"component {name!r} depends on unknown component(s): {', '.join(missing)}"
            )
    enabled = [n for n in deps if n not in disabled]
    waiting = {n: {d for d in deps[n] if d not in disabled} for n in enabled}
    users: dict[str, list[str]] = {n: [] for n in enabled}
    for name, ds in waiting.items():
        for d in ds:
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
    if len(order) < len(enabled):
        stuck = sorted(n for n in enabled if n not in order)
        raise RecipeError(f"dependency cycle among components: {', '.join(stuck)}")
    return order
