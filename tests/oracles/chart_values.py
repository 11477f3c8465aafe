"""Which Helm values keys a chart's default values know (no chart ships a values schema).

Free-form maps are the exception the charts document: a key whose default is an empty map
(`resources: {}`, `nodeSelector: {}`) or not a map at all accepts anything beneath it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

CHARTS = {"gpu-operator": "gpu-operator", "kubeflow-trainer": "kubeflow-trainer"}


def unknown_keys(ours: Any, defaults: Any, path: str = "") -> Iterator[str]:
    """Dotted paths set in `ours` that `defaults` does not have."""
    if not isinstance(ours, dict) or not isinstance(defaults, dict) or not defaults:
        return
    for key, value in ours.items():
        where = f"{path}.{key}" if path else str(key)
        if key not in defaults:
            yield where
        else:
            yield from unknown_keys(value, defaults[key], where)
