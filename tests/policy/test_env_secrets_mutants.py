"""`no-plaintext-secrets-in-pod-env`, exactly: every env entry of a container is judged,
whatever comes before it, and only a non-empty text value can hold a credential
(mutation-testing survivors of policy/env_secrets.py)."""

from __future__ import annotations

from typing import Any

from policy.env_secrets import check_env_secrets
from policy.rule import Resource

PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n"


def check(*env: Any) -> list[str]:
    pod = {"spec": {"containers": [{"name": "c", "env": list(env)}]}}
    return check_env_secrets(Resource("kubernetes:core/v1:Pod", "p", pod), {})


def plain(name: str) -> str:
    return (
        f"p (kubernetes:core/v1:Pod): spec.containers[0] env {name} holds a credential as a "
        "plain value; use valueFrom.secretKeyRef"
    )


def test_entries_after_a_reference_or_an_empty_value_are_judged() -> None:
    reference = {"name": "A_TOKEN", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}
    empty = {"name": "B_TOKEN", "value": ""}
    number = {"name": "C_TOKEN", "value": 5}
    assert check(reference, empty, number, {"name": "GITHUB_TOKEN", "value": "x"}) == [
        plain("GITHUB_TOKEN")
    ]


def test_only_a_non_empty_text_value_holds_a_credential() -> None:
    for value in ("", 5, None, True, ["ghp_" + "a" * 30]):
        assert check({"name": "GITHUB_TOKEN", "value": value}) == [], value


def test_an_unnamed_entry_is_named_by_its_index() -> None:
    assert check({"name": "HOME", "value": "/root"}, {"value": PEM}) == [plain("[1]")]
