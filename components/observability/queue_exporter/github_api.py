"""GitHub's REST API as the exporter calls it: GETs with ETags, pages, rate limits.

Rules from GitHub's docs (github/docs `content/rest/using-the-rest-api/`):
- rate-limits-for-the-rest-api.md: a 403 or 429 with `x-ratelimit-remaining: 0` is the
  primary limit: no request before `x-ratelimit-reset` (UTC epoch seconds); a 403 or 429
  with `retry-after` is a secondary limit: none for that many seconds; a secondary limit
  with neither header: wait at least a minute, longer each time it repeats. Requests while
  limited may get the integration banned, so a limit stops the whole poll.
- best-practices-for-using-the-rest-api.md: conditional requests (`If-None-Match` with the
  last `etag`); a 304 does not count against the primary rate limit.
- using-pagination-in-the-rest-api.md: follow the `Link` header's `rel="next"` URL as given.
Every body is read up to a bound; a larger one is dropped and counted, never parsed.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

API_VERSION = "2022-11-28"
_NEXT = re.compile(r'<([^<>]+)>\s*;\s*rel="next"')
MIN_SECONDARY_WAIT_S = 60.0
MAX_WAIT_S = 3600.0


class RateLimitedError(Exception):
    """GitHub asked for no request before `until` (epoch seconds)."""

    def __init__(self, kind: str, until: float) -> None:
        super().__init__(f"{kind} rate limit until {until:.0f}")
        self.kind = kind
        self.until = until


class ApiError(Exception):
    """A request that failed: `kind` is what the error counter's label says."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind


@dataclass
class Response:
    status: int
    body: Any
    next_url: str | None


@dataclass
class Budget:
    """The primary limit as the last response reported it."""

    remaining: int | None = None
    limit: int | None = None
    reset: float | None = None


@dataclass
class Client:
    """One API origin and one token source; counts what it does in `counts`."""

    api_url: str
    token: Callable[[], str]
    now: Callable[[], float]
    max_body_bytes: int
    timeout_s: float = 30.0
    budget: Budget = field(default_factory=Budget)
    requests: dict[str, int] = field(default_factory=dict)
    """Responses by status code ("200", "304", ...; "network" for none)."""
    _etags: dict[str, tuple[str, Any, str | None]] = field(default_factory=dict)
    _secondary_streak: int = 0

    def get(self, url: str) -> Response:
        """GET `url` (absolute, under `api_url`), conditionally when its ETag is known."""
        if not url.startswith(self.api_url + "/"):
            raise ApiError("foreign_link", f"{url!r} is not under {self.api_url}")
        headers = {"Authorization": f"Bearer {self.token()}"}
        cached = self._etags.get(url)
        if cached is not None:
            headers["If-None-Match"] = cached[0]
        status, reply, data = self._send("GET", url, headers, None)
        if status == 304 and cached is not None:
            # A 304 has no body, and need not repeat the Link: both are the cached page's.
            return Response(304, cached[1], cached[2])
        body = self._json(data)
        etag = reply.get("etag")
        if etag:
            self._etags[url] = (etag, body, _next(reply))
        return Response(status, body, _next(reply))

    def post(self, url: str, bearer: str) -> Any:
        """POST to `url` with the App's JWT (no ETag, no body): the installation token."""
        _, _, data = self._send("POST", url, {"Authorization": f"Bearer {bearer}"}, b"")
        return self._json(data)

    def forget(self, keep: set[str]) -> None:
        """Drop the cached bodies of URLs not in `keep` (runs no longer listed)."""
        for url in [u for u in self._etags if u not in keep]:
            del self._etags[url]

    def _send(
        self, method: str, url: str, headers: dict[str, str], data: bytes | None
    ) -> tuple[int, dict[str, str], bytes]:
        request = urllib.request.Request(url, data=data, method=method)
        for key, value in {
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": API_VERSION,
            "User-Agent": "gpu-ci-queue-exporter",
            **headers,
        }.items():
            request.add_header(key, value)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as reply:
                status, got, body = reply.status, reply.headers, self._read(reply)
        except urllib.error.HTTPError as err:
            status, got = err.code, err.headers
            body = b"" if status == 304 else self._read(err)
        except (urllib.error.URLError, OSError, ValueError) as err:
            self._count("network")
            raise ApiError("network", str(err)) from None
        lowered = {k.lower(): v for k, v in got.items()}
        self._count(str(status))
        self._note_budget(lowered)
        if status in (403, 429):
            self._limited(status, lowered, body)
        else:
            self._secondary_streak = 0
        if status >= 500:
            raise ApiError("server_error", f"{method} {url}: {status}")
        if status == 401:
            raise ApiError("unauthorized", f"{method} {url}: 401")
        if status >= 400:
            raise ApiError("client_error", f"{method} {url}: {status}")
        return status, lowered, body

    def _read(self, reply: Any) -> bytes:
        data: bytes = reply.read(self.max_body_bytes + 1)
        if len(data) > self.max_body_bytes:
            raise ApiError("oversized_response", f"over {self.max_body_bytes} bytes")
        return data

    def _json(self, data: bytes) -> Any:
        try:
            return json.loads(data)
        except ValueError:
            raise ApiError("bad_json", "the body is not JSON") from None

    def _count(self, key: str) -> None:
        self.requests[key] = self.requests.get(key, 0) + 1

    def _note_budget(self, headers: dict[str, str]) -> None:
        remaining, limit = (
            _int(headers.get("x-ratelimit-remaining")),
            _int(headers.get("x-ratelimit-limit")),
        )
        reset = _int(headers.get("x-ratelimit-reset"))
        if remaining is not None:
            self.budget.remaining = remaining
        if limit is not None:
            self.budget.limit = limit
        if reset is not None:
            self.budget.reset = float(reset)

    def _limited(self, status: int, headers: dict[str, str], body: bytes) -> None:
        """Raise RateLimitedError for a rate limit; return for a 403 that is not one."""
        now = self.now()
        retry_after = _int(headers.get("retry-after"))
        message = body[:2000].decode("utf-8", "replace").lower()
        if retry_after is not None:
            self._secondary_streak += 1
            raise RateLimitedError("secondary", now + min(max(retry_after, 0), MAX_WAIT_S))
        if headers.get("x-ratelimit-remaining") == "0":
            reset = _int(headers.get("x-ratelimit-reset"))
            until = float(reset) if reset is not None else now + MIN_SECONDARY_WAIT_S
            raise RateLimitedError("primary", min(max(until, now), now + MAX_WAIT_S))
        if status == 429 or "rate limit" in message:
            self._secondary_streak += 1
            wait = MIN_SECONDARY_WAIT_S * 2 ** min(self._secondary_streak - 1, 6)
            raise RateLimitedError("secondary", now + min(wait, MAX_WAIT_S))


def _int(value: str | None) -> int | None:
    if value is None or not value.strip().lstrip("-").isdigit():
        return None
    return int(value.strip())


def _next(headers: dict[str, str]) -> str | None:
    match = _NEXT.search(headers.get("link", ""))
    return match.group(1) if match else None
