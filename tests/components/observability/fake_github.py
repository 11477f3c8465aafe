"""A fake GitHub REST API on loopback: real HTTP, GitHub's documented behaviour, stdlib only.

What it serves follows GitHub's REST description (../shared/upstream/schemas/github-rest-api,
an extract of github/rest-api-description): `GET /repos/{o}/{r}/actions/runs` (filtered by
`status` and `created: >=`), `GET .../actions/runs/{id}/jobs`, and the App endpoints
`POST /app/installations/{id}/access_tokens` (whose JWT it verifies with openssl against the
App's public key) and `GET /installation/repositories`. Pages are `per_page` items (the
fake may cap it lower, to page small data) with a `Link` header as GitHub writes it; every
200 carries a strong `etag` and a matching `If-None-Match` gets a bodyless 304 that spends
no rate limit; every response carries the `x-ratelimit-*` headers. Faults queued with
`fail_next` answer the next requests instead (403/429 rate limits, a 5xx, a huge page).
Runs and jobs are dicts the caller builds (github_fixtures.py); the fake filters and pages.
"""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

TOKEN = "ghs_faketoken"


@dataclass
class Fault:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b'{"message": "fault"}'
    path_contains: str = ""


@dataclass
class FakeGitHub:
    public_key: Path
    now: Callable[[], float]
    app_id: str = "1234567"
    installation_id: str = "87654321"
    max_per_page: int = 100
    limit: int = 5000
    runs: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    jobs: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    faults: list[Fault] = field(default_factory=list)
    log: list[tuple[str, str, int]] = field(default_factory=list)
    """(method, path with query, status) of every request, in order."""
    used: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> FakeGitHub:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                fake._handle(self, "GET")

            def do_POST(self) -> None:
                fake._handle(self, "POST")

            def log_message(self, format: str, *args: object) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    def fail_next(self, *faults: Fault) -> None:
        with self.lock:
            self.faults.extend(faults)

    def counted(self) -> int:
        """Requests that spent the primary rate limit (everything but 304s)."""
        return sum(1 for _, _, status in self.log if status != 304)

    # -- the API --------------------------------------------------------------------------

    def _reset(self) -> int:
        return int(self.now()) // 3600 * 3600 + 3600

    def _rate_headers(self) -> dict[str, str]:
        return {
            "x-ratelimit-limit": str(self.limit),
            "x-ratelimit-remaining": str(max(self.limit - self.used, 0)),
            "x-ratelimit-used": str(self.used),
            "x-ratelimit-reset": str(self._reset()),
            "x-ratelimit-resource": "core",
        }

    def _handle(self, req: BaseHTTPRequestHandler, method: str) -> None:
        parsed = urllib.parse.urlsplit(req.path)
        query = dict(urllib.parse.parse_qsl(parsed.query))
        with self.lock:
            fault = next((f for f in self.faults if f.path_contains in req.path), None)
            if fault is not None:
                self.faults.remove(fault)
                self._send(req, method, fault.status, fault.body, fault.headers)
                return
            status, body, headers = self._route(req, method, parsed.path, query)
            if status == 200 and method == "GET":
                etag = '"' + hashlib.sha256(body).hexdigest() + '"'
                headers["etag"] = etag
                if req.headers.get("If-None-Match") == etag:
                    self._send(req, method, 304, b"", {"etag": etag})
                    return
            if status != 304:
                self.used += 1
            self._send(req, method, status, body, headers)

    def _send(
        self,
        req: BaseHTTPRequestHandler,
        method: str,
        status: int,
        body: bytes,
        headers: dict[str, str],
    ) -> None:
        self.log.append((method, req.path, status))
        req.send_response(status)
        for key, value in {**self._rate_headers(), **headers}.items():
            req.send_header(key, value)
        if status != 304:
            req.send_header("Content-Type", "application/json; charset=utf-8")
            req.send_header("Content-Length", str(len(body)))
        req.end_headers()
        if status != 304:
            req.wfile.write(body)

    def _route(  # noqa: PLR0911 (one return per route)
        self, req: BaseHTTPRequestHandler, method: str, path: str, query: dict[str, str]
    ) -> tuple[int, bytes, dict[str, str]]:
        parts = path.strip("/").split("/")
        if method == "POST" and parts[:2] == ["app", "installations"] and len(parts) == 4:
            return self._token(req, parts[2])
        if req.headers.get("Authorization") != f"Bearer {TOKEN}":
            return 401, b'{"message": "Bad credentials"}', {}
        if method != "GET":
            return 404, b'{"message": "Not Found"}', {}
        if parts == ["installation", "repositories"]:
            repos = [{"id": i + 1, "full_name": name} for i, name in enumerate(sorted(self.runs))]
            return self._page(path, query, "repositories", repos)
        if len(parts) >= 5 and parts[0] == "repos" and parts[3:5] == ["actions", "runs"]:
            repo = f"{parts[1]}/{parts[2]}"
            if len(parts) == 5:
                return self._page(path, query, "workflow_runs", self._filter(repo, query))
            if len(parts) == 7 and parts[6] == "jobs" and parts[5].isdigit():
                run = int(parts[5])
                if not any(r["id"] == run for r in self.runs.get(repo, [])):
                    return 404, b'{"message": "Not Found"}', {}
                return self._page(path, query, "jobs", self.jobs.get(run, []))
        return 404, b'{"message": "Not Found"}', {}

    def _filter(self, repo: str, query: dict[str, str]) -> list[dict[str, Any]]:
        runs = self.runs.get(repo, [])
        if "status" in query:
            runs = [r for r in runs if r["status"] == query["status"]]
        created = query.get("created", "")
        if created.startswith(">="):
            runs = [r for r in runs if r["created_at"] >= created[2:]]
        return sorted(runs, key=lambda r: -int(r["id"]))

    def _page(
        self, path: str, query: dict[str, str], key: str, items: list[dict[str, Any]]
    ) -> tuple[int, bytes, dict[str, str]]:
        per_page = min(int(query.get("per_page", "30")), 100, self.max_per_page)
        page = int(query.get("page", "1"))
        chunk = items[(page - 1) * per_page : page * per_page]
        body = json.dumps({"total_count": len(items), key: chunk}).encode()
        last = max(1, -(-len(items) // per_page))
        links = []
        if page < last:
            for rel, number in (("next", page + 1), ("last", last)):
                q = urllib.parse.urlencode({**query, "page": str(number)})
                links.append(f'<{self.url}{path}?{q}>; rel="{rel}"')
        return 200, body, ({"link": ", ".join(links)} if links else {})

    def _token(
        self, req: BaseHTTPRequestHandler, installation: str
    ) -> tuple[int, bytes, dict[str, str]]:
        bearer = req.headers.get("Authorization", "").removeprefix("Bearer ")
        if installation != self.installation_id or not self._valid_jwt(bearer):
            return 401, b'{"message": "A JSON web token could not be decoded"}', {}
        expires = int(self.now()) + 3600
        stamp = _iso(expires)
        return 201, json.dumps({"token": TOKEN, "expires_at": stamp}).encode(), {}

    def _valid_jwt(self, jwt: str) -> bool:
        """RS256 over `header.payload`, verified by openssl with the App's public key; `iss`
        the App, `iat` in the past, `exp` at most 10 minutes on (GitHub's rules)."""
        parts = jwt.split(".")
        if len(parts) != 3:
            return False
        header, claims = (json.loads(_unb64(p)) for p in parts[:2])
        now = self.now()
        if header.get("alg") != "RS256" or claims.get("iss") != self.app_id:
            return False
        if not claims["iat"] <= now < claims["exp"] <= now + 600:
            return False
        with tempfile.TemporaryDirectory() as tmp:
            signature = Path(tmp) / "sig"
            signature.write_bytes(_unb64(parts[2]))
            done = subprocess.run(
                [
                    "openssl",
                    "dgst",
                    "-sha256",
                    "-verify",
                    str(self.public_key),
                    "-signature",
                    str(signature),
                ],
                input=f"{parts[0]}.{parts[1]}".encode(),
                capture_output=True,
                check=False,
            )
        return done.returncode == 0


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _iso(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))
