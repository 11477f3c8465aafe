"""Cluster specs for tests, with every problem raised as one `ClusterSpecError`."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from components.cluster.cluster_config import NvkindClusterSpec
from components.cluster.errors import ClusterSpecError


def cluster_spec(data: dict[str, Any] | None = None, **values: Any) -> NvkindClusterSpec:
    """`NvkindClusterSpec` from `data`/`values`; any problem raises `ClusterSpecError`."""
    try:
        return NvkindClusterSpec.model_validate({**(data or {}), **values})
    except ValidationError as err:
        problems = []
        for error in err.errors(include_url=False):
            cause = error.get("ctx", {}).get("error")
            message = str(cause) if isinstance(cause, ClusterSpecError) else error["msg"]
            where = ".".join(str(part) for part in error["loc"])
            if where and not message.startswith(where.split(".")[0]):
                message = f"{where}: {message}"
            problems.append(message)
        raise ClusterSpecError("; ".join(problems)) from None
