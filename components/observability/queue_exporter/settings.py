"""The exporter's config file: JSON the program writes into the ConfigMap (queue_deploy.py).

Checked here again, field by field, because the pod cannot trust a hand-edited ConfigMap:
a wrong file is one message (`SettingsError`), and the process keeps serving its health
metrics instead of exiting into a crash loop (__main__.py).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

REPOSITORY = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}")
"""`owner/name` as GitHub spells them (an owner is at most 39 characters)."""
LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
MAX_CONFIG_BYTES = 1 << 20
_FILES = ("stateFile", "appIdFile", "installationIdFile", "privateKeyFile")
KEYS = (
    "apiUrl",
    "repositories",
    "labels",
    "intervalSeconds",
    "buckets",
    "rateLimitReserve",
    "port",
    *_FILES,
)
"""The file's keys (queue_deploy.py writes exactly these)."""


class SettingsError(Exception):
    """The config file is wrong: the message names the key and the fix."""


@dataclass(frozen=True)
class Settings:
    api_url: str
    repositories: tuple[str, ...]
    """Empty: every repository the App's installation can access."""
    labels: tuple[str, ...]
    interval_s: float
    buckets: tuple[float, ...]
    rate_limit_reserve: int
    port: int
    state_file: str
    app_id_file: str
    installation_id_file: str
    private_key_file: str
    max_body_bytes: int = 8 << 20
    max_pages: int = 10
    """At 100 items a page: 1,000, the most GitHub's filtered run lists return."""


def _get(raw: dict[str, object], key: str, kind: type, where: str) -> object:
    if key not in raw:
        raise SettingsError(f"{where}: `{key}` is missing")
    value = raw[key]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise SettingsError(f"{where}: `{key}` must be a {kind.__name__}, not {value!r}")
    return value


def _strings(
    raw: dict[str, object], key: str, pattern: re.Pattern[str], where: str
) -> tuple[str, ...]:
    items = _get(raw, key, list, where)
    assert isinstance(items, list)
    bad = [v for v in items if not isinstance(v, str) or not pattern.fullmatch(v)]
    if bad:
        raise SettingsError(f"{where}: `{key}` has entries that are not {pattern.pattern}: {bad!r}")
    if len(set(items)) != len(items):
        raise SettingsError(f"{where}: `{key}` lists an entry twice")
    return tuple(items)


def parse(raw: object, where: str) -> Settings:
    """The settings in `raw` (the file's JSON), or SettingsError naming what is wrong."""
    if not isinstance(raw, dict):
        raise SettingsError(f"{where}: not a JSON object")
    unknown = sorted(set(raw) - set(KEYS))
    if unknown:
        raise SettingsError(f"{where}: unknown keys {unknown}")
    labels = _strings(raw, "labels", LABEL, where)
    if not labels:
        raise SettingsError(f"{where}: `labels` is empty: name the runner labels GPU jobs use")
    interval = _get(raw, "intervalSeconds", float, where)
    assert isinstance(interval, float)
    if not 10 <= interval <= 3600:
        raise SettingsError(f"{where}: `intervalSeconds` must be 10 to 3600, not {interval}")
    buckets = _get(raw, "buckets", list, where)
    assert isinstance(buckets, list)
    if not buckets or any(not isinstance(b, int | float) or isinstance(b, bool) for b in buckets):
        raise SettingsError(f"{where}: `buckets` must be a non-empty list of numbers")
    if sorted(set(buckets)) != buckets or buckets[0] <= 0:
        raise SettingsError(f"{where}: `buckets` must be positive and strictly increasing")
    api = _get(raw, "apiUrl", str, where)
    assert isinstance(api, str)
    if not re.fullmatch(r"https?://[A-Za-z0-9.:\[\]-]+(/[A-Za-z0-9._/-]*)?", api):
        raise SettingsError(f"{where}: `apiUrl` {api!r} is not an http(s) URL")
    reserve = _get(raw, "rateLimitReserve", int, where)
    port = _get(raw, "port", int, where)
    assert isinstance(reserve, int) and isinstance(port, int)
    if not 0 <= reserve <= 100_000 or not 1 <= port <= 65535:
        raise SettingsError(f"{where}: `rateLimitReserve` or `port` is out of range")
    files = {k: _get(raw, k, str, where) for k in _FILES}
    return Settings(
        api_url=api.rstrip("/"),
        repositories=_strings(raw, "repositories", REPOSITORY, where),
        labels=labels,
        interval_s=interval,
        buckets=tuple(float(b) for b in buckets),
        rate_limit_reserve=reserve,
        port=port,
        state_file=str(files["stateFile"]),
        app_id_file=str(files["appIdFile"]),
        installation_id_file=str(files["installationIdFile"]),
        private_key_file=str(files["privateKeyFile"]),
    )


def load(path: str) -> Settings:
    """Read and check the config file at `path`."""
    try:
        with Path(path).open("rb") as handle:
            data = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as err:
        raise SettingsError(f"{path}: cannot be read ({err.strerror})") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise SettingsError(f"{path}: larger than {MAX_CONFIG_BYTES} bytes")
    try:
        raw = json.loads(data)
    except ValueError as err:
        raise SettingsError(f"{path}: not JSON ({err})") from None
    return parse(raw, path)
