"""The App's JWT and its installation token: signed by the real `openssl` CLI and verified
with the key's public half (RS256 = RSASSA-PKCS1-v1_5 with SHA-256), claims as GitHub's docs
require (`generating-a-json-web-token-jwt-for-a-github-app.md`: `iat` 60 s back, `exp` at
most 10 minutes on, `iss` the App), and the token cached until five minutes before it ends."""

from __future__ import annotations

import base64
import json
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from components.observability.queue_exporter.app_token import (
    InstallationToken,
    TokenError,
    app_jwt,
)
from tests.components.observability.queue_harness import app_key

NOW = 1_796_119_200.0  # 2026-12-01T10:00:00Z
HOUR_ON = "2026-12-01T11:00:00Z"


def _part(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _verifies(jwt: str, public: Path, tmp: Path) -> bool:
    header, payload, signature = jwt.split(".")
    (tmp / "sig").write_bytes(_part(signature))
    done = subprocess.run(
        ["openssl", "dgst", "-sha256", "-verify", str(public), "-signature", str(tmp / "sig")],
        input=f"{header}.{payload}".encode(),
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


def test_the_jwt_is_rs256_over_githubs_claims(tmp_path: Path) -> None:
    public = app_key(tmp_path)
    jwt = app_jwt("1234567", str(tmp_path / "private_key"), NOW + 0.9)
    header, payload, signature = jwt.split(".")
    assert "=" not in jwt  # base64url without padding
    assert header == "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9"  # {"alg":"RS256","typ":"JWT"}
    assert _part(payload) == b'{"iat":1796119140,"exp":1796119740,"iss":"1234567"}'
    assert len(_part(signature)) == 256  # a 2048-bit RSA signature
    assert _verifies(jwt, public, tmp_path)
    assert not _verifies(jwt.replace(payload, payload[:-2] + "fQ"), public, tmp_path)


def test_a_key_openssl_cannot_use_is_a_token_error(tmp_path: Path) -> None:
    (tmp_path / "key").write_text("-----BEGIN PRIVATE KEY-----\nnot a key\n")
    with pytest.raises(TokenError) as err:
        app_jwt("1", str(tmp_path / "key"), NOW)
    assert str(err.value).startswith("openssl could not sign with the App key: ")
    assert "\n" not in str(err.value) and len(str(err.value)) > 42  # openssl's first line


def test_without_openssl_it_is_a_token_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app_key(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(TokenError) as err:
        app_jwt("1", str(tmp_path / "private_key"), NOW)
    assert str(err.value) == (
        "openssl could not run: [Errno 2] No such file or directory: 'openssl'"
    )


def _stub_openssl(tmp: Path, script: str) -> Path:
    """A bin folder whose `openssl` runs `script` (sh) instead: a signer that fails."""
    bindir = tmp / "bin"
    bindir.mkdir()
    stub = bindir / "openssl"
    stub.write_text(f"#!/bin/sh\n{script}\n")
    stub.chmod(0o755)
    return bindir


@pytest.mark.parametrize(
    ("script", "message"),
    [
        (
            r"printf 'unable to load key \377 file\nsecond line\n' >&2; exit 1",
            "unable to load key \ufffd file",
        ),
        ("printf 'c2ln'; echo 'half done' >&2; exit 1", "half done"),
        ("exit 0", ""),
    ],
    ids=["not-utf8-two-lines", "output-but-failed", "no-signature"],
)
def test_a_signer_that_fails_or_signs_nothing_is_one_line_of_its_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: str, message: str
) -> None:
    monkeypatch.setenv("PATH", str(_stub_openssl(tmp_path, script)))
    with pytest.raises(TokenError) as err:
        app_jwt("1", str(tmp_path / "private_key"), NOW)
    assert str(err.value) == f"openssl could not sign with the App key: {message}"


@dataclass
class Exchange:
    """GitHub's `POST .../access_tokens`: each call recorded, answered in turn."""

    replies: list[Any]
    calls: list[tuple[str, str]] = field(default_factory=list)

    def __call__(self, url: str, bearer: str) -> Any:
        self.calls.append((url, bearer))
        return self.replies.pop(0)


@dataclass
class At:
    t: float = NOW

    def __call__(self) -> float:
        return self.t


def _token(
    tmp: Path, replies: list[Any], clock: Callable[[], float]
) -> tuple[InstallationToken, Exchange]:
    app_key(tmp)
    exchange = Exchange(replies)
    token = InstallationToken(
        api_url="https://api.github.com",
        app_id_file=str(tmp / "app_id"),
        installation_id_file=str(tmp / "installation_id"),
        key_file=str(tmp / "private_key"),
        now=clock,
        post=exchange,
    )
    return token, exchange


def test_the_token_is_made_once_and_renewed_five_minutes_before_it_ends(tmp_path: Path) -> None:
    clock = At()
    token, exchange = _token(
        tmp_path,
        [
            {"token": "ghs_1", "expires_at": HOUR_ON},
            {"token": "ghs_2", "expires_at": "2026-12-01T12:00:00Z"},
        ],
        clock,
    )
    assert token() == "ghs_1"
    ((url, bearer),) = exchange.calls
    assert url == "https://api.github.com/app/installations/87654321/access_tokens"
    assert _verifies(bearer, tmp_path / "public.pem", tmp_path)
    assert json.loads(_part(bearer.split(".")[1]))["iss"] == "1234567"  # the file, stripped
    clock.t = NOW + 3600 - 300  # exactly five minutes left: still good
    assert token() == "ghs_1" and len(exchange.calls) == 1
    clock.t += 1
    assert token() == "ghs_2" and len(exchange.calls) == 2
    assert json.loads(_part(exchange.calls[1][1].split(".")[1]))["iat"] == NOW + 3301 - 60


def test_a_dropped_token_is_replaced_at_the_next_request(tmp_path: Path) -> None:
    token, exchange = _token(
        tmp_path,
        [{"token": "ghs_1", "expires_at": HOUR_ON}, {"token": "ghs_2", "expires_at": HOUR_ON}],
        At(),
    )
    assert token() == "ghs_1"
    token.drop()
    assert token() == "ghs_2" and len(exchange.calls) == 2


@pytest.mark.parametrize(
    "reply",
    [
        {"token": "ghs_1"},
        {"expires_at": HOUR_ON},
        {"token": "", "expires_at": HOUR_ON},
        {"token": 5, "expires_at": HOUR_ON},
        {"token": "ghs_1", "expires_at": "2026-12-01T11:00:00+00:00"},
        {"token": "ghs_1", "expires_at": 1796122800},
        ["ghs_1"],
    ],
    ids=json.dumps,
)
def test_a_reply_without_a_token_and_its_expiry_is_a_token_error(
    tmp_path: Path, reply: Any
) -> None:
    token, _ = _token(tmp_path, [reply], At())
    with pytest.raises(TokenError) as err:
        token()
    assert str(err.value) == "the access_tokens reply has no token or expires_at"


@pytest.mark.parametrize(("app_id", "installation"), [("12a", "1"), ("1", ""), ("-1", "2")])
def test_ids_that_are_not_numbers_are_a_token_error(
    tmp_path: Path, app_id: str, installation: str
) -> None:
    token, exchange = _token(tmp_path, [], At())
    (tmp_path / "app_id").write_text(app_id)
    (tmp_path / "installation_id").write_text(installation)
    with pytest.raises(TokenError) as err:
        token()
    assert str(err.value) == "github_app_id and github_app_installation_id must be numbers"
    assert exchange.calls == []


@pytest.mark.parametrize(
    ("missing", "what"),
    [("app_id", "github_app_id"), ("installation_id", "github_app_installation_id")],
)
def test_a_secret_file_that_is_not_there_is_a_token_error(
    tmp_path: Path, missing: str, what: str
) -> None:
    token, _ = _token(tmp_path, [], At())
    (tmp_path / missing).unlink()
    with pytest.raises(TokenError) as err:
        token()
    assert str(err.value) == (
        f"{what} ({tmp_path / missing}) cannot be read: No such file or directory"
    )
