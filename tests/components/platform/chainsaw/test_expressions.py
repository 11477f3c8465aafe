"""Which `apiVersion`/`kind` each `x_k8s_*` call of a Test names (`chainsaw/expressions.py`):
its second and third top-level arguments, read as JMESPath string literals (jmespath.org
specification, "Raw String Literals" and "Literal Expressions"), whatever the first argument
holds; anything else is `None`, which the preview refuses as a computed kind."""

from __future__ import annotations

from typing import Any

import pytest

from components.platform.chainsaw.expressions import Call, calls
from tests.components.platform.health_docs import WHERE, doc, refused

PAIR = ("v1", "Node")


@pytest.mark.parametrize(
    ("expression", "pair"),
    [
        ("x_k8s_list($client, 'v1', 'Node')", PAIR),
        ("x_k8s_list($client,'v1','Node')", PAIR),  # no space after a comma
        ("x_k8s_list(($client), 'v1', 'Node')", PAIR),  # the first argument in brackets
        ("x_k8s_list(merge($c, {a: [1, (2)]}), 'v1', 'Node')", PAIR),  # nested, with commas
        ("x_k8s_list(f(g($a, $b), $c), 'v1', 'Node')", PAIR),
        ("x_k8s_list($CLIENT_X, 'v1', 'Node')", PAIR),
        ("x_k8s_list(join(',', [')', '(']), 'v1', 'Node')", PAIR),  # brackets in quotes
        ("x_k8s_list(`\", )\"`, 'v1', 'Node')", PAIR),
        ("x_k8s_list(\"client, x\", 'v1', 'Node')", PAIR),  # a quoted identifier
        ("x_k8s_list($client, 'v1', 'No\\'de')", ("v1", "No'de")),  # an escaped quote
        ("x_k8s_list($client, 'v1\\'', 'Node')", ("v1'", "Node")),  # one that ends it
        ("x_k8s_list(f($c), 'v1', 'No\\'de')", ("v1", "No'de")),  # after brackets
        ("x_k8s_list($c, 'v1', 'a, b\\'c')", ("v1", "a, b'c")),  # and a comma
        ("x_k8s_list($client, 'v1', 'a, b)')", ("v1", "a, b)")),
        ('x_k8s_list($client, `"v1"`, `"Node"`)', PAIR),  # JSON literals
        ("x_k8s_list($client, '', 'Node')", ("", "Node")),  # empty, but a literal
        ("x_k8s_list($client, 'v1', 'Node'", PAIR),  # cut short: still read, no crash
        ("x_k8s_list($client, 'v1', 'Node', 'ns', 'extra')", PAIR),
        ('x_k8s_list($client, `1`, `["Node"]`)', (None, None)),  # JSON, not strings
        ("x_k8s_list($client, `v1`, 'Node')", (None, "Node")),  # not JSON
        ("x_k8s_list($client, (\"v1\"), 'Node')", (None, "Node")),  # a field, in brackets
        ("x_k8s_list($client, $version, 'Node')", (None, "Node")),
        ("x_k8s_list($client, 'v1')", ("v1", None)),
        ("x_k8s_list()", (None, None)),
    ],
    ids=[
        "plain",
        "no-spaces",
        "bracketed-client",
        "nested-brackets",
        "nested-calls",
        "identifier",
        "quoted-brackets",
        "json-client",
        "quoted-identifier",
        "escaped-quote",
        "escaped-quote-last",
        "escaped-after-brackets",
        "escaped-with-comma",
        "comma-in-kind",
        "json-literals",
        "empty-literal",
        "unterminated",
        "more-arguments",
        "json-not-strings",
        "json-invalid",
        "bracketed-field",
        "variable",
        "no-kind",
        "no-arguments",
    ],
)
def test_the_pair_is_the_second_and_third_arguments_as_literals(
    expression: str, pair: tuple[str | None, str | None]
) -> None:
    assert list(calls({"value": expression})) == [Call("value", "x_k8s_list", *pair)]


def test_every_call_in_keys_values_and_lists_is_found_with_its_path() -> None:
    test: dict[Any, Any] = {
        "spec": {
            "bindings": [
                {"name": "a", "value": "x_k8s_get($c, 'v1', 'Pod', 'n', 'p')"},
                {"value": "length(x_k8s_exists($c, 'apps/v1', 'Deployment', 'n', 'd'))"},
            ],
            "x_k8s_list($c, 'v1', 'Node')": {1: "x_k8s_list ($c, 'v1', 'Service')"},
        },
        "other": ["not a call: xx_k8s_list($c, 'v1', 'Secret')", 3, None],
    }
    assert list(calls(test)) == [
        Call("spec.bindings[0].value", "x_k8s_get", "v1", "Pod"),
        Call("spec.bindings[1].value", "x_k8s_exists", "apps/v1", "Deployment"),
        Call("spec.x_k8s_list($c, 'v1', 'Node')", "x_k8s_list", "v1", "Node"),
        Call("spec.x_k8s_list($c, 'v1', 'Node').1", "x_k8s_list", "v1", "Service"),
    ]


def test_two_calls_in_one_string_are_both_read() -> None:
    text = "x_k8s_get($c, 'v1', 'Pod', 'n', 'p') && x_k8s_list($c, 'v1', 'Secret')"
    assert [c.kind for c in calls(text)] == ["Pod", "Secret"]


@pytest.mark.parametrize(
    ("expression", "given"),
    [
        ("x_k8s_list($client, '', 'Node')", "'', 'Node'"),
        ("x_k8s_list($client, `1`, 'Node')", "None, 'Node'"),
        ("x_k8s_list($client, 'v1', $kind)", "'v1', None"),
    ],
    ids=["empty", "json-number", "variable"],
)
def test_a_pair_that_is_not_two_string_literals_is_refused(expression: str, given: str) -> None:
    test = doc(bindings=[{"name": "found", "value": f"({expression})"}])
    assert refused(test) == (
        f"{WHERE}: spec.bindings[0].value: x_k8s_list(...) needs a literal apiVersion and kind "
        f"(the check's read-only RBAC is derived from them) [given: {given}]"
    )


def test_an_escaped_quote_cannot_hide_a_secret_read() -> None:
    # A quote escaped in the first argument does not end its literal, so the comma after it
    # does not split: the pair is 'v1' 'Secret', refused as such.
    expression = "(x_k8s_get(($client || 'it\\'s, odd'), 'v1', 'Secret', 'ns', 'token'))"
    assert refused(doc(bindings=[{"name": "found", "value": expression}])) == (
        f"{WHERE}: spec.bindings[0].value: x_k8s_get(...): health checks never read Secret objects"
    )
