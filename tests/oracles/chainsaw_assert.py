"""Chainsaw's `assert` and `error` semantics over recorded cluster objects (a test oracle).

Where the chainsaw binary cannot run, this decides what it would on a cluster holding
`objects`, re-implemented from the sources it follows:
- assertion trees: kyverno/kyverno-json `pkg/core/assertion/assertion.go` (@ cfddc124):
  a map asserts each of its keys (a missing key is an error, `(expr)` keys are JMESPath
  projections of the value, `~name.` iterates, `-> name` binds; an empty map only needs a
  non-null value); a list needs an actual list of the same length, element by element
  (a non-list actual is an internal error); a leaf compares with `matching.Match`/`Equal`
  (`pkg/core/matching`, @ a06c2c09): maps as subsets, lists element-wise, numbers across
  int/float, otherwise equal types; different scalar types are an internal error. A
  `(expr)` leaf is evaluated against the actual value first; `\\x\\` escapes an expression
  (`pkg/core/expression/expression.go`).
- operations: kyverno/chainsaw `pkg/engine/operations/assert/operation.go` and
  `.../error/operation.go` (@ 1d2d64bc / 48487dc8): the candidates are the object by name,
  or the list of its kind filtered by namespace and `metadata.labels`; `assert` passes when
  one candidate matches ("actual resource not found" / "no actual resource found"
  otherwise), `error` when none does; an internal error fails either. A namespaced kind
  without a namespace gets the test's namespace (`internal.ApplyNamespacer`).
- tests: steps in order, the first failing operation fails the test (`failer.FailNow`).
Polling is left out: the objects are the cluster's state once it settled.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tests.oracles.jmespath_subset import JmesPathTypeError, search

CLUSTER_SCOPED = frozenset(
    {
        "Namespace",
        "Node",
        "CustomResourceDefinition",
        "ClusterPolicy",
        "ClusterTrainingRuntime",
        "ClusterRole",
        "ClusterRoleBinding",
        "ValidatingWebhookConfiguration",
        "MutatingWebhookConfiguration",
        "RuntimeClass",
        "NodeFeatureRule",
        "ClusterIssuer",
    }
)
_FOREACH = re.compile(r"^~(\w+)?\.(.*)")
_BINDING = re.compile(r"(.*)\s*->\s*(\w+)$")
_ESCAPE = re.compile(r"^\\(.+)\\$")
_COMPILER = re.compile(r"^\((?:(\w+);)?(.+)\)$")


class InternalError(Exception):
    """kyverno-json's `field.InternalError`/`TypeInvalid`: the operation fails at once."""


@dataclass(frozen=True)
class Expression:
    foreach: bool
    statement: str
    binding: str
    engine: str  # "" (a plain key or value), "jp" or "cel"


def parse_expression(text: str) -> Expression:
    """kyverno-json `expression.Parse`: foreach, binding, escape, then `(compiler; stmt)`."""
    foreach, binding, engine = False, "", ""
    if match := _FOREACH.match(text):
        foreach, text = True, match.group(2)
    if match := _BINDING.match(text):
        binding, text = match.group(2), match.group(1)
    if match := _ESCAPE.match(text):
        text = match.group(1)
    elif match := _COMPILER.match(text):
        engine, text = match.group(1) or "jp", match.group(2)
    return Expression(foreach, text, binding, engine)


def _jp(statement: str, value: Any, engine: str) -> Any:
    if engine != "jp":
        raise NotImplementedError(f"compiler {engine!r}: only JMESPath is in this oracle")
    try:
        return search(statement, value)
    except JmesPathTypeError as err:
        raise InternalError(str(err)) from None


def _kind(value: Any) -> str:
    if isinstance(value, Mapping):
        return "map"
    if isinstance(value, list):
        return "slice"
    return "scalar"


def equal(expected: Any, actual: Any) -> bool:
    """kyverno-json `matching.Equal`."""
    if expected is None or actual is None:
        return expected is None and actual is None
    if type(expected) is type(actual):
        return bool(expected == actual)
    if _number(expected) and _number(actual):
        return float(expected) == float(actual)
    kinds = f"{type(expected).__name__} - {type(actual).__name__}"
    raise InternalError(f"types are not comparable, {kinds}")


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def match(expected: Any, actual: Any) -> bool:
    """kyverno-json `matching.Match`."""
    if _kind(expected) == "slice":
        if _kind(actual) != "slice":
            raise InternalError("invalid actual value, must be a slice")
        return len(expected) == len(actual) and all(map(match, expected, actual))
    if _kind(expected) == "map":
        if _kind(actual) != "map":
            raise InternalError("invalid actual value, must be a map")
        return all(k in actual and match(v, actual[k]) for k, v in expected.items())
    return equal(expected, actual)


