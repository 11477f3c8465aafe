"""The exporter's GitHub client over real HTTP: a loopback peer answers each request with the
next scripted reply and records what was asked, so every header, status and rate-limit rule
of GitHub's REST docs (github/docs `content/rest/using-the-rest-api/`, cited in
github_api.py) is seen as the client sees it on the wire."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from components.observability.queue_exporter.github_api import (
    ApiError,
    Budget,
    Client,
    RateLimitedError,
    Response,
)

NOW = 1_796_119_200.0


@dataclass
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b'{"ok": true}'


@dataclass
class Peer:
    """Answers each request with the next reply; records (method, path, headers, body),
    the header names in lower case (HTTP's are case-insensitive)."""

    replies: list[Reply] = field(default_factory=list)
    asked: list[tuple[str, str, dict[str, str], bytes]] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> Peer:
        peer = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                peer.asked.append((self.command, self.path, headers, body))
                reply = peer.replies.pop(0)
                self.send_response(reply.status)
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                if reply.status != 304:
                    self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                if reply.status != 304:
                    self.wfile.write(reply.body)

            do_GET = do_POST = _answer

            def log_message(self, format: str, *args: object) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self


@pytest.fixture
def peer() -> Iterator[Peer]:
    served = Peer().start()
    yield served
    assert served.server is not None
    served.server.shutdown()
    served.server.server_close()


def _client(peer: Peer, max_body: int = 1 << 20) -> Client:
    return Client(peer.url + "/api/v3", lambda: "ghs_token", lambda: NOW, max_body)


def _limited(client: Client, url: str) -> RateLimitedError:
    with pytest.raises(RateLimitedError) as err:
        client.get(url)
    return err.value


def _failed(client: Client, url: str) -> ApiError:
    with pytest.raises(ApiError) as err:
        client.get(url)
    return err.value


def test_a_get_sends_githubs_headers_and_reads_the_json(peer: Peer) -> None:
    peer.replies = [Reply(200, {"x-ratelimit-remaining": "4990"}, b'{"jobs": [1]}')]
    client = _client(peer)
    assert client.get(f"{peer.url}/api/v3/repos/o/r/actions/runs?per_page=100") == Response(
        200, {"jobs": [1]}, None
    )
    ((method, path, headers, body),) = peer.asked
    assert (method, path, body) == ("GET", "/api/v3/repos/o/r/actions/runs?per_page=100", b"")
    assert headers["authorization"] == "Bearer ghs_token"
    assert headers["accept"] == "application/vnd.github+json"
    assert headers["x-github-api-version"] == "2022-11-28"
    assert headers["user-agent"] == "gpu-ci-queue-exporter"
    assert "if-none-match" not in headers
    assert client.requests == {"200": 1}


def test_a_known_etag_makes_the_request_conditional_and_a_304_reuses_the_page(
    peer: Peer,
) -> None:
    link = f'<{peer.url}/api/v3/x?page=2>; rel="next", <{peer.url}/api/v3/x?page=3>; rel="last"'
    peer.replies = [
        Reply(200, {"ETag": '"abc"', "Link": link}, b'{"page": 1}'),
        Reply(304, {"ETag": '"abc"'}, b""),
    ]
    client = _client(peer)
    url = f"{peer.url}/api/v3/x"
    first = client.get(url)
    assert first == Response(200, {"page": 1}, f"{peer.url}/api/v3/x?page=2")
    assert client.get(url) == Response(304, {"page": 1}, f"{peer.url}/api/v3/x?page=2")
    assert peer.asked[1][2]["if-none-match"] == '"abc"'
    peer.replies.append(Reply(304, {"ETag": '"abc"'}, b""))
    client.get(url)
    assert client.requests == {"200": 1, "304": 2}


def test_a_page_without_an_etag_is_not_cached(peer: Peer) -> None:
    peer.replies = [Reply(200, {}, b"[]"), Reply(200, {}, b"[]")]
    client = _client(peer)
    client.get(f"{peer.url}/api/v3/x")
    client.get(f"{peer.url}/api/v3/x")
    assert "if-none-match" not in peer.asked[1][2]


def test_a_304_for_a_page_never_fetched_is_no_page(peer: Peer) -> None:
    peer.replies = [Reply(304, {}, b"")]
    error = _failed(_client(peer), f"{peer.url}/api/v3/x")
    assert (error.kind, str(error)) == ("bad_json", "bad_json: the body is not JSON")


def test_forgotten_pages_are_fetched_whole_again(peer: Peer) -> None:
    peer.replies = [Reply(200, {"etag": f'"{n}"'}, b"{}") for n in range(4)]
    client = _client(peer)
    kept, dropped = f"{peer.url}/api/v3/kept", f"{peer.url}/api/v3/dropped"
    client.get(kept)
    client.get(dropped)
    client.forget({kept})
    client.get(kept)
    client.get(dropped)
    assert [h.get("if-none-match") for _, _, h, _ in peer.asked[2:]] == ['"0"', None]


def test_a_link_outside_the_api_is_never_followed(peer: Peer) -> None:
    client = _client(peer)
    for url in (f"{peer.url}/api/v3x/runs", "https://evil.example/api/v3/runs", peer.url):
        error = _failed(client, url)
        assert str(error) == f"foreign_link: {url!r} is not under {peer.url}/api/v3"
    assert peer.asked == [] and client.requests == {}


def test_the_post_for_a_token_carries_the_jwt_and_no_etag(peer: Peer) -> None:
    peer.replies = [Reply(201, {"etag": '"t"'}, b'{"token": "ghs_x"}')]
    client = _client(peer)
    url = f"{peer.url}/api/v3/app/installations/8/access_tokens"
    assert client.post(url, "jwt.jwt.sig") == {"token": "ghs_x"}
    ((method, path, headers, body),) = peer.asked
    assert (method, path, body) == ("POST", "/api/v3/app/installations/8/access_tokens", b"")
    assert headers["authorization"] == "Bearer jwt.jwt.sig"
    assert headers["content-length"] == "0"
    assert client.requests == {"201": 1}


def test_the_primary_budget_follows_each_response(peer: Peer) -> None:
    peer.replies = [
        Reply(
            200,
            {"x-ratelimit-remaining": "42", "x-ratelimit-limit": "5000", "x-ratelimit-reset": "9"},
        ),
        Reply(200, {"x-ratelimit-remaining": " 41 "}),
        Reply(
            200,
            {"x-ratelimit-remaining": "4.5", "x-ratelimit-limit": "X1", "x-ratelimit-reset": ""},
        ),
    ]
    client = _client(peer)
    client.get(f"{peer.url}/api/v3/a")
    assert client.budget == Budget(remaining=42, limit=5000, reset=9.0)
    client.get(f"{peer.url}/api/v3/b")
    assert client.budget == Budget(remaining=41, limit=5000, reset=9.0)  # the rest is kept
    client.get(f"{peer.url}/api/v3/c")
    assert client.budget == Budget(remaining=41, limit=5000, reset=9.0)  # not numbers: ignored


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (500, "server_error"),
        (502, "server_error"),
        (401, "unauthorized"),
        (400, "client_error"),
        (404, "client_error"),
        (422, "client_error"),
        (403, "client_error"),
    ],
)
def test_a_failed_request_is_an_error_of_its_kind(peer: Peer, status: int, kind: str) -> None:
    peer.replies = [Reply(status, {}, b'{"message": "Resource not accessible by integration"}')]
    client = _client(peer)
    url = f"{peer.url}/api/v3/x"
    error = _failed(client, url)
    assert (error.kind, str(error)) == (kind, f"{kind}: GET {url}: {status}")
    assert client.requests == {str(status): 1}


