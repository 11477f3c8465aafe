"""OpenSSH public key lines, checked before any host or VM metadata receives them."""

from __future__ import annotations

import base64
import re
from typing import Final

SSH_KEY_TYPES: Final = (
    "ssh-ed25519",
    "ssh-rsa",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "sk-ssh-ed25519@openssh.com",
    "sk-ecdsa-sha2-nistp256@openssh.com",
)
"""The OpenSSH public key types `AuthorizedKeysParams.keys` accepts."""

_SSH_KEY_BODY = re.compile(r"[A-Za-z0-9+/]+={0,2}")


def _is_control(char: str) -> bool:
    """A character no key line may hold: C0/C1 controls but tab, and Unicode line breaks."""
    return (char != "\t" and (char < " " or "\x7f" <= char <= "\x9f")) or char in "\u2028\u2029"


def check_ssh_public_key(key: str, label: str = "key") -> str:
    """`key` if it is one OpenSSH public key line `TYPE BASE64 [COMMENT]`, else ValueError.

    The body must decode to a key blob of TYPE (its first field names the type), so a
    truncated paste or a type that does not match its body is caught before any host
    sees it. An options prefix (`command="..." ssh-ed25519 ...`) is refused.
    """
    if any(c in key for c in "\n\r\x00"):
        raise ValueError(f"{label} contains a line break or NUL: give one key line per entry")
    control = next((c for c in key if _is_control(c)), None)
    if control is not None:
        raise ValueError(
            f"{label} contains the control character {control!r} (a vertical tab, form feed "
            "or other line separator, often from a paste): remove it; a key line is "
            "printable text"
        )
    key_type, _, rest = key.partition(" ")
    if key_type not in SSH_KEY_TYPES:
        raise ValueError(
            f"{label} does not start with an OpenSSH public key type "
            f"({', '.join(SSH_KEY_TYPES)}): it starts with {key_type[:40]!r}"
        )
    body = rest.partition(" ")[0]
    if not _SSH_KEY_BODY.fullmatch(body) or len(body) % 4:
        raise ValueError(f"{label}: the {key_type} key's body is not base64")
    blob = base64.b64decode(body)
    size = int.from_bytes(blob[:4])  # a uint32 in network order (the default order)
    # the blob names its type, then holds the key: a blob that ends after the name is cut
    if blob[4 : 4 + size] != key_type.encode() or len(blob) <= 4 + size:
        raise ValueError(
            f"{label}: the base64 body is not a {key_type} key (truncated, or another type)"
        )
    return key
