"""`platform.set` values typed exactly as Helm's `--set` types them, Helm itself the oracle.

Each value goes through the pinned helm (`helm template --set v=VALUE` of a one-template
chart that prints `.Values` as JSON) and through gpu-ci's parser; the two must agree in type
and value. The table holds the edges of helm v3.20.2 `pkg/strvals/parser.go` `typedVal`:
case-folded words, "0", int64's bounds, a leading zero or sign, and what ParseInt refuses.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from components.platform.releases.overrides import PlatformOverrides
from tests.upstream_tools import run_tool

VALUES = [
    "true",
    "True",
    "TRUE",
    "False",
    "fAlSe",
    "fal\u017fe",  # the long s folds to "s" in Go's EqualFold too
    "null",
    "NULL",
    "Null",
    "nil",
    "0",
    "-0",
    "+0",
    "00",
    "007",
    "-007",
    "5",
    "-5",
    "+5",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "99999999999999999999",
    "1_000",
    "1.5",
    "1e3",
    "0x10",
    "٣",  # a digit Python's int() takes and ParseInt does not
    " 5",
    "5 ",
    "yes",
    "",
    "v2.3.0",
]


@pytest.fixture(scope="module")
def helm_typed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What Helm makes of each of VALUES: one render, each value set at its own key."""
    chart = tmp_path_factory.mktemp("typing-chart")
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: typing\nversion: 0.1.0\n")
    (chart / "templates").mkdir()
    (chart / "templates" / "values.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: typing\n"
        "data:\n  values: {{ toJson .Values | quote }}\n"
    )
    args: list[str] = ["template", "typing", str(chart)]
    for index, value in enumerate(VALUES):
        args += ["--set", f"v{index}={value}"]
    done = run_tool("helm", *args, cwd=Path(chart))
    assert done.returncode == 0, done.stderr
    rendered = done.stdout.split("values: ", 1)[1].strip()
    values: dict[str, Any] = json.loads(json.loads(rendered))
    return values


@pytest.mark.parametrize("index", range(len(VALUES)), ids=[repr(v) for v in VALUES])
def test_a_set_value_has_helm_s_type_and_value(index: int, helm_typed: dict[str, Any]) -> None:
    value = VALUES[index]
    ours = PlatformOverrides.parse([f"gpu-operator:v={value}"]).values_for("gpu-operator")["v"]
    helm = helm_typed[f"v{index}"]
    assert (type(ours), ours) == (type(helm), helm), value


def test_the_table_covers_each_type_helm_gives() -> None:
    """Booleans, null, ints and strings: a table that lost one would test less."""
    typed = [PlatformOverrides.parse([f"c:v={v}"]).values_for("c")["v"] for v in VALUES]
    assert {type(v) for v in typed} == {bool, type(None), int, str}