def test_a_peer_that_does_not_answer_is_a_network_error() -> None:
    client = Client("http://127.0.0.1:9", lambda: "t", lambda: NOW, 100)
    error = _failed(client, "http://127.0.0.1:9/runs")
    assert error.kind == "network" and str(error).startswith("network: <urlopen error ")
    assert client.requests == {"network": 1}


def test_a_body_over_the_bound_is_dropped_unparsed(peer: Peer) -> None:
    peer.replies = [
        Reply(200, {}, b'"' + b"x" * 98 + b'"'),
        Reply(200, {}, b'"' + b"x" * 99 + b'"'),
    ]
    client = _client(peer, max_body=100)
    assert client.get(f"{peer.url}/api/v3/a").body == "x" * 98  # exactly the bound
    error = _failed(client, f"{peer.url}/api/v3/b")
    assert (error.kind, str(error)) == ("oversized_response", "oversized_response: over 100 bytes")


def test_an_error_body_over_the_bound_is_dropped_too(peer: Peer) -> None:
    peer.replies = [Reply(404, {}, b"x" * 101)]
    assert _failed(_client(peer, max_body=100), f"{peer.url}/api/v3/a").kind == (
        "oversized_response"
    )


def test_a_body_that_is_not_json(peer: Peer) -> None:
    peer.replies = [Reply(200, {}, b"<html>Unicorn!</html>")]
    error = _failed(_client(peer), f"{peer.url}/api/v3/a")
    assert (error.kind, str(error)) == ("bad_json", "bad_json: the body is not JSON")


