"""collect_redact: which values are secret, and what every shipped line keeps of them.

In this process, under the dotted name mutmut gives the module (collect_modules.py), so
its mutants run here. The end-to-end check that no planted secret leaves the host is
test_collect_step.py's; these state each rule on its own.
"""

from __future__ import annotations

import pytest

from .collect_modules import module

redact = module("collect_redact")
KEY = "-----BEGIN RSA PRIVATE KEY-----"
END = "-----END RSA PRIVATE KEY-----"


def test_a_one_line_secret_counts_from_eight_characters() -> None:
    assert redact.secret_literals("  s3cret-8  \n") == {"s3cret-8"}
    assert redact.secret_literals("12345678") == {"12345678"}
    assert redact.secret_literals("1234567") == set()  # would redact common words
    assert redact.secret_literals("") == set()


def test_a_kubeconfigs_credentials_are_taken_and_its_structure_left() -> None:
    kubeconfig = (
        "apiVersion: v1\n"
        "users:\n"
        "- name: kind-kind\n"
        "  user:\n"
        '    token: "tok-12345678"\n'
        "    password: short\n"
        "    client-key-data: 'S0VZLURBVEE='\n"
        "  - refresh-token: rt-abcdefgh\n"
        "    server: https://127.0.0.1:6443/a-long-path-here\n"
        "current-context: kind-kind-with-a-long-name\n"
    )
    assert redact.secret_literals(kubeconfig) == {
        kubeconfig.strip(),
        "tok-12345678",  # its quotes are not part of it
        "S0VZLURBVEE=",
        "rt-abcdefgh",  # a `- key: value` list item
    }


def test_a_pem_bodys_long_lines_are_taken_and_short_or_spaced_ones_left() -> None:
    body = "MIIEowIBAAKCAQEA"  # 16 characters, no space: a token line
    value = f"{KEY}\n{body}\nMIIEowIBAAKCAQE\nnot one token at all\n{END}\n"
    assert redact.secret_literals(value) == {value.strip(), body}  # the armour has spaces


def test_only_the_outputs_public_marks_secret_are_taken_at_any_depth() -> None:
    public = {
        "kubeconfig": "[secret]",
        "runner": {"token": "[secret]", "name": "r1"},
        "hosts": [{"key": "[secret]"}, {"key": "plain"}, "[secret]"],
        "app": "[secret]",
        "gone": "[secret]",
    }
    shown = {
        "kubeconfig": "apiVersion: v1",
        "runner": {"token": "tok", "name": "r1"},
        "hosts": [{"key": "k1"}, {"key": "plain"}],  # shorter than public's list
        "app": {"id": 7, "pem": ["p1", {"deep": "p2"}]},
    }
    assert list(redact.secret_values(public, shown)) == [
        "apiVersion: v1",
        "tok",
        "k1",
        "p1",
        "p2",
    ]
    assert list(redact.secret_values("[secret]", "whole")) == ["whole"]
    assert list(redact.secret_values({"a": "[secret]"}, ["not", "a", "dict"])) == []
    assert list(redact.secret_values(["[secret]"], {"not": "a list"})) == []


def test_the_longest_literal_goes_first_and_each_occurrence_is_counted() -> None:
    redactor = redact.Redactor()
    redactor.add(["abcdefgh", "abcdefgh-and-more", "tiny"])
    assert redactor.literals == {b"abcdefgh", b"abcdefgh-and-more"}
    line = b"a abcdefgh-and-more b abcdefgh c abcdefgh"
    assert redactor.line(line) == b"a [REDACTED] b [REDACTED] c [REDACTED]"
    assert redactor.counts == {
        "stack secrets and kubeconfigs": 3,
        "pem": 0,
        "credential": 0,
        "authorization": 0,
        "github-token": 0,
    }


