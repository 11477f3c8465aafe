"""Reading and refusing the namespace, exactly: the one error's text, JSON values, legacy
keys, a stack with no layer, credentials wherever they sit and the recipe's problems
(mutation-testing survivors of stacks/config/loader.py)."""

from __future__ import annotations

from typing import Any, Literal, get_origin

import pytest
from pydantic import SecretStr

from stacks.config import ConfigError, StackConfig, load_config, raw_from_flat
from stacks.config.loader import RawConfig, _credentials_given, _set_from
from stacks.config.problems import Problem, _unwrap
from tests.components.arc.arc_helpers import arc_stack, gpu_pod, launcher

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
    assert raw == RawConfig(
        {"host": {}}, frozenset({"gpu-ci:host", "gpu-ci:vm"}), frozenset({"other:config:host"})
    )


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


# -- credentials found wherever the config holds them ------------------------------------------
def plain_text(values: dict[str, Any], secret: frozenset[str] = frozenset()) -> list[str]:
    return [p for p in problems(values, secret) if "is a credential in plain text" in p]


def test_every_scale_sets_credentials_are_named_in_plain_text() -> None:
    values = arc_stack(launcher("a"), launcher("b"))["gpu-ci:arc"]
    oci = ("fingerprint", "privateKey", "region", "tenancy", "user")
    assert [p.split(": ")[0] for p in plain_text({"capacity": "arc", "arc": values})] == [
        "gpu-ci:arc.cluster.kubeconfig",
        "gpu-ci:arc.githubApp.privateKey",
        *(f"gpu-ci:arc.scaleSets[{i}].ociCredentials.{key}" for i in (0, 1) for key in oci),
    ]
    assert (
        "gpu-ci:arc.scaleSets[1].ociCredentials.privateKey: is a credential in plain text: set "
        "it with `pulumi config set --secret --path "
        "gpu-ci:arc.scaleSets[1].ociCredentials.privateKey < oci_api_key.pem`"
    ) in plain_text({"capacity": "arc", "arc": values})


def test_a_key_before_the_credential_does_not_hide_it() -> None:
    host = {"target": "ssh", "address": "h", "user": "ci", "privateKey": "x"}
    assert [p.split(": ")[0] for p in plain_text({"extra": 1, "host": host})] == [
        "gpu-ci:host.privateKey"
    ]
    arc = arc_stack(gpu_pod())["gpu-ci:arc"]
    found = plain_text({"capacity": "arc", "arc": arc, "host": host}, frozenset({"gpu-ci:arc"}))
    assert [p.split(": ")[0] for p in found] == ["gpu-ci:host.privateKey"]


def test_a_credential_left_unset_is_not_plain_text() -> None:
    host = {"target": "ssh", "address": "h", "user": "ci", "privateKey": None}
    config = load_config(RawConfig({"host": host}), "s")  # no key: the agent's keys are used
    assert config.host is not None and config.host.target == "ssh"


def test_a_list_where_a_credential_model_belongs_is_only_a_type_problem() -> None:
    arc = {**arc_stack(gpu_pod())["gpu-ci:arc"], "githubApp": ["x"], "cluster": "text"}
    found = problems({"capacity": "arc", "arc": arc})
    assert [p.split(": ")[0] for p in found] == ["gpu-ci:arc.cluster", "gpu-ci:arc.githubApp"]


def test_credentials_are_followed_through_lists_and_dicts() -> None:
    """No key of today's config is a list or dict of credentials themselves; the walk
    handles them, so a new one is refused in plain text too."""
    assert _credentials_given(list[SecretStr], ["a", "b"], "k") == [("k[0]", None), ("k[1]", None)]
    assert _credentials_given(dict[str, SecretStr], {"a": "x", "b": "y"}, "k") == [
        ("k.a", None),
        ("k.b", None),
    ]
    assert _credentials_given(list[SecretStr] | None, None, "k") == []
    for text in ("abc", ""):  # a container given as text: a type problem, no credential
        assert _credentials_given(list[SecretStr], text, "k") == []
        assert _credentials_given(dict[str, SecretStr], text, "k") == []
    assert _credentials_given(dict[str, int], {"a": 1}, "k") == []
    # a union with a member that is no class (a Literal) is walked past that member
    assert _credentials_given(Literal["agent"] | list[SecretStr], ["a"], "k") == [("k[0]", None)]
    assert _set_from(None) == "VALUE"


def test_a_secret_key_that_holds_no_credential_is_refused_with_the_plain_command() -> None:
    found = problems({"host": {"target": "local"}, "owner": "me"}, frozenset({"gpu-ci:owner"}))
    assert found == [
        "gpu-ci:owner: is stored as a secret, but it holds no credential and is used in plain "
        "text (names, tags, rules); store it in plain config with "
        "`pulumi config set gpu-ci:owner VALUE`"
    ]


def test_a_secret_key_is_judged_by_its_whole_name() -> None:
    """`gpu-ci:x:owner` is the unknown key `x:owner`, not the key `owner`."""
    found = problems({"host": {"target": "local"}, "x:owner": "me"}, frozenset({"gpu-ci:x:owner"}))
    assert [p.split(": ")[0] for p in found] == ["gpu-ci:x:owner"]
    assert "unknown key" in found[0]


def test_values_that_are_not_text_are_kept() -> None:
    raw = raw_from_flat({"gpu-ci:a": 5, "gpu-ci:b": True, "gpu-ci:c": None, "gpu-ci:d": [1]}, set())
    assert raw.values == {"a": 5, "b": True, "c": None, "d": [1]}


def test_no_top_level_key_is_a_list() -> None:
    """load_config drops the problems under a refused secret key by the name before the
    first '.' of their keys, which holds while no top-level key takes an index."""
    indexed = (list, tuple, set, frozenset)
    for name, field in StackConfig.model_fields.items():
        for member in _unwrap(field.annotation):
            assert member not in indexed and get_origin(member) not in indexed, name


# -- the recipe's problems, with the config's ---------------------------------------------------
def test_what_the_recipe_refuses_comes_with_the_configs_problems() -> None:
    values = {
        "host": {"target": "local"},
        "cluster": {"name": "BAD NAME"},
        "platform": {"accelerator": "a10", "set": ["nosuch:x=1"]},
    }
    assert problems(values) == [
        "gpu-ci:cluster.name: name 'BAD NAME' is not a kind cluster name: use up to 49 of "
        "[a-z0-9.-], starting and ending alphanumeric (node names append -control-plane) "
        "[given: 'BAD NAME']",
        "gpu-ci:platform.set[0]: platform override 'nosuch': component is not in the recipe "
        "kind-a10/kind-a10-training-kubeflow; components: gpu-operator, gpu-time-slicing, "
        "kubeflow-trainer",
    ]
    del values["platform"]
    assert len(problems(values)) == 1
