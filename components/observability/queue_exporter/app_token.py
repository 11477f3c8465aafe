"""The GitHub App's installation token, from the App key in the scale sets' Secret.

An App authenticates with a JWT signed RS256 (RSASSA-PKCS1-v1_5 with SHA-256) by its private
key, claims `iat` (60 s in the past, for clock drift), `exp` (at most 10 minutes on) and
`iss` (the App's id), then exchanges it for an installation token (an hour) with
`POST /app/installations/{installation_id}/access_tokens` (GitHub docs,
`content/apps/creating-github-apps/authenticating-with-a-github-app/
generating-a-json-web-token-jwt-for-a-github-app.md` and `...-installation-access-token-...`).

The standard library has no RSA signing. `openssl dgst -sha256 -sign KEY` writes exactly
that signature (PKCS#1 v1.5 is `openssl dgst -sign`'s default for an RSA key), and the
pinned image has the `openssl` CLI: its Dockerfile installs `ca-certificates`
(docker-library/python `3.13/slim-bookworm/Dockerfile`), which Debian bookworm's package
makes depend on `openssl`. The key never leaves its read-only mount: openssl reads the file.
"""

from __future__ import annotations

import base64
import calendar
import json
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

JWT_LIFETIME_S = 540
REFRESH_BEFORE_S = 300
"""A token with less than this left is replaced before the next request."""


class TokenError(Exception):
    """The App's credentials could not make a token (the message says which part)."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _read(path: str, what: str) -> str:
    try:
        return Path(path).read_text().strip()
    except OSError as err:
        raise TokenError(f"{what} ({path}) cannot be read: {err.strerror}") from None


def app_jwt(app_id: str, key_file: str, now: float) -> str:
    """The App's JWT, signed by `openssl` with the key at `key_file`."""
    header = _b64(json.dumps({"alg": "RS256", "typ": "JWT"}, separators=(",", ":")).encode())
    claims = {"iat": int(now) - 60, "exp": int(now) + JWT_LIFETIME_S, "iss": app_id}
    payload = _b64(json.dumps(claims, separators=(",", ":")).encode())
    signing_input = f"{header}.{payload}".encode()
    try:
        done = subprocess.run(
            ["openssl", "dgst", "-sha256", "-sign", key_file],
            input=signing_input,
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        raise TokenError(f"openssl could not run: {err}") from None
    if done.returncode != 0 or not done.stdout:
        first = done.stderr.decode("utf-8", "replace").strip().splitlines()[:1]
        raise TokenError(f"openssl could not sign with the App key: {' '.join(first)}")
    return f"{header}.{payload}.{_b64(done.stdout)}"


def _expiry(value: object) -> float | None:
    """`expires_at` (e.g. 2016-07-11T22:14:10Z) as epoch seconds."""
    if not isinstance(value, str):
        return None
    try:
        return float(calendar.timegm(time.strptime(value, "%Y-%m-%dT%H:%M:%SZ")))
    except ValueError:
        return None


@dataclass
class InstallationToken:
    """A cached installation token, replaced shortly before it expires."""

    api_url: str
    app_id_file: str
    installation_id_file: str
    key_file: str
    now: Callable[[], float]
    post: Callable[[str, str], Any]
    """POST (url, bearer) -> the JSON reply (github_api.Client.post)."""
    _token: str | None = None
    _expires: float = 0.0

    def __call__(self) -> str:
        if self._token is None or self._expires - self.now() < REFRESH_BEFORE_S:
            self._token, self._expires = self._fetch()
        return self._token

    def drop(self) -> None:
        """Forget the token (after a 401): the next request makes a new one."""
        self._token = None

    def _fetch(self) -> tuple[str, float]:
        app_id = _read(self.app_id_file, "github_app_id")
        installation = _read(self.installation_id_file, "github_app_installation_id")
        if not app_id.isdigit() or not installation.isdigit():
            raise TokenError("github_app_id and github_app_installation_id must be numbers")
        bearer = app_jwt(app_id, self.key_file, self.now())
        reply = self.post(f"{self.api_url}/app/installations/{installation}/access_tokens", bearer)
        token = reply.get("token") if isinstance(reply, dict) else None
        expires = _expiry(reply.get("expires_at")) if isinstance(reply, dict) else None
        if not isinstance(token, str) or not token or expires is None:
            raise TokenError("the access_tokens reply has no token or expires_at")
        return token, expires
