"""The one error every cluster module raises, so callers catch a bad spec in one place."""

from __future__ import annotations

from core.errors import GpuCiError


class ClusterSpecError(GpuCiError, ValueError):
    """An nvkind cluster spec that cannot be rendered; the message names field and fix.

    Also a `ValueError`, so that inside a pydantic model (a stack config section) it
    becomes an ordinary validation problem at the right key.
    """
