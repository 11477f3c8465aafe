"""Resource names derived from config values, shared with the config checks.

No Pulumi import here: config validation uses these to refuse two values that would give
two resources the same name (a duplicate URN, which the engine refuses).
"""

from __future__ import annotations

import re


def cidr_slug(cidr: str) -> str:
    """A CIDR as a resource-name part: `198.51.100.0/24` -> `198-51-100-0-24`."""
    return re.sub(r"[^0-9A-Za-z]+", "-", cidr).strip("-")


def generation_suffix(generation: int) -> str:
    """`-g2` for a resource made anew on purpose (`vm.generation`: a new name is a new URN,
    so nothing of the old one is copied into it); nothing for generation 0."""
    return f"-g{generation}" if generation else ""