def assert_tree(expected: Any, actual: Any, path: str = "") -> list[str]:
    """The errors of `actual` against the assertion tree `expected` (InternalError raised)."""
    if isinstance(expected, Mapping):
        return _map(expected, actual, path)
    if isinstance(expected, list):
        if actual is None:
            return [f"{path}: value is null"]
        if not isinstance(actual, list):
            raise InternalError(f"{path}: expected a slice")
        if len(actual) != len(expected):
            return [f"{path}: lengths of slices don't match"]
        pairs = enumerate(zip(expected, actual, strict=True))
        return [e for i, (x, a) in pairs for e in assert_tree(x, a, f"{path}[{i}]")]
    want = expected
    if isinstance(expected, str):
        expr = parse_expression(expected)
        if expr.foreach or expr.binding:
            raise InternalError("foreach and binding are not supported on the RHS")
        want = _jp(expr.statement, actual, expr.engine) if expr.engine else expr.statement
    if match(want, actual):
        return []
    return [f"{path}: Invalid value: {actual!r}: Expected value: {want!r}"]


def _map(expected: Mapping[str, Any], actual: Any, path: str) -> list[str]:  # noqa: PLR0912
    if not expected:
        return [f"{path}: invalid value, must not be null"] if actual is None else []
    found: list[str] = []
    for key, sub in expected.items():
        where = f"{path}.{key}" if path else str(key)
        expr = parse_expression(key) if isinstance(key, str) else Expression(False, key, "", "")
        if expr.engine:
            projected, present = _jp(expr.statement, actual, expr.engine), True
        elif actual is None:
            projected, present = None, False
        elif isinstance(actual, Mapping):
            present = expr.statement in actual
            projected = actual.get(expr.statement)
        else:
            raise InternalError(f"{where}: projection not recognized")
        if not present:
            found.append(f"{where}: Required value: field not found in the input object")
        elif expr.foreach:
            if isinstance(projected, Mapping):
                items = list(projected.values())
            elif isinstance(projected, list):
                items = projected
            else:
                raise InternalError(f"{where}: expected a slice or a map")
            for index, item in enumerate(items):
                found += assert_tree(sub, item, f"{where}[{index}]")
        else:
            found += assert_tree(sub, projected, where)
    return found


def candidates(
    resource: Mapping[str, Any], objects: Sequence[Mapping[str, Any]], namespace: str
) -> list[Mapping[str, Any]] | None:
    """What Chainsaw reads for `resource`: the named object ([] if absent, None = NotFound
    by name), or the list of its kind in its namespace with its labels."""
    meta = resource.get("metadata") or {}
    ns = meta.get("namespace") or ("" if resource["kind"] in CLUSTER_SCOPED else namespace)
    same = [
        o for o in objects
        if o["apiVersion"] == resource["apiVersion"] and o["kind"] == resource["kind"]
        and (not ns or (o.get("metadata") or {}).get("namespace", "") == ns)
    ]  # fmt: skip
    if meta.get("name"):
        named = [o for o in same if o["metadata"]["name"] == meta["name"]]
        return named or None
    labels = meta.get("labels") or {}
    return [o for o in same if _labelled(o, labels)]


def _labelled(obj: Mapping[str, Any], labels: Mapping[str, Any]) -> bool:
    have = obj["metadata"].get("labels") or {}
    return all(have.get(k) == v for k, v in labels.items())


def run_operation(
    kind: str, resource: Mapping[str, Any], objects: Sequence[Mapping[str, Any]], namespace: str
) -> str | None:
    """None if the operation passes, else why it fails."""
    found = candidates(resource, objects, namespace)
    try:
        if found is None:
            return "actual resource not found" if kind == "assert" else None
        if kind == "assert" and not found:
            return "no actual resource found"
        results = [assert_tree(dict(resource), dict(c)) for c in found]
    except InternalError as err:
        return f"internal error: {err}"
    if kind == "assert":
        return None if any(not r for r in results) else "; ".join(e for r in results for e in r)
    matched = [c for c, r in zip(found, results, strict=True) if not r]
    names = ", ".join(c["metadata"]["name"] for c in matched)
    return f"resource matches expectation: {names}" if matched else None


@dataclass(frozen=True)
class Outcome:
    passed: bool
    step: str = ""
    reason: str = ""


def run_test(
    test: Mapping[str, Any], objects: Sequence[Mapping[str, Any]], namespace: str = "gpu-ci-checks"
) -> Outcome:
    """A `Test`'s verdict on `objects`: the first failing step and why, or passed."""
    for index, step in enumerate(test["spec"]["steps"]):
        name = step.get("name") or f"step-{index + 1}"
        for entry in step.get("try") or []:
            for kind in ("assert", "error"):
                if kind in entry:
                    reason = run_operation(kind, entry[kind]["resource"], objects, namespace)
                    if reason is not None:
                        return Outcome(False, name, reason)
    return Outcome(True)
