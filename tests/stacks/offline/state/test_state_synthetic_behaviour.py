"""`plan --export`'s document (`stacks.offline.state.synthetic.export_of`) for a small plan:
every field of every resource, the references between them, Pulumi's published deployment
schema (pulumi/pulumi sdk/go/common/apitype/deployments.json @ v3.259.0), and the reader and
the diff taking it back as the same stack with no changes."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from stacks.offline.state.diff import diff_state
from stacks.offline.state.export import parse_export
from stacks.offline.state.synthetic import ENGINE, TIME, export_of, stack_urn, wire
from stacks.offline.state.values import SECRET_SIG, SIG, UNKNOWN_VALUE
from tests.stacks.offline.state.state_helpers import schema_errors
from tests.stacks.offline.state.state_small import (
    COMMAND,
    K8S_PROVIDER,
    MINE,
    STACK,
    fresh,
    in_export,
    named,
    small_plan,
)
from tests.stacks.offline.synthetic import VCN, res

ID = re.compile(r"[0-9a-f]{24}")
OCI_DEFAULT = "urn:pulumi:s::p::pulumi:providers:oci::default"
COMMAND_DEFAULT = "urn:pulumi:s::p::pulumi:providers:command::default"


def _ids(document: dict[str, Any]) -> dict[str, str]:
    return {r["urn"]: r["id"] for r in document["deployment"]["resources"] if "id" in r}


def _is_secret(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and set(value) == {SIG, "ciphertext"}
        and value[SIG] == SECRET_SIG
        and value["ciphertext"].startswith("v1:synthetic:")
    )


def test_the_export_of_a_small_plan_field_by_field() -> None:
    snap = small_plan()
    document = export_of(snap)
    ids = _ids(document)
    assert all(ID.fullmatch(i) for i in ids.values()) and len(set(ids.values())) == len(ids)
    resources = document["deployment"]["resources"]
    vcn, k8s, ns, cmd = (in_export(document, n) for n in ("vcn", "k8s", "ns", "cmd"))
    secret_in = vcn["inputs"]["token"]
    kubeconfig = k8s["inputs"]["kubeconfig"]
    out_secret = resources[0]["outputs"]["kubeconfig"]
    assert all(map(_is_secret, (secret_in, kubeconfig, out_secret)))
    assert len({secret_in["ciphertext"], kubeconfig["ciphertext"], out_secret["ciphertext"]}) == 3
    top = {"parent": STACK}
    assert document == {
        "version": 3,
        "deployment": {
            "manifest": {
                "time": "2026-01-01T00:00:00Z",
                "magic": hashlib.sha256(b"3.272.0").hexdigest(),
                "version": "v3.272.0",
            },
            "secrets_providers": {"type": "passphrase", "state": {"salt": "v1:synthetic"}},
            "resources": [
                {
                    "urn": STACK,
                    "custom": False,
                    "type": "pulumi:pulumi:Stack",
                    "outputs": {
                        "kubeconfig": out_secret,
                        "host": UNKNOWN_VALUE,
                        "names": ["a", "b"],
                    },
                },
                # The default providers, in the order the plan's resources first use them.
                {
                    "urn": COMMAND_DEFAULT,
                    "custom": True,
                    "id": ids[COMMAND_DEFAULT],
                    "type": "pulumi:providers:command",
                },
                {
                    "urn": OCI_DEFAULT,
                    "custom": True,
                    "id": ids[OCI_DEFAULT],
                    "type": "pulumi:providers:oci",
                },
                {
                    "urn": cmd["urn"],
                    "custom": True,
                    "type": COMMAND,
                    "parent": "urn:pulumi:s::p::gpu-ci:x:Comp::comp",
                    "inputs": {"create": "echo hi"},
                    "outputs": {"create": "echo hi"},
                    "id": ids[cmd["urn"]],
                    "provider": f"{COMMAND_DEFAULT}::{ids[COMMAND_DEFAULT]}",
                    "aliases": ["urn:pulumi:s::p::command:local:Command::old-cmd"],
                },
                {
                    "urn": "urn:pulumi:s::p::gpu-ci:x:Comp::comp",
                    "custom": False,
                    "type": "gpu-ci:x:Comp",
                    **top,
                    "inputs": {},
                    "outputs": {},
                },
                {
                    "urn": ns["urn"],
                    "custom": True,
                    "type": "kubernetes:core/v1:Namespace",
                    **top,
                    "inputs": {"metadata": {"name": "ci"}},
                    "outputs": {"metadata": {"name": "ci"}},
                    "id": ids[ns["urn"]],
                    "provider": f"{k8s['urn']}::{ids[k8s['urn']]}",
                    "dependencies": [k8s["urn"]],
                    "propertyDependencies": {"metadata": [k8s["urn"]]},
                },
                {
                    "urn": "urn:pulumi:s::p::oci:Core/vcn:Vcn::looked",
                    "custom": True,
                    "type": VCN,
                    **top,
                    "inputs": {"displayName": "theirs"},
                    "outputs": {"displayName": "theirs"},
                    "id": ids["urn:pulumi:s::p::oci:Core/vcn:Vcn::looked"],
                    "provider": f"{OCI_DEFAULT}::{ids[OCI_DEFAULT]}",
                    "external": True,
                },
                {
                    "urn": vcn["urn"],
                    "custom": True,
                    "type": VCN,
                    **top,
                    "inputs": {
                        "displayName": "net",
                        "token": secret_in,
                        "nested": {"ids": [UNKNOWN_VALUE, 1]},
                    },
                    "outputs": {
                        "displayName": "net",
                        "token": secret_in,
                        "nested": {"ids": [UNKNOWN_VALUE, 1]},
                    },
                    "id": ids[vcn["urn"]],
                    "provider": f"{OCI_DEFAULT}::{ids[OCI_DEFAULT]}",
                    "protect": True,
                },
                {
                    "urn": k8s["urn"],
                    "custom": True,
                    "type": K8S_PROVIDER,
                    **top,
                    "inputs": {"kubeconfig": kubeconfig},
                    "outputs": {"kubeconfig": kubeconfig},
                    "id": ids[k8s["urn"]],
                },
                {
                    "urn": MINE,
                    "custom": True,
                    "type": "pulumi:providers:random",
                    **top,
                    "inputs": {},
                    "outputs": {},
                    "id": ids[MINE],
                },
                {
                    "urn": "urn:pulumi:s::p::random:index/randomPassword:RandomPassword::pw",
                    "custom": True,
                    "type": "random:index/randomPassword:RandomPassword",
                    **top,
                    "inputs": {"length": 16},
                    "outputs": {"length": 16},
                    "id": ids["urn:pulumi:s::p::random:index/randomPassword:RandomPassword::pw"],
                    "provider": f"{MINE}::{ids[MINE]}",
                },
            ],
        },
    }
    assert ENGINE == "3.272.0" and TIME == "2026-01-01T00:00:00Z"
    assert snap == small_plan()  # the plan is not changed


def test_the_export_is_the_same_every_time_and_names_its_writer() -> None:
    first, again = export_of(small_plan()), export_of(small_plan())
    assert first == again
    other = export_of(small_plan(), engine="3.200.1", time="2026-05-05T05:05:05Z")
    assert other["deployment"]["manifest"] == {
        "time": "2026-05-05T05:05:05Z",
        "magic": hashlib.sha256(b"3.200.1").hexdigest(),
        "version": "v3.200.1",
    }
    assert other["deployment"]["resources"] == first["deployment"]["resources"]


def test_a_small_plans_export_validates_against_the_published_schema(upstream: Path) -> None:
    assert schema_errors(upstream, export_of(small_plan())) == []


def test_a_plan_diffed_against_its_own_export_has_no_changes() -> None:
    snap = small_plan()
    result = diff_state(parse_export(export_of(snap), "export.json"), snap)
    assert result.diff.resources == [] and result.diff.outputs == [] and not result.changed
    assert result.diff.unchanged == len(snap["resources"])
    assert result.notes.default_providers == [COMMAND_DEFAULT, OCI_DEFAULT]
    assert result.notes.matched == {r["urn"]: r["urn"] for r in snap["resources"]}
    assert [(u.name, u.path, u.why) for u in result.notes.uncompared] == [
        ("vcn", "token", "encrypted in the state"),
        ("k8s", "kubeconfig", "encrypted in the state"),
        ("", "kubeconfig", "encrypted in the state"),
    ]


def test_one_default_provider_per_package_and_only_where_one_is_used() -> None:
    a, b = res("a"), res("b")
    provider = res("oci-explicit", "pulumi:providers:oci")
    on_it = res("c")
    on_it["options"]["provider"] = provider["urn"]
    read = res("d", "random:index/randomId:RandomId")
    read["read"] = True
    component = res("e", "gpu-ci:x:Comp")
    component["custom"] = False
    off_plan = res("f")
    off_plan["options"]["provider"] = "urn:pulumi:s::p::pulumi:providers:oci::elsewhere"
    snap = {
        "project": "p",
        "stack": "s",
        "resources": [a, b, provider, on_it, read, component, off_plan],
        "outputs": {},
    }
    document = export_of(snap)
    defaults = [
        r["urn"] for r in document["deployment"]["resources"] if r["urn"].endswith("::default")
    ]
    assert defaults == [OCI_DEFAULT]
    ids = _ids(document)
    assert in_export(document, "a")["provider"] == in_export(document, "b")["provider"]
    assert in_export(document, "c")["provider"] == f"{provider['urn']}::{ids[provider['urn']]}"
    # A provider the plan does not hold still gets an ID of the same form, its own.
    elsewhere = in_export(document, "f")["provider"]
    assert elsewhere.startswith("urn:pulumi:s::p::pulumi:providers:oci::elsewhere::")
    assert ID.fullmatch(elsewhere.rsplit("::", 1)[1])
    assert elsewhere.rsplit("::", 1)[1] not in ids.values()
    assert export_of(snap) == document
    # Neither the provider itself, the read resource of an unused package, nor a component
    # names a provider.
    assert {"provider", "external"} & set(in_export(document, "oci-explicit")) == set()
    assert in_export(document, "d")["external"] is True and "provider" not in in_export(
        document, "d"
    )
    assert {"id", "provider"} & set(in_export(document, "e")) == set()


def test_a_plan_of_only_components_exports_only_the_stack() -> None:
    component = res("only", "gpu-ci:x:Comp")
    component["custom"] = False
    snap = {"project": "p", "stack": "s", "resources": [component], "outputs": {"x": 1}}
    resources = export_of(snap)["deployment"]["resources"]
    assert [r["urn"] for r in resources] == [STACK, component["urn"]]
    assert resources[0]["outputs"] == {"x": 1}


def test_optional_fields_are_left_out_when_empty() -> None:
    bare = res("bare")
    bare["options"] = {}
    del bare["dependencies"], bare["propertyDependencies"], bare["aliases"], bare["inputs"]
    snap = {"project": "p", "stack": "s", "resources": [bare], "outputs": {}}
    written = in_export(export_of(snap), "bare")
    assert set(written) == {
        "urn",
        "custom",
        "type",
        "parent",
        "inputs",
        "outputs",
        "id",
        "provider",
    }
    assert written["inputs"] == {} and written["outputs"] == {}


def test_the_stacks_urn() -> None:
    assert stack_urn({"project": "gpu-ci", "stack": "dev"}) == (
        "urn:pulumi:dev::gpu-ci::pulumi:pulumi:Stack::gpu-ci-dev"
    )


def test_secrets_and_unknowns_in_the_states_form_each_secret_its_own() -> None:
    value = {"a": "[secret]", "b": ["[secret]", "[secret]", "[unknown]", 3], "c": {"d": "x"}}
    wired = wire(value, "here")
    secrets = [wired["a"], *wired["b"][:2]]
    assert all(map(_is_secret, secrets))
    assert len({s["ciphertext"] for s in secrets}) == 3
    assert wired["b"][2:] == [UNKNOWN_VALUE, 3] and wired["c"] == {"d": "x"}
    assert wire(value, "here") == wired
    # Another place, other ciphertexts (none of the same secret repeats across resources).
    elsewhere = wire(value, "there")
    assert elsewhere["a"]["ciphertext"] != wired["a"]["ciphertext"]
    assert wire("[secret]", "x.a") != wire("[secret]", "x")
    assert wire("[secret]", "x[0]") != wire("[secret]", "x")
    assert wire("plain", "x") == "plain" and wire(None, "x") is None


def test_a_fresh_copy_is_what_the_plan_gives() -> None:
    assert named(fresh(small_plan()), "vcn")["options"]["protect"] is True
