"""A component's health check (the recipe's `healthCheckAsserts`), checked before it runs.

AICR's registry gives a component a Chainsaw `Test` (`healthCheck.assertFile`, inlined as
`healthCheckAsserts` when a recipe resolves); its `validate` runs it after deployment.
gpu-ci runs it in-cluster (`jobs.py`) and, at preview, refuses with one error naming
the component and the file:
- a document that is not one valid `chainsaw.kyverno.io/v1alpha1` `Test` by Chainsaw's
  published schema (`chainsaw/schema.py`);
- an operation other than `assert` and `error` in a step's `try`, anywhere Chainsaw runs
  one (each step's `try`, `catch`, `finally`, `cleanup` and the Test's own `catch`:
  `chainsaw.documents.operations`), as AICR's deployment validator keeps registry asserts
  read-only (NVIDIA/aicr `validators/chainsaw/allowlist.go`); a step template (`use`) or an
  `assert.file`, which name files the check Job does not have (only the Test is mounted);
- a resource, or an `x_k8s_*` call in any expression (`chainsaw/expressions.py`), without a
  literal `apiVersion` and `kind` naming exactly one resource type a check may read
  (`chainsaw/reads.py`: the check's read-only RBAC is built from them; never Secrets);
- what would plan and then fail its Job on every run (`chainsaw/runnable.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from components.platform.chainsaw.documents import (
    READ_ONLY_OPERATIONS,
    TEST_LEVEL,
    budget_s,
    operations,
)
from components.platform.chainsaw.expressions import calls
from components.platform.chainsaw.reads import Read, ReadError, checked_read
from components.platform.chainsaw.runnable import duration_problem, placement_problem
from components.platform.chainsaw.schema import first_error
from components.platform.checks.model import CHECKS_NAMESPACE
from components.platform.releases.overrides import PlatformError
from core.errors import GpuCiError
from core.read_limits import CATALOG_FILE
from core.read_yaml import SAFE, parse_all
from recipes.catalogs.catalog import Catalog
from recipes.model.overlays import ComponentRef

INLINE = "inline healthCheckAsserts"


@dataclass(frozen=True)
class HealthTest:
    """A valid health check: the Test, where it came from, what it reads, how long it waits."""

    component: str
    source: str
    text: str
    name: str
    reads: tuple[Read, ...]
    budget_s: int | None
    """The longest wait the Test sets: the default wait of its other operations."""
    doc: Mapping[str, Any]
    """The Test as parsed (its worst case is computed from it: `chainsaw/worst_case.py`)."""


def source_of(catalog: Catalog | None, ref: ComponentRef) -> str:
    """The catalog file `ref`'s asserts come from, or `INLINE` when an overlay wrote them."""
    if catalog is None or (entry := catalog.registry.get(ref.name)) is None:
        return INLINE
    assert_file = entry.healthCheck.assertFile
    if assert_file in catalog.files and catalog.read_text(assert_file) == ref.healthCheckAsserts:
        return assert_file
    return INLINE


def parse_health_test(component: str, source: str, text: str) -> HealthTest:
    """`text` as a valid, read-only health check of `component` (from `source`)."""
    where = f"{component}: health check {source}"
    try:
        docs = [d for d in parse_all(text, name=source, limits=CATALOG_FILE, schema=SAFE) if d]
    except (yaml.YAMLError, GpuCiError) as err:  # a refused bound too
        raise PlatformError(f"{where} is not YAML: {str(err).splitlines()[0]}") from None
    if len(docs) != 1 or not isinstance(docs[0], dict):
        raise PlatformError(f"{where}: expected one Chainsaw Test document, found {len(docs)}")
    test: dict[str, Any] = docs[0]
    problem = first_error(test)
    if problem is not None:
        raise PlatformError(
            f"{where} is not a valid Chainsaw Test (chainsaw.kyverno.io/v1alpha1 schema, "
            f"components/platform/chainsaw/): {problem}"
        )
    reads: set[Read] = set()
    for index, step in enumerate(test["spec"]["steps"]):
        if isinstance(step, Mapping) and step.get("use"):
            raise PlatformError(
                f"{where}: spec.steps[{index}] uses a step template; write its operations "
                "inline (only the Test itself is mounted into the check Job)"
            )
    placement = placement_problem(test, len(text.encode()), CHECKS_NAMESPACE)
    for cause in (duration_problem(test), placement):
        if cause is not None:
            raise PlatformError(f"{where}: {cause}")
    for op in operations(test):
        step = "spec" if op.step == TEST_LEVEL else f"step {op.step!r}"
        at = f"{where}: {step} {op.block}"
        if op.kind not in READ_ONLY_OPERATIONS or op.block != "try":
            raise PlatformError(
                f"{at}: `{op.kind}` is not allowed; health checks run read-only, with `assert` "
                "and `error` in `try` only (AICR validators/chainsaw/allowlist.go)"
            )
        if op.body.get("file"):
            raise PlatformError(f"{at}: {op.kind}.file is not supported; inline the resource")
        reads.add(_read(at, f"{op.kind}.resource", op.resource))
    for call in calls(test):
        pair = {"apiVersion": call.api_version, "kind": call.kind}
        reads.add(_read(f"{where}: {call.path}", f"{call.function}(...)", pair))
    name = str((test.get("metadata") or {}).get("name") or component)
    return HealthTest(component, source, text, name, tuple(sorted(reads)), budget_s(test), test)


def _read(at: str, what: str, resource: Mapping[str, Any]) -> Read:
    api_version, object_kind = resource.get("apiVersion"), resource.get("kind")
    literal = all(isinstance(v, str) and v and "(" not in v for v in (api_version, object_kind))
    if not literal:
        raise PlatformError(
            f"{at}: {what} needs a literal apiVersion and kind (the check's read-only "
            f"RBAC is derived from them) [given: {api_version!r}, {object_kind!r}]"
        )
    try:
        return checked_read(str(api_version), str(object_kind))
    except ReadError as err:
        raise PlatformError(f"{at}: {what}: {err}") from None


def health_tests(catalog: Catalog | None, deployed: list[ComponentRef]) -> list[HealthTest]:
    """The parsed health check of every deployed component that has one, in order."""
    return [
        parse_health_test(ref.name, source_of(catalog, ref), ref.healthCheckAsserts)
        for ref in deployed
        if ref.healthCheckAsserts.strip()
    ]
