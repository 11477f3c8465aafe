"""Property values of a `pulumi stack export`, as a plan snapshot holds them.

The state writes special values as objects keyed by a signature (pulumi/pulumi
sdk/go/common/apitype/property-values.json @ v3.259.0): a secret (`ciphertext`, or
`plaintext` in `pulumi stack export --show-secrets`), an unknown, an asset, an archive, a
resource reference, a NaN or infinite float, a byte string. A plan snapshot shows a secret
as "[secret]" and an unknown as "[unknown]" (`stacks.offline.engine.values`). Secrets become
"[secret]" here whether encrypted or not: an encrypted one cannot be compared, and a
decrypted one could be compared only with a plan that holds the value, which the offline
plan never does (a `secure:` value is a placeholder there, `stacks/offline/stack_file/read.py`).
The plaintext is never kept. Every path that was a secret is returned, so the diff can say
which inputs it could not compare.

`normalize` then drops what providers write into the state's inputs that a program never
sets, where the provider's `Check` would write the same again, so it is no change:
- Terraform-bridged providers (oci, random) list the properties they filled with defaults
  under `__defaults` in each object and reuse the old value of a default
  (pulumi/pulumi-terraform-bridge pkg/tfbridge/schema.go @ v3.136.0, "Each object-typed value
  contains metadata about the properties that were set using default values under a special
  key ("__defaults")", and its steps 3a/4a);
- provider resources keep the plugin's `version` and an `__internal` map in their inputs
  (pulumi/pulumi pkg/resource/deploy/providers/registry.go @ v3.259.0, `internalKey`,
  `versionKey`);
- pulumi-kubernetes names an object the program leaves unnamed, marks it
  `pulumi.com/autonamed`, and adopts the old name on the next `Check`
  (pulumi/pulumi-kubernetes provider/pkg/metadata/naming.go @ v4.32.0,
  `AdoptOldAutonameIfUnnamed`).
"""

from __future__ import annotations

import base64
import math
import struct
from collections.abc import Callable
from typing import Any

from stacks.offline.engine.values import UNKNOWN
from stacks.offline.snapshot.paths import path_join

SIG = "4dabf18193072939515e22adb298388d"
SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"
ASSET_SIG = "c44067f5952c0a294b673a41bacd8c17"
ARCHIVE_SIG = "0def7320c3a5731c473e5ecbe6d01bc7"
RESOURCE_SIG = "5cf8f73096256a8f31e491e813e4eb8e"
FLOAT_SIG = "8ad145fe-0d11-4827-bfd7-1abcbf086f5c"
BYTES_SIG = "803fd3297a5875dc03ca845dda5d2a98"
UNKNOWN_VALUE = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
"""property-values.json @ v3.259.0: the signatures, and the unknown value's constant."""
SECRET = "[secret]"

ENCRYPTED = "encrypted in the state"
DECRYPTED = "a secret (the offline plan holds no secret's value)"
OPAQUE = "an asset or archive (the offline plan does not record its contents)"

DEFAULTS_KEY = "__defaults"
BRIDGE_RESERVED = (DEFAULTS_KEY, "__meta")
BRIDGED = ("oci:", "random:")
"""The packages gpu-ci uses that pulumi-terraform-bridge builds."""
AUTONAMED = "pulumi.com/autonamed"


def plain(value: Any, prefix: str, opaque: dict[str, str]) -> Any:
    """`value` with special objects as the plan shows them; secret and opaque paths are
    added to `opaque` with why they cannot be compared."""
    if value == UNKNOWN_VALUE:
        return UNKNOWN
    if isinstance(value, list):
        return [plain(v, path_join(prefix, i), opaque) for i, v in enumerate(value)]
    if not isinstance(value, dict):
        return value
    sig = value.get(SIG)
    if sig is None or sig not in _SPECIAL:
        return {k: plain(v, path_join(prefix, k), opaque) for k, v in value.items()}
    return _SPECIAL[sig](value, prefix, opaque)


def _secret(value: dict[str, Any], prefix: str, opaque: dict[str, str]) -> str:
    opaque[prefix] = ENCRYPTED if "ciphertext" in value else DECRYPTED
    return SECRET


def _blob(value: dict[str, Any], prefix: str, opaque: dict[str, str]) -> str:
    opaque[prefix] = OPAQUE
    kind = "asset" if value.get(SIG) == ASSET_SIG else "archive"
    return f"[{kind} sha256:{str(value.get('hash') or '')[:12]}]"


def _bytes(value: dict[str, Any], prefix: str, opaque: dict[str, str]) -> str:
    raw = base64.b64decode(str(value.get("value") or ""))  # skips what is not base64
    return raw.decode(errors="backslashreplace")  # UTF-8, any other byte as \xNN


_SPECIAL: dict[str, Callable[[dict[str, Any], str, dict[str, str]], Any]] = {
    SECRET_SIG: _secret,
    ASSET_SIG: _blob,
    ARCHIVE_SIG: _blob,
    RESOURCE_SIG: lambda value, _prefix, _opaque: str(value.get("urn") or ""),
    FLOAT_SIG: lambda value, _prefix, _opaque: _special_float(str(value.get("value") or "")),
    BYTES_SIG: _bytes,
}


def _special_float(bits: str) -> str:
    """A NaN or infinity, from its IEEE 754 bits in hex, as text (it equals nothing); a
    finite number, which the engine writes plainly, as itself."""
    try:
        number = struct.unpack(">d", bytes.fromhex(bits))[0]
    except (ValueError, struct.error):
        return f"[float {bits}]"
    if math.isnan(number):
        return "NaN"
    return "+Inf" if number == math.inf else "-Inf" if number == -math.inf else repr(number)


def normalize(type_: str, state: dict[str, Any], head: dict[str, Any] | None) -> dict[str, Any]:
    """The state's inputs less what the provider adds and would add again (module doc)."""
    out = dict(state)
    want = head or {}
    if type_.startswith("pulumi:providers:"):
        out.pop("__internal", None)
        if "version" not in want:
            out.pop("version", None)
    if type_.startswith(BRIDGED):
        out = _drop_defaults(out, want)
    if type_.startswith("kubernetes:"):
        out = _adopt_autoname(out, want)
    return out


def _drop_defaults(state: Any, head: Any) -> Any:
    if isinstance(state, list):
        other = head if isinstance(head, list) else []
        return [
            _drop_defaults(v, other[i] if i < len(other) else None) for i, v in enumerate(state)
        ]
    if not isinstance(state, dict):
        return state
    want = head if isinstance(head, dict) else {}
    defaults = state.get(DEFAULTS_KEY)
    filled = {str(k) for k in defaults} if isinstance(defaults, list) else set()
    return {
        k: _drop_defaults(v, want.get(k))
        for k, v in state.items()
        if k not in BRIDGE_RESERVED and not (k in filled and k not in want)
    }


def _adopt_autoname(state: dict[str, Any], head: dict[str, Any]) -> dict[str, Any]:
    meta = state.get("metadata")
    planned = head.get("metadata")
    want: dict[str, Any] = planned if isinstance(planned, dict) else {}
    if not isinstance(meta, dict) or "name" in want:
        return state
    notes = meta.get("annotations")
    if not isinstance(notes, dict) or notes.get(AUTONAMED) != "true":
        return state
    kept = {k: v for k, v in notes.items() if k != AUTONAMED}
    meta = {k: v for k, v in meta.items() if k != "name"}
    if kept or "annotations" in want:
        meta["annotations"] = kept
    else:
        meta.pop("annotations")
    return {**state, "metadata": meta}
