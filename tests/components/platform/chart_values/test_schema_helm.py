"""The keys `chart_values/schema.py` reads from a schema whose `$ref` has keywords beside it,
against what the pinned Helm (v3.20.2, santhosh-tekuri/jsonschema v6.0.2) accepts with `--set` on a
scratch chart carrying that schema: from draft 2019-09 on (and without a `$schema`, read as
2020-12) the keywords beside a `$ref` apply with it; under draft-04, -06 and -07 the `$ref`
replaces them. Every object here closes with `additionalProperties: false`, so Helm refuses
each key the schemas do not list, as `chart_values/schema.py` does."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from components.platform.chart_values.lookup import ChartValues
from components.platform.chart_values.paths import Segment, render
from components.platform.chart_values.schema import from_schema
from tests.upstream_tools import run_tool

NFD = Path("helm-charts/gpu-operator-v26.7.0/charts/node-feature-discovery")


def _closed(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "additionalProperties": False}


# `pdb`: closed beside its `$ref` (enable, min) and where it points (min, max); `limits`: an
# `allOf` beside it; `tags`: a list whose items only the keyword beside the `$ref` describes;
# `port`: an integer only beside it; `escaped`: a JSON pointer with `~1` (`/`) and `~0` (`~`).
SCHEMA: dict[str, Any] = _closed(
    pdb={"$ref": "#/definitions/spec", **_closed(enable={}, min={})},
    limits={"$ref": "#/definitions/spec", "allOf": [_closed(min={})]},
    tags={"$ref": "#/definitions/list", "items": _closed(name={})},
    port={"$ref": "#/definitions/any", "type": "integer"},
    escaped={"$ref": "#/definitions/a~1b~0c"},
)
SCHEMA["definitions"] = {
    "spec": _closed(min={}, max={}),
    "list": {"type": "array"},
    "any": {},
    "a/b~c": _closed(x={}),
}
PATHS: list[tuple[Segment, ...]] = [
    ("pdb", "min"),
    ("pdb", "max"),
    ("pdb", "enable"),
    ("limits", "max"),
    ("tags", 0, "name"),
    ("tags", 0, "nam"),
    ("port", "x"),
    ("escaped", "x"),
    ("escaped", "y"),
]
BESIDE = {"pdb.min", "tags[0].name", "escaped.x"}  # both schemas apply: only keys both list
ALONE = {"pdb.min", "pdb.max", "limits.max", "tags[0].name", "tags[0].nam", "port.x", "escaped.x"}


def _helm_accepts(chart: Path) -> set[str]:
    """The PATHS Helm accepts, all set at once: each error it reports names the place a value
    is refused at (`at '/pdb': additional properties 'max' not allowed`: `/pdb/max`)."""
    done = run_tool("helm", "template", chart, "--set", ",".join(f"{render(p)}=1" for p in PATHS))
    refused = {
        f"{at}/{key}"
        for at, key in re.findall(r"at '([^']*)': additional properties '([^']*)'", done.stderr)
    }
    refused |= set(re.findall(r"at '([^']*)': got object, want", done.stderr))
    pointers = {render(p): "/" + "/".join(map(str, p)) for p in PATHS}
    accepted = {
        k for k, at in pointers.items() if not any(f"{at}/".startswith(f"{r}/") for r in refused)
    }
    assert (done.returncode == 0) == (accepted == set(pointers)), done.stderr
    return accepted


@pytest.mark.parametrize(
    ("draft", "known"),
    [
        pytest.param(None, BESIDE, id="no-schema-keyword"),
        pytest.param("https://json-schema.org/draft/2020-12/schema", BESIDE, id="2020-12"),
        pytest.param("https://json-schema.org/draft/2019-09/schema", BESIDE, id="2019-09"),
        pytest.param("http://json-schema.org/draft-07/schema#", ALONE, id="draft-07"),
        pytest.param("https://json-schema.org/draft-07/schema", ALONE, id="draft-07-https"),
        pytest.param("http://json-schema.org/draft-06/schema#", ALONE, id="draft-06"),
        pytest.param("http://json-schema.org/draft-04/schema#", ALONE, id="draft-04"),
    ],
)
def test_the_keywords_beside_a_ref_apply_as_helm_applies_them(
    draft: str | None, known: set[str], tmp_path: Path
) -> None:
    schema = SCHEMA if draft is None else {"$schema": draft, **SCHEMA}
    (tmp_path / "templates").mkdir()
    (tmp_path / "Chart.yaml").write_text("apiVersion: v2\nname: svc\nversion: 1.0.0\n")
    (tmp_path / "values.schema.json").write_text(json.dumps(schema))
    chart = ChartValues("svc", "1.0.0", from_schema(schema, schema))
    assert _helm_accepts(tmp_path) == known
    assert {render(p) for p in PATHS if chart.miss(list(p)) is None} == known


def test_messages_name_the_keys_of_both_schemas_or_of_the_target_alone() -> None:
    beside = ChartValues("svc", "1.0.0", from_schema(SCHEMA, SCHEMA))
    assert beside.miss(["pdb", "max"]) == (
        "the svc chart (1.0.0) has no value 'pdb.max'; keys under 'pdb': min"
    )
    assert beside.miss(["port", "x"]) == (
        "'port' is a integer in the svc chart (1.0.0), so nothing can be set under it"
    )
    assert beside.miss(["tags", 0, "nam"]) == (
        "the svc chart (1.0.0) has no value 'tags[0].nam' (did you mean 'tags[0].name'?); "
        "keys under 'tags[0]': name"
    )
    seven = {"$schema": "http://json-schema.org/draft-07/schema#", **SCHEMA}
    alone = ChartValues("svc", "1.0.0", from_schema(seven, seven))
    assert alone.miss(["pdb", "enable"]) == (
        "the svc chart (1.0.0) has no value 'pdb.enable'; keys under 'pdb': max, min"
    )


def test_nfd_pod_disruption_budget_enable_is_a_boolean_beside_its_ref(upstream: Path) -> None:
    """node-feature-discovery 0.19.0 (2020-12): `master.podDisruptionBudget` is a `$ref` to
    the Kubernetes PodDisruptionBudgetSpec with its own `enable` beside it."""
    done = run_tool(
        "helm", "template", upstream / NFD, "--set", "master.podDisruptionBudget.enable=yes"
    )
    assert "at '/master/podDisruptionBudget/enable': got string, want boolean" in done.stderr
    document = json.loads((upstream / NFD / "values.schema.json").read_text(encoding="utf-8"))
    nfd = ChartValues("node-feature-discovery", "0.19.0", from_schema(document, document))
    assert nfd.miss(["master", "podDisruptionBudget", "minAvailable"]) is None
    assert nfd.miss(["master", "podDisruptionBudget", "enable", "x"]) == (
        "'master.podDisruptionBudget.enable' is a boolean in the node-feature-discovery chart "
        "(0.19.0), so nothing can be set under it"
    )
    assert nfd.miss(["master", "podDisruptionBudget", "enabel"]) == (
        "the node-feature-discovery chart (0.19.0) has no value "
        "'master.podDisruptionBudget.enabel' (did you mean 'master.podDisruptionBudget.enable'"
        "?); keys under 'master.podDisruptionBudget': enable, maxUnavailable, minAvailable, "
        "selector, unhealthyPodEvictionPolicy"
    )
