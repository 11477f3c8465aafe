"""A `pulumi stack export`'s property values as a plan shows them, and what providers write
into the state's inputs that is no change (`stacks.offline.state.values`).

Every special value below is first checked against Pulumi's published schema of property
values (pulumi/pulumi sdk/go/common/apitype/property-values.json @ v3.259.0), so the reader
is tested on what the engine writes."""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # no stubs

from stacks.offline.state.values import (
    ARCHIVE_SIG,
    ASSET_SIG,
    BYTES_SIG,
    DECRYPTED,
    ENCRYPTED,
    FLOAT_SIG,
    OPAQUE,
    RESOURCE_SIG,
    SECRET_SIG,
    SIG,
    UNKNOWN_VALUE,
    normalize,
    plain,
)
from tests.stacks.offline.state.state_helpers import SCHEMAS

HASH = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def _float(number: float) -> dict[str, str]:
    return {SIG: FLOAT_SIG, "value": struct.pack(">d", number).hex()}


SPECIAL: list[tuple[Any, Any, str | None]] = [
    # (the state's value, as the plan shows it, why it is not compared)
    (UNKNOWN_VALUE, "[unknown]", None),
    ({SIG: SECRET_SIG, "ciphertext": "v1:AAAA"}, "[secret]", ENCRYPTED),
    ({SIG: SECRET_SIG, "plaintext": '"hunter2"'}, "[secret]", DECRYPTED),
    ({SIG: ASSET_SIG, "hash": HASH, "text": "hi"}, "[asset sha256:e3b0c44298fc]", OPAQUE),
    ({SIG: ARCHIVE_SIG, "hash": HASH, "path": "dir"}, "[archive sha256:e3b0c44298fc]", OPAQUE),
    ({SIG: ASSET_SIG, "path": "file.txt"}, "[asset sha256:]", OPAQUE),
    ({SIG: ARCHIVE_SIG, "assets": {}}, "[archive sha256:]", OPAQUE),
    (
        {SIG: RESOURCE_SIG, "urn": "urn:pulumi:s::p::oci:Core/vcn:Vcn::vcn", "id": "ocid1"},
        "urn:pulumi:s::p::oci:Core/vcn:Vcn::vcn",
        None,
    ),
    (_float(math.nan), "NaN", None),
    (_float(math.inf), "+Inf", None),
    (_float(-math.inf), "-Inf", None),
    ({SIG: BYTES_SIG, "value": "aGVsbG8="}, "hello", None),
    ({SIG: BYTES_SIG, "value": "/w=="}, "\\xff", None),  # not UTF-8: escaped, not dropped
    ({SIG: BYTES_SIG, "value": "aGVs\nbG8="}, "hello", None),  # base64 wrapped across lines
]


def _validator(upstream: Path) -> Draft202012Validator:
    schema = json.loads((upstream / SCHEMAS / "property-values.json").read_text())
    return Draft202012Validator(schema)


def test_the_special_values_below_are_what_the_engine_writes(upstream: Path) -> None:
    validator = _validator(upstream)
    for value, _, _ in SPECIAL:
        if value == {SIG: BYTES_SIG, "value": "aGVs\nbG8="}:
            continue  # the schema says only "string"; the wrapped form is valid there too
        assert list(validator.iter_errors(value)) == [], value


SPECIAL_IDS = [
    "unknown",
    "encrypted",
    "decrypted",
    "asset",
    "archive",
    "asset-without-hash",
    "archive-without-hash",
    "resource-reference",
    "nan",
    "plus-inf",
    "minus-inf",
    "bytes",
    "bytes-not-utf8",
    "bytes-wrapped",
]


@pytest.mark.parametrize(("value", "shown", "why"), SPECIAL, ids=SPECIAL_IDS)
def test_a_special_value_as_the_plan_shows_it(value: Any, shown: Any, why: str | None) -> None:
    opaque: dict[str, str] = {}
    assert plain(value, "a.b", opaque) == shown
    assert opaque == ({"a.b": why} if why else {})


