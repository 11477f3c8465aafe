"""Rendered objects checked by the pinned kubectl-validate on a few small objects (a core
kind, a custom resource whose CRD comes with the objects or from a folder, one whose CRD is
nowhere), and its exact call and failure modes through a stub that records them."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from stacks.offline.charts import validate as validate_module
from stacks.offline.charts.release import ChartCheckError
from stacks.offline.charts.validate import object_label, validate
from tests.upstream_tools import tool


def _crd(group: str, kind: str, plural: str) -> dict[str, Any]:
    schema = {
        "type": "object",
        "properties": {"spec": {"type": "object", "properties": {"size": {"type": "integer"}}}},
    }
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "names": {"kind": kind, "plural": plural},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": schema},
                }
            ],
        },
    }


def _object(api: str, kind: str, name: str, **fields: Any) -> dict[str, Any]:
    return {"apiVersion": api, "kind": kind, "metadata": {"name": name}, **fields}


def test_each_invalid_object_is_named_with_its_field(tmp_path: Path) -> None:
    folder = tmp_path / "crds"
    folder.mkdir()
    (folder / "gadget.json").write_text(json.dumps(_crd("b.io", "Gadget", "gadgets")))
    bad_map = _object("v1", "ConfigMap", "x", data={"a": 1})
    bad_map["metadata"]["namespace"] = "team"
    objects = [
        ("rel-a", _object("v1", "ConfigMap", "fine", data={"a": "1"})),
        ("rel-a", bad_map),
        ("rel-b", _crd("a.io", "Widget", "widgets")),
        ("rel-b", _object("a.io/v1", "Widget", "w", spec={"size": 3})),
        ("rel-b", _object("a.io/v1", "Widget", "big", spec={"size": "large"})),
        ("rel-c", _object("b.io/v1", "Gadget", "g", spec={"size": 1})),
        ("rel-c", _object("c.io/v1", "Thing", "t")),
    ]
    problems = validate(tool("kubectl-validate"), objects, "v1.35.0", [folder])
    assert problems == [
        'rel-a: ConfigMap team/x: data.a: Invalid value: "integer": data.a in body must be '
        'of type string: "integer"',
        'rel-b: Widget big: spec.size: Invalid value: "string": spec.size in body must be of '
        'type integer: "string"',
        "rel-c: Thing t: failed to retrieve validator: failed to locate OpenAPI spec for GV: "
        "c.io/v1",
    ]


def test_no_objects_run_nothing(tmp_path: Path) -> None:
    assert validate(tmp_path / "no-validator", [], "v1.35.0") == []


def test_an_object_is_labelled_by_kind_namespace_and_name() -> None:
    assert object_label({"kind": "Pod", "metadata": {"name": "p", "namespace": "n"}}) == "Pod n/p"
    assert object_label({"kind": "Node", "metadata": {"name": "w"}}) == "Node w"
    assert object_label({"kind": "Node"}) == "Node None"


STUB = """#!{python}
import json, os, sys
from pathlib import Path
args = sys.argv[1:]
crds = [Path(args[i + 1]) for i, a in enumerate(args) if a == "--local-crds"]
folder = Path(args[0])
record = {{
    "args": args,
    "objects": sorted(p.name for p in folder.iterdir()),
    "crds": sorted(p.name for p in crds[0].iterdir()),
    "kubeconfig": os.environ["KUBECONFIG"],
    "kubeconfig_exists": Path(os.environ["KUBECONFIG"]).exists(),
}}
Path({log!r}).write_text(json.dumps(record))
sys.stdout.write(os.environ.get("STUB_STDOUT", "{{}}"))
sys.stderr.write(os.environ.get("STUB_STDERR", ""))
sys.exit(int(os.environ.get("STUB_EXIT", "0")))
"""


@pytest.fixture
def stub(tmp_path: Path) -> tuple[Path, Path]:
    log = tmp_path / "call.json"
    validator = tmp_path / "kubectl-validate"
    validator.write_text(STUB.format(python=sys.executable, log=str(log)), encoding="utf-8")
    validator.chmod(0o755)
    return validator, log


def test_the_call_names_the_version_the_crds_and_no_cluster(
    stub: tuple[Path, Path], tmp_path: Path
) -> None:
    validator, log = stub
    objects = [("r", _crd("a.io", "Widget", "widgets")), ("r", _object("v1", "ConfigMap", "c"))]
    assert validate(validator, objects, "v1.33.1", [tmp_path / "more"]) == []
    call = json.loads(log.read_text())
    scratch = Path(call["args"][0]).parent
    assert call["args"] == [
        str(scratch / "objects"),
        "--version",
        "1.33",
        "--output",
        "json",
        "--local-crds",
        str(scratch / "crds"),
        "--local-crds",
        str(tmp_path / "more"),
    ]
    assert (call["objects"], call["crds"]) == (["00000.json", "00001.json"], ["00000.json"])
    assert call["kubeconfig"] == str(scratch / "no-kubeconfig")
    assert call["kubeconfig_exists"] is False
    assert not scratch.exists()


def test_a_validator_that_cannot_start_or_hangs_is_one_error_naming_it(
    stub: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "no-validator"
    objects = [("r", _object("v1", "ConfigMap", "c"))]
    with pytest.raises(ChartCheckError, match=rf"^{missing}: cannot run kubectl-validate \("):
        validate(missing, objects, "1.35")
    hangs = tmp_path / "hangs"
    hangs.write_text(f"#!{sys.executable}\nimport time\ntime.sleep(30)\n", encoding="utf-8")
    hangs.chmod(0o755)
    monkeypatch.setattr(validate_module, "VALIDATE_TIMEOUT_S", 1)
    with pytest.raises(ChartCheckError) as raised:
        validate(hangs, objects, "1.35")
    assert str(raised.value).startswith(f"{hangs}: cannot run kubectl-validate (")
    assert "timed out after 1 second" in str(raised.value)


def _results(*statuses: dict[str, Any]) -> str:
    return json.dumps({"OBJECTS/00000.json": list(statuses)})


@pytest.mark.parametrize(
    ("status", "why"),
    [
        ({"status": "Failure", "message": "no schema"}, "no schema"),
        ({"status": "Failure", "details": {"causes": []}, "message": "m"}, "m"),
        ({"status": "Failure"}, "{'status': 'Failure'}"),
        (
            {"status": "Failure", "details": {"causes": [{"field": "a", "message": "x"}, {}]}},
            "a: x; ",
        ),
        (
            {"status": "Failure", "details": {"causes": [{"message": "X: y"}, {"field": "b"}]}},
            "X: y; b",
        ),
    ],
    ids=["message", "no-causes", "nothing-said", "causes", "half-causes"],
)
def test_a_failure_is_reported_by_its_causes_else_its_message(
    status: dict[str, Any],
    why: str,
    stub: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    validator, _ = stub
    monkeypatch.setenv("STUB_STDOUT", _results({"status": "Success"}, status))
    (problem,) = validate(validator, [("r", _object("v1", "ConfigMap", "c"))], "1.35")
    assert problem == f"OBJECTS/00000.json: {why}"  # a file it was not given: named as is


@pytest.mark.parametrize(
    ("stdout", "stderr", "said"),
    [
        ("", "Error: couldn't find\n  hardcoded schemas", "Error: couldn't find hardcoded schemas"),
        ("not json\nat all", "", "not json at all"),
        ("", "x" * 3000, "x" * 2000),
    ],
    ids=["stderr", "stdout", "long"],
)
def test_a_validator_that_gives_no_results_is_one_error(
    stdout: str,
    stderr: str,
    said: str,
    stub: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    validator, _ = stub
    monkeypatch.setenv("STUB_STDOUT", stdout)
    monkeypatch.setenv("STUB_STDERR", stderr)
    monkeypatch.setenv("STUB_EXIT", "2")
    with pytest.raises(ChartCheckError) as raised:
        validate(validator, [("r", _object("v1", "ConfigMap", "c"))], "1.35")
    assert str(raised.value) == f"kubectl-validate failed (exit 2): {said}"
