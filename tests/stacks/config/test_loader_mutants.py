"""Reading and refusing the namespace, exactly: the one error's text, JSON values, legacy
keys and a stack with no layer (mutation-testing survivors of stacks/config/loader.py)."""

from __future__ import annotations

from typing import Any

import pytest

from stacks.config import ConfigError, load_config, raw_from_flat
from stacks.config.loader import RawConfig
from stacks.config.problems import Problem

NOTHING = (
    "so this stack would create nothing, and `pulumi up` on a deployed stack would delete "
    "every resource; set gpu-ci:capacity ('vm' or 'arc'), gpu-ci:host or gpu-ci:platform "
    "(Pulumi.workstation.yaml is the smallest stack)"
)
NO_LAYER = (
    "gpu-ci: no layer is set (gpu-ci:capacity is 'none', and there is no gpu-ci:host or "
    f"gpu-ci:platform), {NOTHING}"
)
FIX = "Fix each key in Pulumi.s.yaml (or with `pulumi config set --path`) and run again."


def problems(values: dict[str, Any], secret: frozenset[str] = frozenset()) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_config(RawConfig(values, secret), "s")
    return [str(p) for p in caught.value.problems]


def test_one_problem_is_counted_and_indented_under_its_key() -> None:
    error = ConfigError("s", [Problem("gpu-ci:a", "first\nsecond")])
    assert str(error) == (
        "stack 's': invalid gpu-ci config (1 problem):\n"
        "  - gpu-ci:a: first\n"
        "    second\n"
        f"Nothing was created. {FIX}"
    )


def test_a_late_error_says_resources_may_exist() -> None:
    found = [Problem("gpu-ci:a", "x"), Problem("gpu-ci:b", "y")]
    error = ConfigError("s", found, late=True)
    assert error.problems == found
    assert str(error) == (
        "stack 's': invalid gpu-ci config (2 problems):\n"
        "  - gpu-ci:a: x\n"
        "  - gpu-ci:b: y\n"
        f"Resources registered before this was found may exist. {FIX}"
    )


def test_json_text_is_parsed_and_anything_else_kept() -> None:
    raw = raw_from_flat(
        {"gpu-ci:a": "[1, 2]", "gpu-ci:b": '{"c": 1}', "gpu-ci:d": "[1", "gpu-ci:e": "x{"},
        set(),
    )
    assert raw.values == {"a": [1, 2], "b": {"c": 1}, "d": "[1", "e": "x{"}


def test_only_this_namespace_and_named_keys_are_read() -> None:
    raw = raw_from_flat(
        {"gpu-ci:config:host": "{}", "gpu-ci:": "x", "gpu-ci": "y", "other:config:host": "z"},
        {"gpu-ci:config:host", "gpu-ci:vm", "other:vm"},
    )
    assert raw == RawConfig({"host": {}}, frozenset({"gpu-ci:host", "gpu-ci:vm"}))


def test_no_key_at_all_creates_nothing() -> None:
    assert problems({}) == [f"gpu-ci: no gpu-ci:* key is set, {NOTHING}"]


@pytest.mark.parametrize(
    "values", [{"capacity": "none"}, {"usage": {}}, {"capacity": "none", "owner": "me"}]
)
def test_keys_that_ask_for_no_resources_are_no_layer(values: dict[str, Any]) -> None:
    assert problems(values) == [NO_LAYER]


@pytest.mark.parametrize("key", ["vm", "arc", "host", "runner", "cluster", "platform"])
def test_any_layer_key_is_a_layer(key: str) -> None:
    assert NO_LAYER not in problems({"capacity": "none", key: "not a model"})


def test_a_capacity_other_than_none_is_a_layer() -> None:
    assert NO_LAYER not in problems({"capacity": "vms"})


def test_plain_credentials_name_the_command_that_stores_them() -> None:
    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAtest\n-----END RSA PRIVATE KEY-----\n"
    host = {"target": "ssh", "address": "h", "user": "ci", "privateKey": "x"}
    app = {"appId": 1, "installationId": 2, "privateKey": pem}
    values = {"host": host, "runner": {"url": "https://github.com/o", "githubApp": app}}
    found = [p for p in problems(values) if "plain text" in p]
    assert found == [
        "gpu-ci:host.privateKey: is a credential in plain text: set it with `pulumi config "
        "set --secret --path gpu-ci:host.privateKey < ~/.ssh/id_ed25519`",
        "gpu-ci:runner.githubApp.privateKey: is a credential in plain text: set it with "
        "`pulumi config set --secret --path gpu-ci:runner.githubApp.privateKey < key.pem`",
    ]
    stored = problems(values, frozenset({"gpu-ci:host", "gpu-ci:runner"}))
    assert not [p for p in stored if "plain text" in p]
