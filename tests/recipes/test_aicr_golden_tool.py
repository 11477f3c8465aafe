"""`tools/aicr_golden.py` and its digests: what a maintainer refreshing the AICR golden
relies on (a stand-in `aicr` here; the real one is not installable in tests)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.recipes.recipe_helpers import overlay, registry, write_files
from tools import aicr_golden
from tools.aicr_digest import canonical, leaves, units

FAKE_AICR = """\
import json, pathlib, sys
value = json.loads((pathlib.Path(sys.argv[0]).parent / "value.json").read_text())
args = sys.argv[1:]
if args == ["--version"]:
    print("aicr version test")
elif "--service" not in args:
    print("no criteria provided: specify at least one", file=sys.stderr)
    sys.exit(2)
elif args[0] == "recipe":
    print(json.dumps({"metadata": {"appliedOverlays": ["base", "eks"]},
                      "componentRefs": [{"name": "a", "version": "1.0"}],
                      "deploymentOrder": ["a"]}))
else:
    print(json.dumps({"components": {"a": {"values": {"driver": {"version": value}}}}}))
"""


def test_leaves_walk_keys_in_any_order_and_lists_in_theirs() -> None:
    doc = {"b": {"x.y": 1.0, "e": {}}, "a": [{"k": None}, {"k": True}], "order": ["p", "q"]}
    assert leaves(doc) == {
        "a[0].k": "null",
        "a[1].k": "true",
        "b.e": "{}",
        'b["x.y"]': "1",  # a dotted key is quoted; Go writes the float 1.0 as 1
        "order": '["p","q"]',  # a list of scalars is one leaf: its order is its meaning
    }
    assert leaves(dict(reversed(doc.items()))) == leaves(doc)
    assert leaves({"order": ["q", "p"]})["order"] != leaves(doc)["order"]
    assert canonical(1.5) == "1.5"


def test_units_record_each_component_apart() -> None:
    parts = units({"kind": "K", "componentRefs": [{"name": "a"}], "components": {"b": {"x": 1}}})
    assert sorted(parts) == ["", "componentRefs[0]", "components.b"]
    assert list(parts["componentRefs[0]"]) == ["name"]


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in aicr over a two-overlay catalog at GPU_CI_UPSTREAM; its golden in tmp."""
    upstream = tmp_path / "upstream"
    write_files(
        upstream / aicr_golden.CATALOGS["v0.11.1"],
        {
            "registry.yaml": registry("a"),
            "overlays/base.yaml": overlay("base"),
            "overlays/eks.yaml": overlay("eks", criteria={"service": "eks"}),
            "overlays/open.yaml": overlay("open", criteria={"intent": "any"}),
        },
    )
    monkeypatch.setenv("GPU_CI_UPSTREAM", str(upstream))
    monkeypatch.setattr(aicr_golden, "GOLDEN_DIR", tmp_path / "golden")
    binary = tmp_path / "bin" / "aicr"
    binary.parent.mkdir()
    binary.write_text(f"#!{sys.executable}\n{FAKE_AICR}", encoding="utf-8")
    binary.chmod(0o755)
    (binary.parent / "value.json").write_text('"550.1"', encoding="utf-8")
    return binary


def test_the_tool_records_then_names_what_changed(
    fake: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--aicr", str(fake), "--catalog", "v0.11.1"]
    assert aicr_golden.main([*argv, "--write"]) == 0
    golden = json.loads(aicr_golden.golden_path("v0.11.1").read_text(encoding="utf-8"))
    assert golden["aicr"] == "aicr version test"
    assert golden["sets"]["eks"]["args"] == ["--service", "eks"]
    assert golden["sets"]["eks"]["components"] == [["a", "1.0"]]
    assert golden["sets"]["open"]["exit"] == 2  # `intent: any` passes no flag at all
    assert "no criteria provided" in golden["sets"]["open"]["error"]
    assert aicr_golden.main(argv) == 0
    capsys.readouterr()

    (fake.parent / "value.json").write_text('"560.0"', encoding="utf-8")
    assert aicr_golden.main(argv) == 1
    out = capsys.readouterr().out
    assert "eks: query components.a: values.driver.version changed" in out
    assert "1 difference(s)" in out
