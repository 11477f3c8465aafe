"""Config values as the Pulumi CLI hands them to the program: strings, objects as JSON.

`secure:` values cannot be decrypted offline; they become placeholders that carry the
ciphertext's digest, so a rotated secret plans as a changed one. Shared by the stack file
and the ESC environments it imports.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from core.errors import GpuCiError

# A `secure:` string a Pulumi secrets provider could decrypt is one line without spaces: the
# passphrase provider's `v1:NONCE:CIPHERTEXT` (pkg/secrets/passphrase, symmetricCrypter), or
# base64, which the service and cloud KMS providers decode first (pkg/secrets/service,
# pkg/secrets/cloud). A PEM key, or any plain value with a space pasted under `secure:`, is
# neither (placeholders like the examples' `v1:PLACEHOLDER:...` are still let through).
_CIPHERTEXT = re.compile(r"[^\s]+")
_PEM = "-----BEGIN"
_KINDS = {list: "a list", dict: "a map", int: "a number", float: "a number", bool: "a boolean"}
_SET_SECRET = "set it with `pulumi config set --secret --path '{path}'`, which encrypts it"


def is_secure(value: Any) -> bool:
    """A secret as Pulumi reads one: a map whose one key is `secure`, holding a string
    (sdk/go/common/resource/config/value.go `isSecureValue`); any other map is an object."""
    return isinstance(value, dict) and set(value) == {"secure"} and isinstance(value["secure"], str)


def strip_secure(value: Any, path: str, found: list[str]) -> Any:
    """Replace nested `secure:` values with placeholders, noting where they were; a
    `secure:` Pulumi would not decrypt (or would read as a plain object) is refused."""
    if isinstance(value, dict) and "secure" in value and not is_secure(value):
        held = _KINDS.get(type(value["secure"]), "a value") if set(value) == {"secure"} else None
        raise GpuCiError(
            f"{path}: `secure:` "
            + (f"holds {held}" if held else "stands beside other keys")
            + ", and Pulumi reads such a map as a plain object, "
            f"not a secret; {_SET_SECRET.format(path=path)}"
        )
    if is_secure(value):
        if not _CIPHERTEXT.fullmatch(value["secure"]) or _PEM in value["secure"]:
            raise GpuCiError(
                f"{path}: `secure:` holds no Pulumi ciphertext (a `v1:` passphrase ciphertext "
                f"or base64) but what looks like the plain value, which no secrets provider "
                f"decrypts; {_SET_SECRET.format(path=path)}"
            )
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
