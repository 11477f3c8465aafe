"""The containers of a pod spec, wherever a Kubernetes resource (or Helm values) holds one.

Shared by the rules that judge containers: image digests and env secrets.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

_CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")


def containers(value: Any, path: str = "") -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(path, container) of every container in a pod spec anywhere inside `value`."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            here = f"{path}.{key}" if path else str(key)
            if key in _CONTAINER_LISTS and isinstance(item, list):
                for i, container in enumerate(item):
                    if isinstance(container, Mapping):
                        yield f"{here}[{i}]", container
            else:
                yield from containers(item, here)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from containers(item, f"{path}[{i}]")