def test_nested_values_keep_their_paths() -> None:
    opaque: dict[str, str] = {}
    value = {
        "list": [1, {SIG: SECRET_SIG, "ciphertext": "x"}, [UNKNOWN_VALUE]],
        "map": {"token": {SIG: SECRET_SIG, "plaintext": '"p"'}, "n": None, "flag": False},
        "asset": {SIG: ASSET_SIG, "hash": HASH},
    }
    assert plain(value, "inputs", opaque) == {
        "list": [1, "[secret]", ["[unknown]"]],
        "map": {"token": "[secret]", "n": None, "flag": False},
        "asset": "[asset sha256:e3b0c44298fc]",
    }
    assert opaque == {
        "inputs.list[1]": ENCRYPTED,
        "inputs.map.token": DECRYPTED,
        "inputs.asset": OPAQUE,
    }
    top: dict[str, str] = {}
    plain({"k": {SIG: SECRET_SIG, "ciphertext": "x"}}, "", top)
    assert top == {"k": ENCRYPTED}


def test_an_object_with_an_unknown_signature_is_an_ordinary_object() -> None:
    opaque: dict[str, str] = {}
    value = {SIG: "not-a-signature", "inner": {SIG: SECRET_SIG, "ciphertext": "x"}}
    assert plain(value, "v", opaque) == {SIG: "not-a-signature", "inner": "[secret]"}
    assert opaque == {"v.inner": ENCRYPTED}


@pytest.mark.parametrize(
    ("bits", "shown"),
    [("zz", "[float zz]"), ("00", "[float 00]"), ("", "[float ]"), ("7ff8", "[float 7ff8]")],
)
def test_a_float_that_is_not_16_hex_digits_is_shown_as_given(bits: str, shown: str) -> None:
    assert plain({SIG: FLOAT_SIG, "value": bits}, "x", {}) == shown
    assert plain({SIG: FLOAT_SIG}, "x", {}) == "[float ]"


def test_a_finite_float_under_the_float_signature_is_not_an_infinity() -> None:
    """The engine writes only NaN and the infinities so (property-values.json: "NaN and Inf
    float64 values, which cannot be represented directly in JSON")."""
    assert plain(_float(0.5), "x", {}) == "0.5"
    assert plain(_float(-2.0), "x", {}) == "-2.0"
    assert plain(_float(1e308), "x", {}) == "1e+308"


def test_a_missing_field_of_a_special_value_is_empty() -> None:
    assert plain({SIG: RESOURCE_SIG}, "x", {}) == ""
    assert plain({SIG: BYTES_SIG}, "x", {}) == ""


def test_a_plaintext_secret_is_never_kept() -> None:
    opaque: dict[str, str] = {}
    shown = plain({"a": {SIG: SECRET_SIG, "plaintext": '"hunter2"'}}, "", opaque)
    assert "hunter2" not in json.dumps(shown) + json.dumps(opaque)


# normalize: what providers write into the state's inputs and would write again.


def test_a_provider_resources_internal_map_and_plugin_version_are_no_change() -> None:
    state = {"region": "us-ashburn-1", "version": "3.1.0", "__internal": {"x": 1}}
    assert normalize("pulumi:providers:oci", state, {"region": "us-ashburn-1"}) == {
        "region": "us-ashburn-1"
    }
    assert normalize("pulumi:providers:oci", state, None) == {"region": "us-ashburn-1"}
    # A version the program sets is compared.
    assert normalize("pulumi:providers:oci", state, {"version": "3.2.0"}) == {
        "region": "us-ashburn-1",
        "version": "3.1.0",
    }
    assert state == {"region": "us-ashburn-1", "version": "3.1.0", "__internal": {"x": 1}}
    # Nothing to drop: nothing dropped.
    assert normalize("pulumi:providers:random", {"a": 1}, None) == {"a": 1}
    # Only provider resources: a resource's own `version` input is the program's.
    assert normalize("command:local:Command", state, {}) == state


@pytest.mark.parametrize("type_", ["oci:Core/vcn:Vcn", "random:index/randomId:RandomId"])
def test_a_bridged_providers_defaults_are_no_change(type_: str) -> None:
    state = {
        "__defaults": ["isIpv6enabled", "dnsLabel"],
        "__meta": '{"schema_version": "1"}',
        "isIpv6enabled": False,
        "dnsLabel": "vcn",
        "displayName": "net",
    }
    assert normalize(type_, state, {"displayName": "net"}) == {"displayName": "net"}
    # A default the program now sets is compared.
    assert normalize(type_, state, {"displayName": "net", "dnsLabel": "x"}) == {
        "displayName": "net",
        "dnsLabel": "vcn",
    }
    # Not defaulted (not under __defaults): the program's, kept.
    assert normalize(type_, {"__defaults": [], "isIpv6enabled": True}, {}) == {
        "isIpv6enabled": True
    }
    assert normalize(type_, {"__defaults": "isIpv6enabled", "isIpv6enabled": True}, {}) == {
        "isIpv6enabled": True
    }


