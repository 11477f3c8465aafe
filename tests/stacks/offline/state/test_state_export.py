"""`pulumi stack export` files: the synthetic ones made from plans validate against Pulumi's
published deployment schema (draft 2020-12, its `$ref`s resolved by `$id` to the files
beside it), a plan diffed against its own export is empty, and the reader takes what the
engine really writes while refusing what is not an export, in one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from stacks.offline.cli import main
from stacks.offline.state.diff import diff_state
from stacks.offline.state.export import StateExportError, load_export
from stacks.offline.state.synthetic import export_of
from stacks.offline.state.values import SECRET_SIG, SIG, UNKNOWN_VALUE
from tests.stacks.offline.state.state_helpers import (
    export,
    parsed,
    plan,
    schema_errors,
    state_resource,
)

STACKS = ["dev", "arc", "gpu-dev", "apps-dev", "multi-gpu", "workstation"]


@pytest.mark.parametrize("stack", STACKS)
def test_a_plans_export_validates_and_diffs_empty(upstream: Path, stack: str) -> None:
    snap = plan(stack)
    document = export_of(snap)
    assert schema_errors(upstream, document) == []
    result = diff_state(parsed(document), snap)
    assert result.diff.resources == [] and result.diff.outputs == []
    assert result.facts == [] and not result.changed
    assert result.diff.unchanged == len(snap["resources"])
    # Every secret of the plan is in the export encrypted, and said to be not compared.
    secrets = {(u.name, u.path) for u in result.notes.uncompared}
    assert all(u.why == "encrypted in the state" for u in result.notes.uncompared)
    planned = {
        (r["name"], path)
        for r in snap["resources"]
        for path, value in _leaves(r["inputs"]).items()
        if value == "[secret]"
    }
    assert planned <= secrets


def _leaves(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            out.update(_leaves(v, f"{prefix}.{k}" if prefix else k))
        return out
    return {prefix: value}


def test_the_export_holds_the_engines_own_resources() -> None:
    document = export("dev")
    resources = document["deployment"]["resources"]
    assert resources[0]["urn"] == "urn:pulumi:dev::gpu-ci::pulumi:pulumi:Stack::gpu-ci-dev"
    defaults = sorted(r["type"] for r in resources if r["urn"].endswith("::default"))
    # The packages whose resources name no provider; Kubernetes objects use cluster-k8s.
    assert defaults == [
        "pulumi:providers:command",
        "pulumi:providers:oci",
        "pulumi:providers:random",
    ]
    vm = state_resource(document, "gpu-vm-0", "oci:Core/instance:Instance")
    assert vm["provider"].startswith("urn:pulumi:dev::gpu-ci::pulumi:providers:oci::default::")
    connection = state_resource(document, "host-0-verify")["inputs"]["connection"]
    assert connection[SIG] == SECRET_SIG and set(connection) == {SIG, "ciphertext"}
    subnet = state_resource(document, "network-subnet")
    assert subnet["inputs"]["vcnId"] == UNKNOWN_VALUE  # unknown in the plan


def test_the_schema_is_applied_for_real(upstream: Path) -> None:
    """Not vacuous: the same export with a field the schema does not know, or a secret
    with both ciphertext and plaintext, fails it."""
    document = export("dev")
    state_resource(document, "network-vcn")["bogus"] = True
    connection = state_resource(document, "host-0-verify")["inputs"]["connection"]
    connection["plaintext"] = '"x"'
    errors = schema_errors(upstream, document)
    assert any("bogus" in e for e in errors), errors
    assert any("inputs/connection" in e for e in errors), errors


def test_the_reader_takes_what_the_engine_writes_and_the_schema_refuses(upstream: Path) -> None:
    """pulumi/pulumi sdk/go/common/apitype/core.go @ v3.259.0 `ResourceV3` writes
    `created`, `modified`, `retainOnDelete`, `sourcePosition`: resources.json (same tag)
    refuses them (`additionalProperties: false`), the reader must not."""
    document = export("dev")
    vcn = state_resource(document, "network-vcn")
    vcn.update(
        created="2026-08-01T10:00:00Z",
        modified="2026-08-02T10:00:00Z",
        retainOnDelete=True,
        sourcePosition="project:///stacks/program.py#12",
    )
    assert any("created" in e for e in schema_errors(upstream, document))
    state = parsed(document)
    (read,) = [r for r in state.resources if r.name == "network-vcn"]
    assert read.retain_on_delete is True
    assert not diff_state(state, plan("dev")).changed


def _write(tmp_path: Path, document: Any) -> Path:
    path = tmp_path / "dev.json"
    path.write_text(json.dumps(document) if not isinstance(document, str) else document)
    return path


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        ([1], "a JSON list, not an object"),
        ({"version": 2, "deployment": {}}, "deployment version 2; this reader knows 3 and 4"),
        ({"version": 3, "checkpoint": {}}, "a backend checkpoint file, not an export"),
        ({"version": 3}, "`deployment` is missing or not an object"),
        ({"version": 3, "deployment": {}}, "`deployment.manifest` is missing or not an object"),
        (
            {"version": 3, "deployment": {"manifest": {}, "resources": [{"type": "x"}]}},
            "deployment.resources[0].urn is missing or not a URN",
        ),
        (
            {
                "version": 3,
                "deployment": {
                    "manifest": {},
                    "pending_operations": [{"type": "exploding", "resource": {}}],
                },
            },
            "deployment.pending_operations[0].type 'exploding' is not one of ('creating', "
            "'updating', 'deleting', 'reading', 'importing')",
        ),
    ],
)
def test_what_is_not_an_export_is_one_line(tmp_path: Path, document: Any, problem: str) -> None:
    path = _write(tmp_path, document)
    with pytest.raises(StateExportError) as err:
        load_export(path)
    assert str(err.value) == (
        f"{path}: not a `pulumi stack export` file ({problem}); write it with "
        "`pulumi stack export --stack STACK --file FILE`"
    )


def test_urns_of_two_stacks_are_refused(tmp_path: Path) -> None:
    document = export("dev")
    vcn = state_resource(document, "network-vcn")
    vcn["urn"] = vcn["urn"].replace("urn:pulumi:dev::", "urn:pulumi:prod::")
    with pytest.raises(StateExportError, match=r"is not of stack 'dev' of project 'gpu-ci'"):
        load_export(_write(tmp_path, document))


def test_the_readers_bounds_apply(tmp_path: Path) -> None:
    """core.read_json's depth bound (STATE_EXPORT: 200), before json.loads could recurse."""
    path = _write(tmp_path, '{"version": 3, "deployment": ' + "[" * 300 + "]" * 300 + "}")
    with pytest.raises(StateExportError, match=r"values nest more than 200 levels deep"):
        load_export(path)
    bad = _write(tmp_path, "{not json")
    with pytest.raises(StateExportError, match=r"not JSON \(Expecting property name"):
        load_export(bad)


def test_the_cli_says_the_wrong_file_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head = tmp_path / "head.json"
    head.write_text(json.dumps(plan("dev")))
    code = main(["diff", "--state", str(tmp_path / "missing.json"), str(head)])
    err = capsys.readouterr().err
    assert code == 2
    assert (
        err == f"error: {tmp_path / 'missing.json'}: cannot read the state export (no such file)\n"
    )
    other = export("dev")
    for r in other["deployment"]["resources"]:
        r["urn"] = r["urn"].replace("urn:pulumi:dev::", "urn:pulumi:gpu-dev::")
        r.pop("parent", None)
        r.pop("provider", None)
    exported = tmp_path / "gpu-dev.json"
    exported.write_text(json.dumps(other))
    assert main(["diff", "--state", str(exported), str(head)]) == 2
    assert capsys.readouterr().err == (
        f"error: {head}: the plan of gpu-ci/dev, and {exported} the state of gpu-ci/gpu-dev: "
        "export the stack the plan is for (`pulumi stack export --stack dev --file FILE`)\n"
    )
