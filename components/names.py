"""Resource names derived from config values, shared with the config checks.

No Pulumi import here: config validation uses these to refuse two values that would give
two resources the same name (a duplicate URN, which the engine refuses).
"""

from __future__ import annotations

import re


def cidr_slug(cidr: str) -> str:
    """A CIDR as a resource-name part: `198.51.100.0/24` -> `198-51-100-0-24`."""
    return re.sub(r"[^0-9A-Za-z]+", "-", cidr).strip("-")
