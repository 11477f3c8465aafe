"""`check_ssh_public_key`, exactly: every control character refused by name, the type and
body checks' messages, and a body cut after its type name (mutation-testing survivors of
components/host/params/ssh_keys.py; the config's own tests reach it only through whole stacks)."""

from __future__ import annotations

import base64

import pytest

from components.host.params.ssh_keys import SSH_KEY_TYPES, check_ssh_public_key
from tests.stacks.stack_helpers import SSH_KEY

KEY_TYPE, BODY, COMMENT = SSH_KEY.split(" ")


def refusal(key: str, label: str | None = None) -> str:
    with pytest.raises(ValueError) as refused:
        check_ssh_public_key(key) if label is None else check_ssh_public_key(key, label)
    return str(refused.value)


@pytest.mark.parametrize(
    "char", ["\x01", "\x0b", "\x0c", "\x1f", "\x7f", "\x85", "\x9f", "\u2028", "\u2029"]
)
def test_each_control_character_is_refused_by_name(char: str) -> None:
    assert refusal(f"{KEY_TYPE} {BODY} a{char}b") == (
        f"key contains the control character {char!r} (a vertical tab, form feed or other "
        "line separator, often from a paste): remove it; a key line is printable text"
    )


@pytest.mark.parametrize("char", ["\t", " ", "~", "\xa0", "é"])
def test_a_tab_and_printable_text_may_be_in_the_comment(char: str) -> None:
    key = f"{KEY_TYPE} {BODY} a{char}b"
    assert check_ssh_public_key(key) == key


def test_messages_name_the_label_and_what_the_line_starts_with() -> None:
    assert refusal("x" * 50 + f" {BODY}", "vm.sshAuthorizedKeys[0]") == (
        "vm.sshAuthorizedKeys[0] does not start with an OpenSSH public key type "
        f"({', '.join(SSH_KEY_TYPES)}): it starts with {'x' * 40!r}"
    )
    assert refusal(f"{KEY_TYPE} AAAA*") == f"key: the {KEY_TYPE} key's body is not base64"


def blob(*parts: bytes) -> str:
    return base64.b64encode(b"".join(parts)).decode()


def test_a_body_that_ends_after_its_type_name_is_cut() -> None:
    name = KEY_TYPE.encode()
    length = len(name).to_bytes(4, "big")
    cut = f"key: the base64 body is not a {KEY_TYPE} key (truncated, or another type)"
    assert refusal(f"{KEY_TYPE} {blob(length, name)}") == cut
    assert refusal(f"{KEY_TYPE} {blob(length, name[:-1])}") == cut
    assert refusal(f"{KEY_TYPE} {blob((len(name) + 1).to_bytes(4, 'big'), name, b'x')}") == cut
    key = f"{KEY_TYPE} {blob(length, name, bytes(1))}"
    assert check_ssh_public_key(key) == key  # the rest is the key; its shape is ssh's to judge
