"""The exporter's config file as the pod reads it: every key checked again, each fault one
message naming the key, since a ConfigMap can be edited by hand after the program wrote it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from components.observability.queue_exporter.settings import (
    MAX_CONFIG_BYTES,
    Settings,
    SettingsError,
    load,
    parse,
)

BASE: dict[str, Any] = {
    "apiUrl": "https://ghe.example.com/api/v3/",
    "repositories": ["octo-org/trainer", "o/r.x_y-z"],
    "labels": ["gpu-a10", "GPU.h100_x"],
    "intervalSeconds": 60,
    "buckets": [0.5, 10, 7200],
    "rateLimitReserve": 1000,
    "port": 9102,
    "stateFile": "/state/seen.json",
    "appIdFile": "/app/github_app_id",
    "installationIdFile": "/app/github_app_installation_id",
    "privateKeyFile": "/app/github_app_private_key",
}


def _refused(**changes: Any) -> str:
    with pytest.raises(SettingsError) as err:
        parse({**BASE, **changes}, "config.json")
    return str(err.value)


def test_the_file_the_program_writes_is_the_settings() -> None:
    assert parse(BASE, "config.json") == Settings(
        api_url="https://ghe.example.com/api/v3",  # no trailing slash: paths are appended
        repositories=("octo-org/trainer", "o/r.x_y-z"),
        labels=("gpu-a10", "GPU.h100_x"),
        interval_s=60.0,
        buckets=(0.5, 10.0, 7200.0),
        rate_limit_reserve=1000,
        port=9102,
        state_file="/state/seen.json",
        app_id_file="/app/github_app_id",
        installation_id_file="/app/github_app_installation_id",
        private_key_file="/app/github_app_private_key",
        max_body_bytes=8 << 20,
        max_pages=10,
    )


def test_the_edges_of_each_range_are_accepted() -> None:
    for changes in (
        {"intervalSeconds": 10, "rateLimitReserve": 0, "port": 1, "repositories": []},
        {"intervalSeconds": 3600.0, "rateLimitReserve": 100_000, "port": 65535},
        {"apiUrl": "http://[::1]:8080", "buckets": [1e-3]},
    ):
        parse({**BASE, **changes}, "config.json")
    assert parse({**BASE, "apiUrl": "http://127.0.0.1:1"}, "c").api_url == "http://127.0.0.1:1"
    # Upper case anywhere; only trailing slashes go.
    upper = "https://GHE.Example.COM/API/X"
    assert parse({**BASE, "apiUrl": upper + "//"}, "c").api_url == upper
    assert parse({**BASE, "intervalSeconds": 12.5}, "c").interval_s == 12.5


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"intervalSeconds": 9.99}, "`intervalSeconds` must be 10 to 3600, not 9.99"),
        ({"intervalSeconds": 3600.5}, "`intervalSeconds` must be 10 to 3600, not 3600.5"),
        ({"intervalSeconds": True}, "`intervalSeconds` must be a float, not True"),
        ({"intervalSeconds": "60"}, "`intervalSeconds` must be a float, not '60'"),
        ({"port": 9102.0}, "`port` must be a int, not 9102.0"),
        ({"port": True}, "`port` must be a int, not True"),
        ({"port": 0}, "`rateLimitReserve` or `port` is out of range"),
        ({"port": 65536}, "`rateLimitReserve` or `port` is out of range"),
        ({"rateLimitReserve": -1}, "`rateLimitReserve` or `port` is out of range"),
        ({"rateLimitReserve": 100_001}, "`rateLimitReserve` or `port` is out of range"),
        ({"labels": []}, "`labels` is empty: name the runner labels GPU jobs use"),
        ({"labels": "gpu-a10"}, "`labels` must be a list, not 'gpu-a10'"),
        (
            {"labels": ["gpu-a10", 7, "-x", "gpu a10"]},
            "`labels` has entries that are not [A-Za-z0-9][A-Za-z0-9._-]{0,99}: [7, '-x', "
            "'gpu a10']",
        ),
        ({"labels": ["a", "b", "a"]}, "`labels` lists an entry twice"),
        ({"repositories": ["o/r", "o/r"]}, "`repositories` lists an entry twice"),
        (
            {"repositories": ["o/r\n"]},
            "`repositories` has entries that are not "
            "[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}: ['o/r\\n']",
        ),
        ({"buckets": []}, "`buckets` must be a non-empty list of numbers"),
        ({"buckets": [1, True]}, "`buckets` must be a non-empty list of numbers"),
        ({"buckets": [1, "2"]}, "`buckets` must be a non-empty list of numbers"),
        ({"buckets": [1, 1, 2]}, "`buckets` must be positive and strictly increasing"),
        ({"buckets": [2, 1]}, "`buckets` must be positive and strictly increasing"),
        ({"buckets": [0, 1]}, "`buckets` must be positive and strictly increasing"),
        ({"buckets": [-1, 1]}, "`buckets` must be positive and strictly increasing"),
        ({"apiUrl": "ftp://h"}, "`apiUrl` 'ftp://h' is not an http(s) URL"),
        ({"apiUrl": "https://h/a b"}, "`apiUrl` 'https://h/a b' is not an http(s) URL"),
        ({"apiUrl": "https://h?x=1"}, "`apiUrl` 'https://h?x=1' is not an http(s) URL"),
        ({"stateFile": None}, "`stateFile` must be a str, not None"),
        ({"extra": 1, "another": 2}, "unknown keys ['another', 'extra']"),
    ],
    ids=lambda v: "-".join(v) if isinstance(v, dict) else "",
)
def test_each_wrong_key_is_one_message_naming_it(changes: dict[str, Any], message: str) -> None:
    assert _refused(**changes) == f"config.json: {message}"


@pytest.mark.parametrize(
    "key",
    [
        "apiUrl",
        "repositories",
        "labels",
        "intervalSeconds",
        "buckets",
        "rateLimitReserve",
        "port",
        "stateFile",
        "appIdFile",
        "installationIdFile",
        "privateKeyFile",
    ],
)
def test_each_missing_key_is_named(key: str) -> None:
    with pytest.raises(SettingsError) as err:
        parse({k: v for k, v in BASE.items() if k != key}, "config.json")
    assert str(err.value) == f"config.json: `{key}` is missing"


def test_not_an_object_is_refused() -> None:
    with pytest.raises(SettingsError) as err:
        parse([BASE], "/etc/queue-exporter/config.json")
    assert str(err.value) == "/etc/queue-exporter/config.json: not a JSON object"


def test_the_file_is_read_and_checked(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(BASE))
    assert load(str(path)) == parse(BASE, str(path))
    path.write_text(json.dumps({**BASE, "port": 0}))
    with pytest.raises(SettingsError) as err:
        load(str(path))
    assert str(err.value) == f"{path}: `rateLimitReserve` or `port` is out of range"


def test_a_file_that_cannot_be_read_or_parsed_is_one_message(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    with pytest.raises(SettingsError) as err:
        load(str(path))
    assert str(err.value) == f"{path}: cannot be read (No such file or directory)"
    path.write_text("{not json")
    with pytest.raises(SettingsError) as err:
        load(str(path))
    assert str(err.value) == (
        f"{path}: not JSON (Expecting property name enclosed in double quotes: line 1 column 2 "
        "(char 1))"
    )


def test_a_file_over_the_bound_is_not_parsed(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    text = json.dumps(BASE)
    path.write_text(text + " " * (MAX_CONFIG_BYTES - len(text)))
    assert load(str(path)).port == 9102  # exactly the bound: read
    path.write_text(text + " " * (MAX_CONFIG_BYTES - len(text) + 1))
    with pytest.raises(SettingsError) as err:
        load(str(path))
    assert str(err.value) == f"{path}: larger than 1048576 bytes"
