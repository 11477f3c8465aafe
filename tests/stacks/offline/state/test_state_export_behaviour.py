"""Reading a `pulumi stack export` (`stacks.offline.state.export`) on small documents: every
field of `ResourceV3` and `OperationV2` the diff reads (pulumi/pulumi
sdk/go/common/apitype/core.go @ v3.259.0), and each refusal as its one line."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from stacks.offline.state.export import (
    PendingOperation,
    StateExport,
    StateExportError,
    StateResource,
    load_export,
    parse_export,
    urn_parts,
)

FIX = "write it with `pulumi stack export --stack STACK --file FILE`"
STACK = "urn:pulumi:dev::gpu-ci::pulumi:pulumi:Stack::gpu-ci-dev"
VCN = "urn:pulumi:dev::gpu-ci::oci:Core/vcn:Vcn::vcn"
OCI = "urn:pulumi:dev::gpu-ci::pulumi:providers:oci::default"


def _doc(*resources: Any, **deployment: Any) -> dict[str, Any]:
    return {
        "version": 3,
        "deployment": {"manifest": {}, "resources": list(resources), **deployment},
    }


def _problem(what: str, path: str = "e.json") -> str:
    return f"{path}: not a `pulumi stack export` file ({what}); {FIX}"


@pytest.mark.parametrize(
    ("urn", "parts"),
    [
        (VCN, ("dev", "gpu-ci")),
        ("urn:pulumi:dev::gpu-ci::gpu-ci:x:Comp$oci:Core/vcn:Vcn::vcn", ("dev", "gpu-ci")),
        ("urn:pulumi:dev::gpu-ci::T", ("dev", "")),  # no name: no project read
        ("urn:pulumi:dev", ("", "")),
        ("urn:other:dev::gpu-ci::T::N", ("", "")),
        ("dev::gpu-ci::T::N", ("", "")),
        ("", ("", "")),
        ("urn:pulumi:::gpu-ci::T::N", ("", "")),
    ],
)
def test_the_stack_and_project_of_a_urn(urn: str, parts: tuple[str, str]) -> None:
    assert urn_parts(urn) == parts


def test_every_field_the_diff_reads() -> None:
    vcn = {
        "urn": VCN,
        "custom": True,
        "type": "oci:Core/vcn:Vcn",
        "parent": STACK,
        "inputs": {"displayName": "net"},
        "outputs": {"displayName": "net", "id": "ocid1"},
        "dependencies": [OCI],
        "propertyDependencies": {"displayName": [OCI], "none": None},
        "provider": f"{OCI}::abc",
        "aliases": ["urn:pulumi:dev::gpu-ci::oci:Core/vcn:Vcn::old"],
        "protect": True,
        "external": True,
        "delete": True,
        "taint": True,
        "pendingReplacement": True,
        "retainOnDelete": True,
        "deletedWith": OCI,
        "initErrors": ["timed out"],
        "created": "2026-08-01T10:00:00Z",  # the engine writes it; the reader ignores it
    }
    document = {
        "version": 4,
        "features": ["refreshBeforeUpdate"],
        "deployment": {
            "manifest": {"time": "2026-08-01T10:00:00Z", "version": "v3.259.0", "magic": "m"},
            "secrets_providers": {"type": "passphrase"},
            "metadata": {"integrity_error": {"message": "resource x missing its parent"}},
            "resources": [{"urn": STACK, "type": "pulumi:pulumi:Stack"}, vcn],
            "pending_operations": [{"type": "importing", "resource": vcn}],
        },
    }
    full = StateResource(
        urn=VCN,
        type="oci:Core/vcn:Vcn",
        custom=True,
        parent=STACK,
        inputs={"displayName": "net"},
        outputs={"displayName": "net", "id": "ocid1"},
        dependencies=(OCI,),
        property_dependencies={"displayName": [OCI], "none": []},
        provider=f"{OCI}::abc",
        aliases=("urn:pulumi:dev::gpu-ci::oci:Core/vcn:Vcn::old",),
        protect=True,
        external=True,
        delete=True,
        taint=True,
        pending_replacement=True,
        retain_on_delete=True,
        deleted_with=OCI,
        init_errors=("timed out",),
    )
    assert parse_export(document, "e.json") == StateExport(
        path="e.json",
        version=4,
        project="gpu-ci",
        stack="dev",
        engine="v3.259.0",
        time="2026-08-01T10:00:00Z",
        resources=(StateResource(urn=STACK, type="pulumi:pulumi:Stack", custom=False), full),
        pending=(PendingOperation("importing", full),),
        features=("refreshBeforeUpdate",),
        integrity_error="resource x missing its parent",
    )
    assert full.name == "vcn"


def test_what_is_left_out_reads_as_empty_or_false() -> None:
    bare = {"urn": VCN, "type": "oci:Core/vcn:Vcn"}
    flags = {k: "true" for k in ("protect", "external", "delete", "taint", "pendingReplacement")}
    state = parse_export(
        _doc(bare, {**bare, **flags, "retainOnDelete": 1, "urn": VCN + "2", "custom": 1}),
        "e.json",
    )
    assert state.resources == (
        StateResource(urn=VCN, type="oci:Core/vcn:Vcn", custom=False),
        StateResource(urn=VCN + "2", type="oci:Core/vcn:Vcn", custom=True),
    )
    assert (state.engine, state.time, state.features, state.integrity_error) == ("", "", (), "")
    assert (state.version, state.pending) == (3, ())
    assert parse_export(_doc(), "e.json") == StateExport("e.json", 3, "", "", "", "", ())
    nulls: dict[str, Any] = {"version": 3, "deployment": {"manifest": {}, "resources": None}}
    assert parse_export(nulls, "e.json").resources == ()
    nulls["deployment"]["pending_operations"] = None
    assert parse_export(nulls, "e.json").pending == ()


def test_an_integrity_error_that_is_no_object_or_has_no_message_is_none() -> None:
    metadatas: list[Any] = [{"integrity_error": "broken"}, {"integrity_error": {}}, {}, None]
    for metadata in metadatas:
        assert parse_export(_doc(metadata=metadata), "e.json").integrity_error == ""


def test_the_stack_is_the_stack_resources_else_the_first() -> None:
    other = "urn:pulumi:prod::gpu-ci::oci:Core/vcn:Vcn::vcn"
    found = parse_export(_doc({"urn": VCN, "type": "T"}), "e.json")
    assert (found.stack, found.project) == ("dev", "gpu-ci")
    with pytest.raises(StateExportError) as err:
        parse_export(
            _doc({"urn": other, "type": "T"}, {"urn": STACK, "type": "pulumi:pulumi:Stack"}),
            "e.json",
        )
    assert str(err.value) == _problem(f"{other} is not of stack 'dev' of project 'gpu-ci'")
    with pytest.raises(StateExportError) as err:
        parse_export(_doc({"urn": other, "type": "T"}, {"urn": VCN, "type": "T"}), "e.json")
    assert str(err.value) == _problem(f"{VCN} is not of stack 'prod' of project 'gpu-ci'")
    project = "urn:pulumi:dev::other::oci:Core/vcn:Vcn::vcn"
    with pytest.raises(StateExportError, match="is not of stack 'dev' of project 'gpu-ci'"):
        parse_export(_doc({"urn": VCN, "type": "T"}, {"urn": project, "type": "T"}), "e.json")


def _bad(**fields: Any) -> dict[str, Any]:
    return {"urn": VCN, "type": "T", **fields}


R = "deployment.resources[1]"


@pytest.mark.parametrize(
    ("document", "what"),
    [
        ("text", "a JSON str, not an object"),
        ({"version": 3, "checkpoint": {}}, "a backend checkpoint file, not an export"),
        (
            {"version": 3, "checkpoint": {}, "deployment": []},
            "`deployment` is missing or not an object",
        ),
        ({"version": 5, "deployment": {}}, "deployment version 5; this reader knows 3 and 4"),
        ({"version": "3", "deployment": {}}, "deployment version '3'; this reader knows 3 and 4"),
        ({"deployment": {}}, "deployment version None; this reader knows 3 and 4"),
        ({"version": 4, "deployment": []}, "`deployment` is missing or not an object"),
        (
            {"version": 3, "deployment": {"manifest": []}},
            "`deployment.manifest` is missing or not an object",
        ),
        (
            {"version": 3, "deployment": {"manifest": {}, "resources": {"a": 1}}},
            "`deployment.resources` is not a list",
        ),
        (_doc(pending_operations={"a": 1}), "`deployment.pending_operations` is not a list"),
        (_doc(_bad(), "x"), f"{R} is not an object"),
        (_doc(_bad(), {"type": "T"}), f"{R}.urn is missing or not a URN"),
        (_doc(_bad(), _bad(urn=7)), f"{R}.urn is missing or not a URN"),
        (_doc(_bad(), _bad(urn="vcn")), f"{R}.urn is missing or not a URN"),
        (_doc(_bad(), _bad(urn="urn:pulumi:dev::gpu-ci::T")), f"{R}.urn is missing or not a URN"),
        (_doc(_bad(), {"urn": VCN}), f"{R}.type is missing or not a string"),
        (_doc(_bad(), _bad(type=["T"])), f"{R}.type is missing or not a string"),
        (_doc(_bad(), _bad(inputs=[1])), f"{R}.inputs is not an object"),
        (_doc(_bad(), _bad(outputs="x")), f"{R}.outputs is not an object"),
        (
            _doc(_bad(), _bad(propertyDependencies=[1])),
            f"{R}.propertyDependencies is not an object",
        ),
        (
            _doc(_bad(), _bad(propertyDependencies={"a": "urn"})),
            f"{R}.propertyDependencies.a is not a list of strings",
        ),
        (_doc(_bad(), _bad(dependencies="urn")), f"{R}.dependencies is not a list of strings"),
        (_doc(_bad(), _bad(dependencies=[1])), f"{R}.dependencies is not a list of strings"),
        (_doc(_bad(), _bad(aliases=[None])), f"{R}.aliases is not a list of strings"),
        (_doc(_bad(), _bad(initErrors="x")), f"{R}.initErrors is not a list of strings"),
        (
            _doc(pending_operations=[{"type": "creating", "resource": _bad()}, "x"]),
            "deployment.pending_operations[1] is not an object",
        ),
        (
            _doc(pending_operations=[{"resource": _bad()}]),
            "deployment.pending_operations[0].type None is not one of ('creating', "
            "'updating', 'deleting', 'reading', 'importing')",
        ),
        (
            _doc(pending_operations=[{"type": "exploding", "resource": _bad()}]),
            "deployment.pending_operations[0].type 'exploding' is not one of ('creating', "
            "'updating', 'deleting', 'reading', 'importing')",
        ),
        (
            _doc(pending_operations=[{"type": "creating"}]),
            "deployment.pending_operations[0].resource is not an object",
        ),
        (
            _doc(pending_operations=[{"type": "creating", "resource": {"type": "T"}}]),
            "deployment.pending_operations[0].resource.urn is missing or not a URN",
        ),
    ],
)
def test_what_is_not_an_export_is_refused_in_one_line(document: Any, what: str) -> None:
    with pytest.raises(StateExportError) as err:
        parse_export(document, "e.json")
    assert str(err.value) == _problem(what)


def test_each_pending_operation_is_read() -> None:
    ops = [{"type": t, "resource": _bad()} for t in ("creating", "updating", "deleting", "reading")]
    pending = parse_export(_doc(pending_operations=ops), "e.json").pending
    resource = StateResource(urn=VCN, type="T", custom=False)
    assert pending == tuple(
        PendingOperation(t, resource) for t in ("creating", "updating", "deleting", "reading")
    )


def test_the_file_is_read_by_the_careful_reader(tmp_path: Path) -> None:
    path = tmp_path / "dev.json"
    with pytest.raises(StateExportError) as err:
        load_export(path)
    assert str(err.value) == f"{path}: cannot read the state export (no such file)"
    path.write_text("[1, 2")
    with pytest.raises(StateExportError) as err:
        load_export(path)
    assert str(err.value).startswith(f"{path}: not JSON (")
    assert str(err.value).endswith(f"); {FIX}")
    path.write_text(json.dumps(_doc({"urn": VCN, "type": "T"})))
    assert load_export(path).stack == "dev" and load_export(path).path == str(path)
    assert load_export(path, tmp_path).resources[0].urn == VCN


def test_a_link_out_of_the_exports_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()
    outside = tmp_path / "elsewhere.json"
    outside.write_text(json.dumps(_doc()))
    link = folder / "dev.json"
    os.symlink(outside, link)
    assert load_export(link).stack == ""  # without a folder, any file
    with pytest.raises(StateExportError) as err:
        load_export(link, folder)
    assert str(err.value) == (
        f"{link}: a symlink that leads outside {folder}; put the file itself in {folder} "
        "instead of a link to a file elsewhere"
    )
