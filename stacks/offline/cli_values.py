"""Config values as the Pulumi CLI hands them to the program: strings, objects as JSON.

`secure:` values cannot be decrypted offline; they become placeholders that carry the
ciphertext's digest, so a rotated secret plans as a changed one. Shared by the stack file
and the ESC environments it imports.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def is_secure(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"secure"}


def strip_secure(value: Any, path: str, found: list[str]) -> Any:
    """Replace nested `secure:` values with placeholders, noting where they were."""
    if is_secure(value):
        found.append(path)
        # The ciphertext's digest, so a rotated secret plans as a changed one (an update
        # the diff can show) while its value stays unknown offline.
        digest = hashlib.sha256(str(value["secure"]).encode()).hexdigest()[:12]
        return f"offline-placeholder:{path}:{digest}"
    if isinstance(value, dict):
        return {k: strip_secure(v, f"{path}.{k}", found) for k, v in value.items()}
    if isinstance(value, list):
        return [strip_secure(v, f"{path}[{i}]", found) for i, v in enumerate(value)]
    return value


def _go_numbers(value: Any) -> Any:
    """`value` with floats as Go's encoding/json writes them: a whole float64 below 1e21
    has no fraction (`1.0` is 1), so the program reads it back as an integer."""
    if isinstance(value, dict):
        return {k: _go_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_go_numbers(v) for v in value]
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    return value


def as_cli_string(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return json.dumps(_go_numbers(value), sort_keys=True)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