def test_defaults_are_dropped_inside_objects_and_lists_where_the_plan_has_them() -> None:
    state = {
        "__defaults": [],
        "rules": [
            {"__defaults": ["stateless"], "stateless": False, "port": 22},
            {"__defaults": ["stateless"], "stateless": False, "port": 80},
            {"__defaults": ["stateless"], "stateless": False, "port": 443},
        ],
        "options": {"__defaults": ["mode"], "mode": "a", "size": 1},
        "other": {"__defaults": ["mode"], "mode": "b"},
    }
    head = {
        "rules": [{"port": 22}, {"port": 80, "stateless": True}],
        "options": {"size": 1},
        "other": "not an object",
    }
    assert normalize("oci:Core/securityList:SecurityList", state, head) == {
        "rules": [{"port": 22}, {"stateless": False, "port": 80}, {"port": 443}],
        "options": {"size": 1},
        "other": {},
    }
    # The plan's value is no list: every item's defaults are dropped all the same.
    assert normalize("oci:X", {"rules": [{"__defaults": ["a"], "a": 1}]}, {"rules": 3}) == {
        "rules": [{}]
    }
    assert normalize("oci:X", {"tags": ["__defaults", 1]}, None) == {"tags": ["__defaults", 1]}


def test_other_packages_keep_the_bridges_keys() -> None:
    state = {"__defaults": ["a"], "a": 1}
    assert normalize("command:local:Command", state, {}) == state
    assert normalize("kubernetes:core/v1:Namespace", state, {}) == state


NAMESPACE = "kubernetes:core/v1:Namespace"


def _autonamed(**annotations: str) -> dict[str, Any]:
    notes = {"pulumi.com/autonamed": "true", **annotations}
    return {"metadata": {"name": "ci-x7k2p", "labels": {"a": "b"}, "annotations": notes}}


def test_a_kubernetes_autoname_is_adopted_when_the_program_names_none() -> None:
    unnamed = {"metadata": {"labels": {"a": "b"}}}
    assert normalize(NAMESPACE, _autonamed(), unnamed) == {"metadata": {"labels": {"a": "b"}}}
    assert normalize(NAMESPACE, _autonamed(), None) == {"metadata": {"labels": {"a": "b"}}}
    # Other annotations stay, the autoname mark goes.
    assert normalize(NAMESPACE, _autonamed(team="ci"), unnamed) == {
        "metadata": {"labels": {"a": "b"}, "annotations": {"team": "ci"}}
    }
    # The program has annotations: an empty map is compared with them.
    with_notes = {"metadata": {"labels": {"a": "b"}, "annotations": {}}}
    assert normalize(NAMESPACE, _autonamed(), with_notes) == with_notes
    state = _autonamed()
    normalize(NAMESPACE, state, unnamed)
    assert state == _autonamed()  # the state is not changed


@pytest.mark.parametrize(
    ("state", "head"),
    [
        (_autonamed(), {"metadata": {"name": "ci"}}),  # the program names it
        ({"metadata": {"name": "ci-x7k2p"}}, {}),  # no annotations
        ({"metadata": {"name": "ci-x7k2p", "annotations": "x"}}, {}),
        ({"metadata": {"name": "n", "annotations": {"pulumi.com/autonamed": "false"}}}, {}),
        ({"metadata": {"name": "n", "annotations": {"other": "true"}}}, {}),
        ({"metadata": "not an object"}, {}),
        ({"spec": {}}, {}),
    ],
)
def test_a_name_that_is_not_an_adoptable_autoname_is_compared(
    state: dict[str, Any], head: dict[str, Any]
) -> None:
    assert normalize(NAMESPACE, state, head) == state


def test_the_plans_metadata_that_is_no_object_names_nothing() -> None:
    assert normalize(NAMESPACE, _autonamed(), {"metadata": "x"}) == {
        "metadata": {"labels": {"a": "b"}}
    }
