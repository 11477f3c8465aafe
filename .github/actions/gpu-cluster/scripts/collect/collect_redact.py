"""Redaction: no secret the collector can know of leaves the host in the bundle.

Two kinds of rule, applied to every line of every file shipped (bytes, so a log in any
encoding is read whole):

* patterns, for secrets of a known shape wherever they come from: PEM blocks (a GitHub
  App's private key, any key or certificate, across lines or `\\n`-escaped in one line),
  a kubeconfig's credential fields (clientcmd's `client-certificate-data`,
  `client-key-data`, `token`, `password`, ...: k8s.io/client-go
  tools/clientcmd/api/v1/types.go, AuthInfo), `Authorization: Bearer`/`Basic` values, and
  GitHub's tokens by their prefixes (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`,
  `github_pat_`: docs.github.com "About authentication to GitHub", GitHub's token formats);
* literals, the values the collector was told are secret: each secret stack output
  (what `pulumi stack output --json` prints as "[secret]" without --show-secrets:
  pulumi/pulumi pkg/cmd/pulumi/stack/stack_output.go, display.MassageSecrets), the
  kubeconfigs it used, the Pulumi passphrase, and files named with --redact-file.

A value is replaced by `[REDACTED]`; what is around it stays, so the line still explains.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

MARK = b"[REDACTED]"
MIN_LITERAL = 8
"""A shorter secret value would redact common words; such values are not secrets here."""

CREDENTIAL_KEYS = (
    "client-certificate-data",
    "client-key-data",
    "certificate-authority-data",
    "client-key",
    "token",
    "id-token",
    "refresh-token",
    "access-token",
    "password",
    "privateKey",
    "private-key",
    "passphrase",
)
_KEYS = "|".join(re.escape(k) for k in CREDENTIAL_KEYS)
PATTERNS: dict[str, re.Pattern[bytes]] = {
    # One PEM block within a line (JSON, a log's escaped string): armour kept, body gone.
    "pem": re.compile(rb"(-----BEGIN ([A-Z0-9 ]+)-----).*?(-----END \2-----)"),
    # `key: value`, `"key": "value"`, `key=value` for a credential key, whole word, and a
    # command line's `--key=value` or `--key value` (kubectl's `--token`, `--password`).
    "credential": re.compile(
        rb"((?<![\w-])(?:--(?:"
        + _KEYS.encode()
        + rb")(?:=|\s+)|[\"']?(?:"
        + _KEYS.encode()
        + rb")[\"']?\s*[:=]\s*[\"']?))([^\s\"',}]+)"
    ),
    "authorization": re.compile(rb"(?i)(\b(?:bearer|basic)\s+)([A-Za-z0-9._~+/=-]{8,})"),
    "github-token": re.compile(rb"\b(gh[pousr]_|github_pat_)[A-Za-z0-9_]{20,}"),
}
_PEM_BEGIN = re.compile(rb"-----BEGIN ([A-Z0-9 ]+)-----")
_KEY_LINE = re.compile(r"^\s*-?\s*([\w.-]+)\s*:\s*(\S+)\s*$")


def secret_literals(value: str) -> set[str]:
    """The strings to redact for one secret value: the value itself, and, for a value of
    several lines (a kubeconfig, a PEM key), its credential fields' values and every line
    that is one long token (a PEM body line), not its structure (`apiVersion: v1`)."""
    found: set[str] = set()
    text = value.strip()
    if "\n" not in text:
        if len(text) >= MIN_LITERAL:
            found.add(text)
        return found
    found.add(text)
    for line in text.splitlines():
        match = _KEY_LINE.match(line)
        if match:
            key, item = match.groups()
            if key in CREDENTIAL_KEYS and len(item.strip("\"'")) >= MIN_LITERAL:
                found.add(item.strip("\"'"))
        elif len(line.strip()) >= 16 and " " not in line.strip():
            found.add(line.strip())
    return found


def secret_values(public: object, shown: object) -> Iterator[str]:
    """Each string in `shown` (`stack output --json --show-secrets`) where `public` (the
    same without --show-secrets) says "[secret]", at any depth."""
    if public == "[secret]":
        yield from _strings(shown)
    elif isinstance(public, dict) and isinstance(shown, dict):
        for key, item in public.items():
            yield from secret_values(item, shown.get(key))
    elif isinstance(public, list) and isinstance(shown, list):
        for one, other in zip(public, shown, strict=False):
            yield from secret_values(one, other)


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


@dataclass
class Redactor:
    """The rules for one bundle; `counts` says how many values each rule replaced."""

    literals: set[bytes] = field(default_factory=set)
    counts: Counter[str] = field(default_factory=Counter)

    def add(self, values: Iterable[str]) -> None:
        for value in values:
            for literal in secret_literals(value):
                self.literals.add(literal.encode())

    def line(self, data: bytes) -> bytes:
        """One line (or one whole short text) with every rule applied."""
        for literal in sorted(self.literals, key=len, reverse=True):
            if literal in data:
                self.counts["stack secrets and kubeconfigs"] += data.count(literal)
                data = data.replace(literal, MARK)
        for name, pattern in PATTERNS.items():
            data, n = pattern.subn(_replacement(name), data)
            self.counts[name] += n
        return data

    def text(self, text: str) -> str:
        lines = text.encode().splitlines(keepends=True)
        return b"".join(self.stream(lines)).decode("utf-8", "replace")

    def stream(self, lines: Iterable[bytes]) -> Iterator[bytes]:
        """Lines of a file, redacted; a PEM block spanning lines is kept as its BEGIN and
        END lines around one MARK line, and one never closed is cut to the end."""
        armour: bytes | None = None
        for raw in lines:
            if armour is not None:
                if armour in raw:
                    yield self.line(raw[raw.index(armour) :])
                    armour = None
                continue
            begin = _PEM_BEGIN.search(raw)
            if begin and b"-----END " + begin.group(1) not in raw[begin.end() :]:
                armour = b"-----END " + begin.group(1) + b"-----"
                self.counts["pem"] += 1
                yield self.line(raw[: begin.end()]) + b"\n" + MARK + b"\n"
                continue
            yield self.line(raw.rstrip(b"\n")) + (b"\n" if raw.endswith(b"\n") else b"")


def _replacement(name: str) -> bytes:
    """What a match becomes: its prefix (the armour, the key, the token's kind) kept."""
    return rb"\1" + MARK + (rb"\3" if name == "pem" else b"")