# Rate limits (rate-limits-for-the-rest-api.md).


@pytest.mark.parametrize(
    ("headers", "until"),
    [
        ({"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(NOW) + 1800)}, NOW + 1800),
        ({"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(NOW) - 5)}, NOW),
        ({"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(NOW) + 9000)}, NOW + 3600),
        ({"x-ratelimit-remaining": "0"}, NOW + 60),
    ],
    ids=["reset", "reset-past", "reset-far", "no-reset"],
)
@pytest.mark.parametrize("status", [403, 429])
def test_the_primary_limit_waits_for_its_reset(
    peer: Peer, status: int, headers: dict[str, str], until: float
) -> None:
    peer.replies = [Reply(status, headers, b'{"message": "API rate limit exceeded"}')]
    limit = _limited(_client(peer), f"{peer.url}/api/v3/a")
    assert (limit.kind, limit.until) == ("primary", until)
    assert str(limit) == f"primary rate limit until {until:.0f}"


@pytest.mark.parametrize(
    ("retry_after", "until"),
    [("120", NOW + 120), ("0", NOW), ("-30", NOW), ("7200", NOW + 3600), ("3600", NOW + 3600)],
)
def test_retry_after_is_a_secondary_limit_of_that_many_seconds(
    peer: Peer, retry_after: str, until: float
) -> None:
    peer.replies = [Reply(403, {"retry-after": retry_after, "x-ratelimit-remaining": "0"})]
    limit = _limited(_client(peer), f"{peer.url}/api/v3/a")
    assert (limit.kind, limit.until) == ("secondary", until)


def test_a_secondary_limit_without_headers_waits_longer_each_time(peer: Peer) -> None:
    """A minute, doubling while it repeats, at most an hour; a good answer starts over."""
    message = b'{"message": "You have exceeded a secondary RATE LIMIT."}'
    peer.replies = [
        *(Reply(403, {}, message) for _ in range(3)),
        *(Reply(429, {}, b"{}") for _ in range(5)),
        Reply(200),
        Reply(429, {}, b"{}"),
        Reply(429, {"retry-after": "5"}, b"{}"),
        Reply(429, {}, b"{}"),
    ]
    client = _client(peer)
    limits = [_limited(client, f"{peer.url}/api/v3/a") for _ in range(8)]
    assert {limit.kind for limit in limits} == {"secondary"}
    assert [limit.until - NOW for limit in limits] == [60, 120, 240, 480, 960, 1920, 3600, 3600]
    client.get(f"{peer.url}/api/v3/a")
    assert _limited(client, f"{peer.url}/api/v3/a").until == NOW + 60
    assert _limited(client, f"{peer.url}/api/v3/a").until == NOW + 5
    assert _limited(client, f"{peer.url}/api/v3/a").until == NOW + 240  # the third in a row


def test_a_rate_limit_message_is_read_only_in_the_first_2000_bytes(peer: Peer) -> None:
    peer.replies = [
        Reply(403, {}, b"x" * 1990 + b"rate limit"),
        Reply(403, {}, b"x" * 1991 + b"rate limit"),
    ]
    client = _client(peer)
    assert _limited(client, f"{peer.url}/api/v3/a").kind == "secondary"
    assert _failed(client, f"{peer.url}/api/v3/a").kind == "client_error"


def test_a_forbidden_body_that_is_not_utf8_is_still_read(peer: Peer) -> None:
    peer.replies = [
        Reply(403, {}, b"\xff\xfe Rate limit \xc3"),
        Reply(403, {}, b"\xff\xfe Forbidden \xc3"),
    ]
    client = _client(peer)
    assert _limited(client, f"{peer.url}/api/v3/a").kind == "secondary"
    assert _failed(client, f"{peer.url}/api/v3/a").kind == "client_error"


def test_a_failed_token_request_names_the_post(peer: Peer) -> None:
    peer.replies = [Reply(401, {}, b'{"message": "A JSON web token could not be decoded"}')]
    url = f"{peer.url}/api/v3/app/installations/8/access_tokens"
    with pytest.raises(ApiError) as err:
        _client(peer).post(url, "jwt")
    assert str(err.value) == f"unauthorized: POST {url}: 401"


def test_a_peer_that_never_answers_is_a_network_error_after_the_timeout() -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # connections are accepted by the kernel, never answered
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        client = Client(url, lambda: "t", lambda: NOW, 100, timeout_s=0.2)
        error = _failed(client, f"{url}/runs")
    assert (error.kind, str(error)) == ("network", "network: timed out")
    assert client.requests == {"network": 1}
