"""What only the deployed state says, applied to the plan diff (`stacks.offline.state.diff`),
on small stacks in-process: each state mark forces the engine's operation (pulumi/pulumi
pkg/resource/deploy/step_generator.go @ v3.259.0), pending operations and old copies are
reported, and the text, Markdown and JSON say it all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.errors import GpuCiError
from stacks.offline.snapshot.file import SnapshotError
from stacks.offline.snapshot.shape import Snapshot
from stacks.offline.state.diff import (
    CONDEMNED,
    INIT_ERRORS,
    PENDING,
    PENDING_REPLACEMENT,
    TAINTED,
    StateDiff,
    check_same_stack,
    code,
    diff_state,
    diff_state_files,
    render_state_markdown,
    render_state_text,
)
from stacks.offline.state.export import OPERATIONS, parse_export
from stacks.offline.state.synthetic import export_of
from stacks.offline.state.values import SECRET_SIG, SIG
from tests.stacks.offline.state.state_small import in_export, mini
from tests.stacks.offline.synthetic import VCN, res, urn

K8S = "pulumi:providers:kubernetes"
NAMESPACE = "kubernetes:core/v1:Namespace"
HEADER = "written by pulumi v3.272.0 at 2026-01-01T00:00:00Z"


def _plan(**names: str) -> Snapshot:
    """VCNs named by the keywords, each with that displayName; b depends on a when both."""
    made = [res(n, VCN, displayName=v) for n, v in sorted(names.items())]
    if {"a", "b"} <= set(names):
        made[1]["dependencies"] = [urn(VCN, "a")]
    return mini("s", *made)


def _diff(document: dict[str, Any], head: Snapshot) -> StateDiff:
    return diff_state(parse_export(json.loads(json.dumps(document)), "e.json"), head)


def _ops(result: StateDiff) -> list[tuple[str, str]]:
    return [(c.name, c.op) for c in result.diff.resources]


def _facts(result: StateDiff) -> list[tuple[str, str, str, str, str]]:
    return [(f.kind, f.urn, f.type, f.name, f.text) for f in result.facts]


def test_the_base_is_the_deployed_state() -> None:
    head = _plan(a="x")
    result = _diff(export_of(head), head)
    assert (result.diff.base, result.diff.head) == ("p/s (deployed state)", "p/s")
    assert result.head is head and result.base["resources"][0]["name"] == "a"
    assert not result.changed and code(result) == 0 and result.diff.unchanged == 1


@pytest.mark.parametrize(
    ("marks", "kind", "text"),
    [
        ({"taint": True}, "taint", TAINTED),
        ({"pendingReplacement": True}, "pendingReplacement", PENDING_REPLACEMENT),
        ({"taint": True, "pendingReplacement": True}, "taint", TAINTED),
        ({"taint": True, "initErrors": ["boom"]}, "taint", TAINTED),
    ],
)
def test_a_tainted_or_half_replaced_resource_is_replaced(
    marks: dict[str, Any], kind: str, text: str
) -> None:
    """`isTargetedReplace` ("If the resource was marked tainted in the old state, we will
    replace ... it"); `if diff.Replace() || triggerReplace || old.PendingReplacement`."""
    head = _plan(a="x", c="y", d="z")
    document = export_of(head)
    in_export(document, "a").update(marks)
    result = _diff(document, head)
    assert _ops(result) == [("a", "replace")]
    assert result.diff.resources[0].type == VCN
    assert _facts(result) == [(kind, urn(VCN, "a"), VCN, "a", text)]
    assert result.diff.unchanged == 2 and result.changed and code(result) == 1


def test_init_errors_force_an_update_and_quote_the_first() -> None:
    """ "If resource was unchanged, but there were initialization errors, generate an empty
    update step"."""
    head = _plan(a="x", c="y", d="z")
    document = export_of(head)
    in_export(document, "a")["initErrors"] = ["e" * 300, "second"]
    result = _diff(document, head)
    assert _ops(result) == [("a", "update")]
    assert result.as_json()["changes"] == [
        {
            "urn": urn(VCN, "a"),
            "type": VCN,
            "name": "a",
            "op": "update",
            "replaceBecause": [],
            "deleteBeforeReplace": False,
        }
    ]
    assert _facts(result) == [
        ("initErrors", urn(VCN, "a"), VCN, "a", f"{INIT_ERRORS} (first: {'e' * 200})")
    ]
    assert result.diff.unchanged == 2


def test_a_forced_operation_never_lessens_the_change() -> None:
    head = _plan(a="new", c="y")
    document = export_of(_plan(a="old", c="y"))
    in_export(document, "a")["initErrors"] = ["boom"]
    result = _diff(document, head)
    (change,) = result.diff.resources
    assert (change.op, [c.path for c in change.inputs]) == ("update", ["displayName"])
    in_export(document, "a")["taint"] = True
    (change,) = _diff(document, head).diff.resources
    assert (change.op, [c.path for c in change.inputs]) == ("replace", ["displayName"])
    assert _diff(document, head).diff.unchanged == 1


def _provider_may_be_replaced() -> tuple[Snapshot, dict[str, Any]]:
    """A Kubernetes provider whose kubeconfig changed: the plan cannot tell whether its
    cluster did (`may-replace`), nor whether the namespace on it is replaced."""
    k8s = res("k8s", K8S, kubeconfig="new")
    ns = res("ns", NAMESPACE, metadata={"name": "ci"})
    ns["options"]["provider"] = k8s["urn"]
    head = mini("s", k8s, ns)
    return head, export_of(mini("s", res("k8s", K8S, kubeconfig="old"), ns))


def test_init_errors_leave_a_possible_replacement_possible() -> None:
    head, document = _provider_may_be_replaced()
    assert _ops(_diff(document, head)) == [("k8s", "may-replace"), ("ns", "may-replace")]
    in_export(document, "k8s")["initErrors"] = ["boom"]
    result = _diff(document, head)
    assert _ops(result) == [("k8s", "may-replace"), ("ns", "may-replace")]
    assert [f.kind for f in result.facts] == ["initErrors"]
    in_export(document, "k8s")["taint"] = True
    assert _ops(_diff(document, head)) == [("k8s", "replace"), ("ns", "may-replace")]


def test_a_create_stays_a_create() -> None:
    """A state resource matched to a planned one the diff creates: a new resource under the
    alias of one the state still holds (the diff keeps the old one as deleted)."""
    renamed = res("a2", VCN, displayName="x")
    renamed["aliases"] = [urn(VCN, "a")]
    head = mini("s", renamed)
    document = export_of(mini("s", res("a", VCN, displayName="x")))
    in_export(document, "a")["taint"] = True
    result = _diff(document, head)
    assert [f.kind for f in result.facts] == ["taint"]
    assert all(op != "update" for _, op in _ops(result))


def test_a_mark_on_what_the_program_no_longer_declares_or_an_old_copy_says_nothing_more() -> None:
    head = _plan(c="y")
    document = export_of(_plan(a="x", c="y"))
    in_export(document, "a")["taint"] = True
    old = {**in_export(document, "c"), "delete": True, "taint": True, "initErrors": ["x"]}
    document["deployment"]["resources"].append(old)
    result = _diff(document, head)
    assert _ops(result) == [("a", "delete")]
    assert _facts(result) == [("condemned", urn(VCN, "c"), VCN, "c", CONDEMNED)]
    assert result.diff.unchanged == 1


def test_each_pending_operation_is_reported_never_resolved() -> None:
    head = _plan(a="x")
    document = export_of(head)
    resource = in_export(document, "a")
    document["deployment"]["pending_operations"] = [
        {"type": t, "resource": resource} for t in OPERATIONS
    ]
    result = _diff(document, head)
    assert result.diff.resources == [] and result.changed and code(result) == 1
    assert _facts(result) == [
        (f"pending:{t}", urn(VCN, "a"), VCN, "a", f"interrupted while {t}: {PENDING[t]}")
        for t in OPERATIONS
    ]
    assert set(PENDING) == set(OPERATIONS)


def test_changes_are_listed_in_the_order_pulumi_up_runs_them() -> None:
    """b depends on a: a first, though listed after in the plan, whatever else is forced."""
    head = _plan(a="new", b="new")
    head["resources"].reverse()
    document = export_of(_plan(a="old", b="old"))
    assert _ops(_diff(document, head)) == [("a", "update"), ("b", "update")]
    document = export_of(_plan(a="new", b="new"))
    in_export(document, "a")["taint"] = True
    in_export(document, "b")["initErrors"] = ["x"]
    assert _ops(_diff(document, head)) == [("a", "replace"), ("b", "update")]
    in_export(document, "a")["taint"] = False
    assert _ops(_diff(document, head)) == [("b", "update")]


def test_deletes_are_ordered_by_the_state() -> None:
    """Resources only in the state: by the state's run order (z depends on y), then by URN."""
    z = res("z", VCN, displayName="z")
    z["dependencies"] = [urn(VCN, "y")]
    deployed = mini("s", z, res("y", VCN, displayName="y"), res("w", VCN, displayName="w"))
    head = mini("s", res("w", VCN, displayName="new"))
    result = _diff(export_of(deployed), head)
    assert _ops(result) == [("w", "update"), ("y", "delete"), ("z", "delete")]


def _everything() -> tuple[dict[str, Any], Snapshot]:
    """A state with an integrity error, a taint, a resource not declared, one not in the
    state, an uncompared secret, an old copy and a default provider."""
    head = _plan(a="x", c="y", n="new")
    deployed = _plan(a="x", c="y", gone="old")
    document = export_of(deployed)
    document["deployment"]["metadata"] = {"integrity_error": {"message": "child <x> | y"}}
    in_export(document, "a")["taint"] = True
    in_export(document, "c")["inputs"]["displayName"] = {SIG: SECRET_SIG, "ciphertext": "v1:x"}
    old = {**in_export(document, "c"), "delete": True}
    document["deployment"]["resources"].append(old)
    return document, head


def test_the_text_says_what_the_state_says_beyond_the_diff() -> None:
    document, head = _everything()
    text = render_state_text(_diff(document, head))
    assert text.splitlines() == [
        "p/s (deployed state) → p/s: 1 to create, 0 to update, 1 to replace, 1 to delete, "
        "1 unchanged",
        "+- oci:Core/vcn:Vcn  a",
        " - oci:Core/vcn:Vcn  gone",
        " + oci:Core/vcn:Vcn  n",
        f"deployed state: e.json: 6 resources, {HEADER}",
        "  ! the state records an integrity error: child <x> | y",
        f"  ! oci:Core/vcn:Vcn  a: {TAINTED}",
        f"  ! oci:Core/vcn:Vcn  c: {CONDEMNED}",
        "  in the state, not declared by the program (1: deleted by `pulumi up`; a removal not "
        "yet applied, or left by a `--target` update): gone",
        "  declared, not in the state (1: created by `pulumi up`; new in the program, or "
        "skipped by a `--target` update): n",
        "  not compared (1 inputs the engine compares and this diff cannot; a change there is "
        "not shown):",
        "    c displayName: encrypted in the state",
        "  the engine's default providers (1) are its own: not compared",
    ]
    assert text.endswith("not compared\n")


def test_a_state_with_nothing_to_add_says_only_where_it_is_from() -> None:
    head = mini("s", res("k8s", K8S, kubeconfig="x"))  # a provider: on no default one
    document = export_of(head)
    document["deployment"]["manifest"] = {}
    text = render_state_text(_diff(document, head))
    assert text == (
        "p/s (deployed state) → p/s: no changes (1 resources)\n"
        "deployed state: e.json: 2 resources, written by pulumi (unknown) at (unknown)\n"
    )


def test_the_markdown_warns_of_the_facts_and_folds_the_inputs_not_compared() -> None:
    document, head = _everything()
    markdown = render_state_markdown(_diff(document, head))
    tail = markdown.split("#### Against the deployed state\n")[1]
    assert tail == (
        "\n"
        f"deployed state: e.json: 6 resources, {HEADER}\n"
        "\n"
        "> [!WARNING]\n"
        "> - the state records an integrity error: child &lt;x&gt; \\| y\n"
        f"> - oci:Core/vcn:Vcn  a: {TAINTED}\n"
        f"> - oci:Core/vcn:Vcn  c: {CONDEMNED}\n"
        "\n"
        "- in the state, not declared by the program (1: deleted by `pulumi up`; a removal not "
        "yet applied, or left by a `--target` update): gone\n"
        "- declared, not in the state (1: created by `pulumi up`; new in the program, or "
        "skipped by a `--target` update): n\n"
        "- not compared (1 inputs the engine compares and this diff cannot; a change there is "
        "not shown):\n"
        "- the engine's default providers (1) are its own: not compared\n"
        "\n"
        "<details><summary>Inputs not compared</summary>\n"
        "\n"
        "- c displayName: encrypted in the state\n"
        "\n"
        "</details>\n"
    )
    assert markdown.startswith("### Plan diff: `p/s (deployed state) → p/s`\n")


def test_the_markdown_of_a_state_with_no_facts() -> None:
    head = mini("s", res("a", VCN, displayName="x"))
    markdown = render_state_markdown(_diff(export_of(head), head))
    assert markdown.endswith(
        "#### Against the deployed state\n\n"
        f"deployed state: e.json: 3 resources, {HEADER}\n\n"
        "- the engine's default providers (1) are its own: not compared\n"
    )
    assert "[!WARNING]" not in markdown and "<details>" not in markdown


def test_the_json_holds_the_state_beside_the_diff() -> None:
    document, head = _everything()
    data = _diff(document, head).as_json()
    assert (data["base"], data["head"]) == ("p/s (deployed state)", "p/s")
    assert [(c["name"], c["op"]) for c in data["changes"]] == [
        ("a", "replace"),
        ("gone", "delete"),
        ("n", "create"),
    ]
    assert data["state"] == {
        "export": "e.json",
        "engine": "v3.272.0",
        "time": "2026-01-01T00:00:00Z",
        "facts": [
            {"kind": "taint", "urn": urn(VCN, "a"), "type": VCN, "text": TAINTED},
            {"kind": "condemned", "urn": urn(VCN, "c"), "type": VCN, "text": CONDEMNED},
        ],
        "notDeclared": [urn(VCN, "gone")],
        "notInState": [urn(VCN, "n")],
        "notCompared": [
            {"urn": urn(VCN, "c"), "path": "displayName", "why": "encrypted in the state"}
        ],
        "defaultProviders": ["urn:pulumi:s::p::pulumi:providers:oci::default"],
        "integrityError": "child <x> | y",
    }


def test_the_command_on_two_files(tmp_path: Path) -> None:
    head = _plan(a="naïve")
    export_path, head_path, out = tmp_path / "état.json", tmp_path / "h.json", tmp_path / "o.json"
    head_path.write_text(json.dumps(head))
    export_path.write_text(json.dumps(export_of(_plan(a="old"))))
    exit_code, text = diff_state_files(export_path, head_path, markdown=False, json_out=out)
    assert exit_code == 1
    assert text.splitlines()[:3] == [
        "p/s (deployed state) → p/s: 0 to create, 1 to update, 0 to replace, 0 to delete, "
        "0 unchanged",
        " ~ oci:Core/vcn:Vcn  a",
        '      displayName: "old" → "naïve"',
    ]
    written = out.read_text(encoding="utf-8")
    assert written.startswith('{\n  "base": "p/s (deployed state)",\n  "changes": [\n')
    assert written.endswith("}\n") and f'"export": "{export_path}"' in written  # not \u-escaped
    assert json.loads(written)["state"]["export"] == str(export_path)
    exit_code, markdown = diff_state_files(export_path, head_path, markdown=True)
    assert exit_code == 1 and markdown.startswith("### Plan diff: `p/s (deployed state) → p/s`")
    export_path.write_text(json.dumps(export_of(head)))
    assert diff_state_files(export_path, head_path, markdown=False)[0] == 0


def test_the_command_writes_no_json_it_cannot(tmp_path: Path) -> None:
    head = _plan(a="x")
    export_path, head_path = tmp_path / "e.json", tmp_path / "h.json"
    head_path.write_text(json.dumps(head))
    export_path.write_text(json.dumps(export_of(head)))
    with pytest.raises(GpuCiError, match=r"^--json .*: cannot write it"):
        diff_state_files(export_path, head_path, markdown=False, json_out=tmp_path / "no" / "x")


def test_the_plan_and_the_export_must_be_of_one_stack(tmp_path: Path) -> None:
    head = _plan(a="x")
    other = parse_export(export_of(mini("t", res("a", VCN, displayName="x"))), "t.json")
    with pytest.raises(SnapshotError) as err:
        check_same_stack(other, head, Path("h.json"))
    assert str(err.value) == (
        "h.json: the plan of p/s, and t.json the state of p/t: export the stack the plan is "
        "for (`pulumi stack export --stack s --file FILE`)"
    )
    project = parse_export(export_of(mini("s", res("a", VCN), project="q")), "q.json")
    with pytest.raises(SnapshotError, match="the state of q/s"):
        check_same_stack(project, head, Path("h.json"))
    empty = parse_export({"version": 3, "deployment": {"manifest": {}}}, "x.json")
    check_same_stack(empty, head, Path("h.json"))  # no resources: no stack to refuse
    export_path, head_path = tmp_path / "e.json", tmp_path / "h.json"
    head_path.write_text(json.dumps(head))
    export_path.write_text(json.dumps(export_of(mini("t", res("a", VCN, displayName="x")))))
    with pytest.raises(SnapshotError) as err:
        diff_state_files(export_path, head_path, markdown=False)
    assert str(err.value) == (
        f"{head_path}: the plan of p/s, and {export_path} the state of p/t: export the stack "
        "the plan is for (`pulumi stack export --stack s --file FILE`)"
    )


def test_the_markdown_of_no_changes_whole() -> None:
    head = mini("s", res("a", VCN, displayName="x"))
    markdown = render_state_markdown(_diff(export_of(head), head))
    assert markdown == (
        "### Plan diff: `p/s (deployed state) → p/s`\n"
        "\n"
        "No changes: the same 1 resources with the same inputs.\n"
        "\n"
        "#### Against the deployed state\n"
        "\n"
        f"deployed state: e.json: 3 resources, {HEADER}\n"
        "\n"
        "- the engine's default providers (1) are its own: not compared\n"
    )


def test_the_markdown_of_a_fact_alone_ends_with_it() -> None:
    head = mini("s", res("k8s", K8S, kubeconfig="x"))  # a provider: on no default one
    document = export_of(head)
    in_export(document, "k8s")["taint"] = True
    markdown = render_state_markdown(_diff(document, head))
    assert markdown.endswith(
        "```\n"
        "\n"
        "#### Against the deployed state\n"
        "\n"
        f"deployed state: e.json: 2 resources, {HEADER}\n"
        "\n"
        "> [!WARNING]\n"
        f"> - {K8S}  k8s: {TAINTED}\n"
    )


def test_the_text_names_every_resource_and_the_stack_outputs() -> None:
    head = _plan(a="x", n1="x", n2="x")
    head["outputs"] = {"url": "[unknown]"}
    deployed = _plan(a="x", g1="x", g2="x")
    deployed["outputs"] = {"url": "https://real"}
    lines = render_state_text(_diff(export_of(deployed), head)).splitlines()
    assert (
        "  in the state, not declared by the program (2: deleted by `pulumi up`; a removal "
        "not yet applied, or left by a `--target` update): g1, g2"
    ) in lines
    assert (
        "  declared, not in the state (2: created by `pulumi up`; new in the program, or "
        "skipped by a `--target` update): n1, n2"
    ) in lines
    assert "    stack output url: unknown to the offline plan (an output of another resource)" in (
        lines
    )
