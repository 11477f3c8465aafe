"""The Test documents gpu-ci writes (`documents.test_doc`, `step`, `ref`, `available`,
`render_test`) and what it reads from any Test (`operations`, `budget_s`): a step without a
name is `step-N` as Chainsaw numbers it, an entry's `description`, `compiler` and
`continueOnError` are no operations, and a malformed operation adds no timeout."""

from __future__ import annotations

from components.platform.chainsaw import documents
from components.platform.chainsaw.documents import (
    available,
    budget_s,
    operations,
    ref,
    render_test,
    step,
)

NODE = {"apiVersion": "v1", "kind": "Node"}


def test_a_test_document_waits_its_timeout_for_each_assert_and_error() -> None:
    doc = documents.test_doc("gpu", 90, [step("s", ("assert", NODE), ("error", NODE))])
    assert doc == {
        "apiVersion": "chainsaw.kyverno.io/v1alpha1",
        "kind": "Test",
        "metadata": {"name": "gpu"},
        "spec": {
            "timeouts": {"assert": "1m30s", "error": "1m30s"},
            "steps": [
                {
                    "name": "s",
                    "try": [{"assert": {"resource": NODE}}, {"error": {"resource": NODE}}],
                }
            ],
        },
    }
    # its YAML keeps the document's order: apiVersion, kind, metadata, spec
    assert render_test(documents.test_doc("gpu", 60, [])) == (
        "apiVersion: chainsaw.kyverno.io/v1alpha1\nkind: Test\nmetadata:\n  name: gpu\n"
        "spec:\n  timeouts:\n    assert: 1m\n    error: 1m\n  steps: []\n"
    )


def test_an_expected_resource_names_only_what_it_is_given() -> None:
    assert ref("v1", "Node") == NODE
    assert ref("v1", "Pod", namespace="ns") == {**ref("v1", "Pod"), "metadata": {"namespace": "ns"}}
    assert ref("v1", "Pod", "p", "ns") == {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "ns"},
    }
    assert available("Deployment", "w", "ns") == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "w", "namespace": "ns"},
        "status": {"(availableReplicas > `0`)": True},
    }


def test_unnamed_steps_are_numbered_from_one_and_entry_fields_are_no_operations() -> None:
    entry = {"description": "d", "compiler": "cel", "continueOnError": True, "assert": {"a": 1}}
    doc = {"spec": {"steps": [{"try": [entry]}, {"try": [{"error": {}}]}]}}
    assert [(op.step, op.kind, dict(op.body), op.path) for op in operations(doc)] == [
        ("step-1", "assert", {"a": 1}, "spec.steps[0].try[0].assert"),
        ("step-2", "error", {}, "spec.steps[1].try[0].error"),
    ]


def test_a_malformed_operation_adds_no_timeout() -> None:
    doc = {"spec": {"steps": [{"try": [{"assert": "x"}, {"error": {"timeout": "2m"}}]}]}}
    assert budget_s(doc) == 120
    assert budget_s({"spec": {"steps": [{"try": [{"assert": "x"}]}]}}) is None
