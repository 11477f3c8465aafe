"""What `schema.from_schema` reads from a chart's `values.schema.json`, keyword by
keyword. The one real schema among the pinned charts is node-feature-discovery 0.19.0's
(the subchart gpu-operator v26.7.0 ships: /work/shared/upstream/helm-charts/
gpu-operator-v26.7.0/charts/node-feature-discovery/values.schema.json; none of the other
charts there ships one): closed `properties`, local `$ref` into `$defs`, `items`, a `type`
list, an object without properties. The keywords it does not use with properties
(`additionalProperties`, `patternProperties`, `allOf`/`anyOf`/`oneOf` contributing keys)
and the bounds (a `$ref` chain, nesting) each get a focused synthetic case."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from components.platform.chart_values.lookup import ChartValues
from components.platform.chart_values.paths import Segment, render
from components.platform.chart_values.schema import from_schema

NFD_SCHEMA = Path(
    "helm-charts/gpu-operator-v26.7.0/charts/node-feature-discovery/values.schema.json"
)
NFD = "the node-feature-discovery chart (0.19.0)"


@pytest.fixture
def nfd(upstream: Path) -> ChartValues:
    """Read again for each test: mutmut runs a mutant against the tests that called it."""
    document = json.loads((upstream / NFD_SCHEMA).read_text(encoding="utf-8"))
    return ChartValues("node-feature-discovery", "0.19.0", from_schema(document, document))


def test_properties_close_an_object(nfd: ChartValues) -> None:
    assert nfd.miss(["master", "replicaCount"]) is None
    assert nfd.miss(["master", "replicaCountt"]) == (
        f"{NFD} has no value 'master.replicaCountt' (did you mean 'master.replicaCount'?); "
        "keys under 'master': affinity, annotations, config, denyLabelNs, "
        "deploymentAnnotations, dnsPolicy, enable, enableTaints, extraArgs, extraEnvs, "
        "extraLabelNs, hostNetwork, hostUsers, initContainers, instance, ... (18 more)"
    )
    assert nfd.miss(["mastr"]) == (
        f"{NFD} has no value 'mastr' (did you mean 'master'?); top-level keys: "
        "checksumValuesOnly, featureGates, fullnameOverride, gc, global, image, "
        "imagePullSecrets, master, nameOverride, namespaceOverride, postDeleteCleanup, "
        "priorityClassName, prometheus, topologyUpdater, worker"
    )


def test_a_ref_into_defs_is_followed(nfd: ChartValues) -> None:
    """`master.affinity` is `$ref: #/$defs/_definitions.json/definitions/...Affinity`."""
    deep: list[Segment] = ["master", "affinity", "nodeAffinity"]
    deep += ["requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms", 0]
    assert nfd.miss([*deep, "matchExpressions"]) is None
    assert nfd.miss(["master", "affinity", "nodeAfinity"]) == (
        f"{NFD} has no value 'master.affinity.nodeAfinity' (did you mean "
        "'master.affinity.nodeAffinity'?); keys under 'master.affinity': nodeAffinity, "
        "podAffinity, podAntiAffinity"
    )
    assert nfd.miss(["master", "resources", "limits", "cpu"]) is None  # additionalProperties


def test_items_describe_a_lists_items(nfd: ChartValues) -> None:
    assert nfd.miss(["master", "tolerations", 0, "effect"]) is None
    assert nfd.miss(["master", "tolerations", 0, "x"]) == (
        f"{NFD} has no value 'master.tolerations[0].x'; keys under 'master.tolerations[0]': "
        "effect, key, operator, tolerationSeconds, value"
    )
    assert nfd.miss(["worker", "ownerRefs", 0, "x"]) == (
        f"'worker.ownerRefs[0]' is a string in {NFD}, so nothing can be set under it"
    )
    assert nfd.miss(["master", "extraLabelNs", "a"]) == (
        f"'master.extraLabelNs' is a list in {NFD}, not a map [given: 'master.extraLabelNs.a']"
    )


def test_a_type_list_is_a_scalar_unless_it_allows_an_object(nfd: ChartValues) -> None:
    assert nfd.miss(["master", "revisionHistoryLimit", "x"]) == (
        f"'master.revisionHistoryLimit' is a integer/null in {NFD}, so nothing can be set under it"
    )
    assert nfd.miss(["master", "config", "core", "sources"]) is None  # ["object", "null"]


def test_an_object_without_properties_is_free_form(nfd: ChartValues) -> None:
    assert nfd.miss(["featureGates", "NodeFeatureAPI"]) is None  # patternProperties only
    assert nfd.miss(["master", "annotations", "example.com/x"]) is None


def _chart(schema: dict[str, Any]) -> ChartValues:
    return ChartValues("svc", "1.0.0", from_schema(schema, schema))


def _with(**keywords: Any) -> ChartValues:
    return _chart({"type": "object", "properties": {"name": {"type": "string"}}, **keywords})


def test_additional_or_pattern_properties_open_an_object_with_properties() -> None:
    closed = "the svc chart (1.0.0) has no value 'other'; top-level keys: name"
    assert _with().miss(["other"]) == closed
    assert _with(additionalProperties=False).miss(["other"]) == closed
    assert _with(additionalProperties=True).miss(["other"]) is None
    assert _with(additionalProperties={"type": "string"}).miss(["other"]) is None
    assert _with(patternProperties={"^x-": {}}).miss(["other"]) is None
    # closed, but a key may still match a pattern: read as open (Helm validates the pattern)
    assert _with(additionalProperties=False, patternProperties={"^x-": {}}).miss(["x-a"]) is None


@pytest.mark.parametrize("combined", ["allOf", "anyOf", "oneOf"])
def test_combined_schemas_contribute_their_properties(combined: str) -> None:
    parts = [
        {"properties": {"port": {"type": "integer"}}},
        {"$ref": "#/definitions/tls"},
    ]
    chart = _with(**{combined: parts}, definitions={"tls": {"properties": {"tls": {}}}})
    assert [chart.miss([k]) for k in ("name", "port", "tls")] == [None, None, None]
    assert chart.miss(["prot"]) == (
        "the svc chart (1.0.0) has no value 'prot' (did you mean 'port'?); top-level keys: "
        "name, port, tls"
    )


def _ref_chain(hops: int) -> dict[str, Any]:
    """`value` reached through `hops` local `$ref`s, the last one an object with `port`."""
    definitions: dict[str, Any] = {
        f"r{i}": {"$ref": f"#/definitions/r{i + 1}"} for i in range(hops)
    }
    definitions[f"r{hops}"] = {"type": "object", "properties": {"port": {"type": "integer"}}}
    value = {"$ref": "#/definitions/r1"} if hops else definitions["r0"]
    return {"type": "object", "properties": {"value": value}, "definitions": definitions}


def test_a_ref_chain_is_followed_16_hops_and_then_left_free_form() -> None:
    assert _chart(_ref_chain(16)).miss(["value", "prot"]) == (
        "the svc chart (1.0.0) has no value 'value.prot' (did you mean 'value.port'?); keys "
        "under 'value': port"
    )
    assert _chart(_ref_chain(17)).miss(["value", "prot"]) is None
    # a remote reference, or one to nothing, is free-form: nothing to check against
    assert _chart({"properties": {"v": {"$ref": "other.json#/x"}}}).miss(["v", "a"]) is None
    assert _chart({"properties": {"v": {"$ref": "#/definitions/none"}}}).miss(["v", "a"]) is None


def test_nesting_is_read_32_levels_deep() -> None:
    """A schema that nests without end (a recursive `$ref`) ends 33 levels down."""
    schema = {"$ref": "#/definitions/node", "definitions": {}}
    schema["definitions"] = {
        "node": {"type": "object", "properties": {"k": {"$ref": "#/definitions/node"}}}
    }
    chart = _chart(schema)
    assert chart.miss(["k"] * 32 + ["zz"]) == (
        f"the svc chart (1.0.0) has no value '{'.'.join(['k'] * 32)}.zz'; keys under "
        f"'{'.'.join(['k'] * 32)}': k"
    )
    assert chart.miss(["k"] * 33 + ["zz"]) is None


def test_nesting_through_list_items_counts_each_level() -> None:
    """An object whose `l` is a list of such objects: each key and each index a level."""
    schema = {"$ref": "#/definitions/node", "definitions": {}}
    items = {"type": "array", "items": {"$ref": "#/definitions/node"}}
    schema["definitions"] = {"node": {"type": "object", "properties": {"l": items}}}
    chart = _chart(schema)
    pairs: list[Segment] = ["l", 0] * 16
    assert chart.miss([*pairs, "zz"]) == (
        f"the svc chart (1.0.0) has no value '{render(pairs)}.zz'; keys under '{render(pairs)}': l"
    )
    assert chart.miss([*pairs, "l", 0, "zz"]) is None  # the list 33 levels down: free-form


SEVEN = "http://json-schema.org/draft-07/schema#"


@pytest.mark.parametrize(("draft", "known"), [(None, None), (SEVEN, "v.extra")])
def test_an_alternatives_ref_replaces_its_siblings_only_under_draft_07(
    draft: str | None, known: str | None
) -> None:
    """As test_schema_helm.py shows Helm reading a `$ref` beside other keywords."""
    alternative = {"$ref": "#/definitions/tls", "properties": {"extra": {}}}
    schema: dict[str, Any] = {
        "properties": {"v": {"anyOf": [alternative]}},
        "definitions": {"tls": {"properties": {"tls": {}}}},
    }
    if draft:
        schema["$schema"] = draft
    miss = _chart(schema).miss(["v", "extra"])
    assert miss == (known and "the svc chart (1.0.0) has no value 'v.extra'; keys under 'v': tls")


def test_types_beside_a_ref_are_the_types_both_allow() -> None:
    schema = {
        "properties": {"n": {"$ref": "#/definitions/n", "type": ["integer", "null"]}},
        "definitions": {"n": {"type": ["string", "integer"]}},
    }
    assert _chart(schema).miss(["n", "x"]) == (
        "'n' is a integer in the svc chart (1.0.0), so nothing can be set under it"
    )


@pytest.mark.parametrize("document", [True, [], "x"])
def test_a_schema_document_that_is_no_object_is_free_form(document: Any) -> None:
    assert ChartValues("svc", "1.0.0", from_schema(document, document)).miss(["a", "b"]) is None


def test_a_ref_to_the_whole_document_is_followed_and_an_anchor_is_not() -> None:
    schema = {"type": "object", "properties": {"self": {"$ref": "#"}, "a": {"$ref": "#a"}}}
    assert _chart(schema).miss(["self", "self", "x"]) == (
        "the svc chart (1.0.0) has no value 'self.self.x'; keys under 'self.self': a, self"
    )
    assert _chart(schema).miss(["a", "x"]) is None  # an `$anchor`: not followed, free-form