@pytest.mark.parametrize(
    ("line", "redacted", "rule"),
    [
        (b"client-key-data: S0VZLURBVEE=", b"client-key-data: [REDACTED]", "credential"),
        (
            b'{"password": "hunter22", "user": "u"}',
            b'{"password": "[REDACTED]", "user": "u"}',
            "credential",
        ),
        (b"env password=abc.def x", b"env password=[REDACTED] x", "credential"),
        (b"kubectl --token=abcdefgh1 get", b"kubectl --token=[REDACTED] get", "credential"),
        (b"kubectl --token abcdefgh1 get", b"kubectl --token [REDACTED] get", "credential"),
        (b"x-token: v x--token=v", b"x-token: v x--token=v", None),
        (b"Authorization: Basic dXNlcjpwYXNz", b"Authorization: Basic [REDACTED]", "authorization"),
        (b"gho_" + b"a" * 24 + b" done", b"gho_[REDACTED] done", "github-token"),
        (
            b'"key": "' + KEY.encode() + b"\\nMIIE\\n" + END.encode() + b'\\n"',
            b'"key": "' + KEY.encode() + b"[REDACTED]" + END.encode() + b'\\n"',
            "pem",
        ),
    ],
    ids=[
        "kubeconfig-key",
        "json-key",
        "flag",
        "cli-flag",
        "cli-flag-spaced",
        "not-a-key",
        "basic",
        "github",
        "escaped-pem",
    ],
)
def test_each_pattern_keeps_its_prefix_and_counts(
    line: bytes, redacted: bytes, rule: str | None
) -> None:
    redactor = redact.Redactor()
    assert redactor.line(line) == redacted
    assert {k: v for k, v in redactor.counts.items() if v} == ({rule: 1} if rule else {})


def test_a_pem_block_across_lines_keeps_its_armour_and_what_is_around_it() -> None:
    redactor = redact.Redactor()
    lines = [
        b"key follows: " + KEY.encode() + b"\n",
        b"MIIEowIBAAKCAQEAq7BFUpkGp3\n",
        b"tail of body " + END.encode() + b" and after\n",
        b"token: abcdefgh12\n",
        b"last line, no newline",
    ]
    assert b"".join(redactor.stream(lines)) == (
        b"key follows: " + KEY.encode() + b"\n[REDACTED]\n" + END.encode() + b" and after\n"
        b"token: [REDACTED]\n"
        b"last line, no newline"
    )
    assert {k: v for k, v in redactor.counts.items() if v} == {"pem": 1, "credential": 1}


def test_a_pem_block_whose_end_names_another_armour_is_cut_to_the_end() -> None:
    redactor = redact.Redactor()
    lines = [KEY.encode() + b"\n", b"body\n", b"-----END CERTIFICATE-----\n", b"more\n"]
    assert list(redactor.stream(lines)) == [KEY.encode() + b"\n[REDACTED]\n"]


def test_a_pem_block_in_one_line_is_the_patterns() -> None:
    redactor = redact.Redactor()
    line = f"x {KEY}body{END} y\n".encode()
    assert list(redactor.stream([line])) == [f"x {KEY}[REDACTED]{END} y\n".encode()]
    assert {k: v for k, v in redactor.counts.items() if v} == {"pem": 1}


def test_text_is_redacted_line_by_line_and_keeps_its_line_ends() -> None:
    redactor = redact.Redactor()
    redactor.add(["runner-s3cret"])
    text = f"first runner-s3cret\n{KEY}\nbody\n{END}\nlast é\r\n"
    assert redactor.text(text) == f"first [REDACTED]\n{KEY}\n[REDACTED]\n{END}\nlast é\r\n"
    assert redactor.text("") == ""


def test_a_credential_field_of_eight_characters_is_taken_without_its_quotes_only() -> None:
    value = "kind: Config\ntoken: 'abcdefgh'\npassword: XsecretX\nid-token: abcdefg\n"
    assert redact.secret_literals(value) == {value.strip(), "abcdefgh", "XsecretX"}


def test_a_literal_inside_a_longer_one_does_not_split_it() -> None:
    """Longest first, whatever their order as bytes: the longer value goes whole."""
    redactor = redact.Redactor()
    redactor.add(["zzzz-zzzz", "a-zzzz-zzzz"])
    assert redactor.line(b"[a-zzzz-zzzz] [zzzz-zzzz]") == b"[[REDACTED]] [[REDACTED]]"


def test_each_pem_block_across_lines_is_counted() -> None:
    redactor = redact.Redactor()
    block = [f"{KEY}\n".encode(), b"body\n", f"{END}\n".encode()]
    assert (
        list(redactor.stream(block * 2))
        == [
            f"{KEY}\n[REDACTED]\n".encode(),
            f"{END}\n".encode(),
        ]
        * 2
    )
    assert redactor.counts["pem"] == 2


def test_a_line_keeps_its_last_character_before_the_newline() -> None:
    redactor = redact.Redactor()
    assert list(redactor.stream([b"ends in X\n", b"ends in X"])) == [b"ends in X\n", b"ends in X"]


def test_what_follows_a_blocks_end_is_kept_from_the_first_end() -> None:
    redactor = redact.Redactor()
    lines = [f"{KEY}\n".encode(), f"body {END} between {END} after\n".encode()]
    assert list(redactor.stream(lines)) == [
        f"{KEY}\n[REDACTED]\n".encode(),
        f"{END} between {END} after\n".encode(),
    ]
