"""A check's read-only RBAC is built only from exact group/kind pairs the cluster's API can
serve, never Secrets (issue #40, items 1 and 3): wildcards, whitespace, subresources and
kinds a Kubernetes group does not have are refused, and so is an `x_k8s_*` expression on
Secrets or on a computed kind; every health check of gpu-ci's and both AICR catalogs still
plans with the reads it had."""

from __future__ import annotations

from pathlib import Path

import pytest

from components.platform.chainsaw.reads import (
    BUILT_IN,
    Read,
    ReadError,
    checked_read,
    plural,
    read_of,
)
from components.platform.checks.aicr_validators import EXPECTED_KINDS
from recipes import PROJECT_CATALOG
from tests.components.platform.health_docs import POD, WHERE, doc, parsed, read, refused

TRY = f"{WHERE}: step 's' try"
CORE = (
    "known: ConfigMap, Endpoints, Event, LimitRange, Namespace, Node, PersistentVolume, "
    "PersistentVolumeClaim, Pod, PodTemplate, ReplicationController, ResourceQuota, Service, "
    "ServiceAccount"
)
NOT_A_GROUP = "is neither Kubernetes' nor one a CRD can have (a DNS name with a dot, no `*` or "
NOT_A_GROUP += "spaces)"
NOT_A_KIND = "is not a kind name (a capital letter, then letters, digits or `-`; no `*`, `/` or "
NOT_A_KIND += "spaces)"


@pytest.mark.parametrize(
    ("api_version", "kind", "message"),
    [
        # `*` is every group in RBAC, core included: this was a rule on every Secret
        ("*/v1", "Secret", f"error.resource: '*/v1' 'Secret': group '*' {NOT_A_GROUP}"),
        ("*/v1", "*/statu", f"error.resource: '*/v1' '*/statu': group '*' {NOT_A_GROUP}"),
        (
            "v1",
            "*/statu",
            f"error.resource: 'v1' '*/statu': API group 'core' has no kind "
            f"'*/statu' a check may read ({CORE})",
        ),
        ("v1", "Secret", "error.resource: health checks never read Secret objects"),
        (
            "v1",
            "Pod ",
            f"error.resource: 'v1' 'Pod ': API group 'core' has no kind 'Pod ' a "
            f"check may read ({CORE})",
        ),
        (
            "v1",
            "*",
            f"error.resource: 'v1' '*': API group 'core' has no kind '*' a check may read ({CORE})",
        ),
        (
            "example.com/v1",
            "Foo Bar",
            f"error.resource: 'example.com/v1' 'Foo Bar': kind 'Foo Bar' {NOT_A_KIND}",
        ),
        (
            "example.com/v1",
            "Widget/status",
            f"error.resource: 'example.com/v1' 'Widget/status': kind 'Widget/status' {NOT_A_KIND}",
        ),
        (
            "nodots/v1",
            "Widget",
            f"error.resource: 'nodots/v1' 'Widget': group 'nodots' {NOT_A_GROUP}",
        ),
        (
            "apps/v1 ",
            "Deployment",
            "error.resource: apiVersion 'apps/v1 ' is not "
            "GROUP/VERSION or VERSION (a version such as v1 or v1beta1; no `*` or spaces)",
        ),
        (
            "rbac.authorization.k8s.io/v1",
            "ClusterRole",
            "error.resource: "
            "'rbac.authorization.k8s.io/v1' 'ClusterRole': API group 'rbac.authorization.k8s.io' "
            "has no kind 'ClusterRole' a check may read (known: none)",
        ),
    ],
)
def test_a_pair_that_is_not_one_readable_resource_type_is_refused(
    api_version: str, kind: str, message: str
) -> None:
    assert refused(doc(read(api_version, kind, "error"))) == f"{TRY}: {message}"


def test_built_in_kinds_read_their_real_resources_and_crds_the_guessed_one() -> None:
    test = parsed(
        doc(
            read("networking.k8s.io/v1", "Ingress"),
            read("v1", "Endpoints"),
            read("nvidia.com/v1", "ClusterPolicy"),
            read("monitoring.coreos.com/v1", "Alertmanager"),
        )
    )
    assert test.reads == (
        Read("", "endpoints"),
        Read("monitoring.coreos.com", "alertmanagers"),
        Read("networking.k8s.io", "ingresses"),
        Read("nvidia.com", "clusterpolicies"),
    )
    for group, kinds in BUILT_IN.items():
        for kind, resource in kinds.items():
            assert checked_read(f"{group}/v1" if group else "v1", kind) == Read(group, resource)
    with pytest.raises(ReadError):
        checked_read("v1", "Secret")


def test_every_kind_gpu_ci_generates_checks_for_is_a_readable_pair() -> None:
    for kind, api_version in EXPECTED_KINDS.items():
        assert checked_read(api_version, kind).resource == plural(kind)


def test_gpu_ci_s_own_pairs_read_their_real_resources() -> None:
    reads = {kind: read_of(api_version, kind) for kind, api_version in EXPECTED_KINDS.items()}
    assert reads == {
        "Deployment": Read("apps", "deployments"),
        "DaemonSet": Read("apps", "daemonsets"),
        "StatefulSet": Read("apps", "statefulsets"),
        "Job": Read("batch", "jobs"),
        "Service": Read("", "services"),
        "ConfigMap": Read("", "configmaps"),
        "ServiceAccount": Read("", "serviceaccounts"),
        "Namespace": Read("", "namespaces"),
        "RuntimeClass": Read("node.k8s.io", "runtimeclasses"),
        "CustomResourceDefinition": Read("apiextensions.k8s.io", "customresourcedefinitions"),
        "ClusterPolicy": Read("nvidia.com", "clusterpolicies"),
        "ClusterTrainingRuntime": Read("trainer.kubeflow.org", "clustertrainingruntimes"),
    }


def test_a_crd_group_may_be_as_long_as_a_dns_subdomain() -> None:
    # At most 253 characters (apimachinery `pkg/util/validation/validation.go`
    # IsDNS1123Subdomain, which a CRD's group must pass).
    group = ".".join(["a" * 63, "b" * 63, "c" * 63, "d" * 61])
    assert len(group) == 253
    assert checked_read(f"{group}/v1", "Widget") == Read(group, "widgets")
    longer = "e" + group
    with pytest.raises(ReadError) as caught:
        checked_read(f"{longer}/v1", "Widget")
    assert str(caught.value) == f"'{longer}/v1' 'Widget': group {longer!r} {NOT_A_GROUP}"


def _catalog_checks(upstream: Path) -> list[Path]:
    paths = sorted(PROJECT_CATALOG.glob("components/*/health-check.yaml"))
    for catalog in ("aicr-v0.11.1", "aicr-main-2026-07-09"):
        paths += sorted((upstream / catalog / "recipes" / "checks").glob("*/health-check.yaml"))
    return paths


def test_every_health_check_of_gpu_ci_and_aicr_still_plans(upstream: Path) -> None:
    paths = _catalog_checks(upstream)
    assert len(paths) >= 50
    resources = set()
    for path in paths:
        test = parsed(path.read_text(encoding="utf-8"))
        resources |= {(r.group, r.resource) for r in test.reads}
        assert test.budget_s in (300, 420), path
    assert ("", "secrets") not in resources
    assert all("*" not in g + r and " " not in g + r for g, r in resources)
    assert ("slinky.slurm.net", "nodesets") in resources


SECRET_LIST = "(length(x_k8s_list($client, 'v1', 'Secret', 'kube-system').items) > `0`)"


@pytest.mark.parametrize(
    ("where", "expression", "message"),
    [
        (
            "key",
            SECRET_LIST,
            "spec.steps[0].try[0].assert.resource."
            f"{SECRET_LIST}: x_k8s_list(...): health checks never read Secret objects",
        ),
        (
            "binding",
            "(x_k8s_get($client, 'v1', 'Secret', 'ns', 'token'))",
            "spec.bindings[0].value: x_k8s_get(...): health checks never read Secret objects",
        ),
        (
            "binding",
            "(x_k8s_exists($client, `\"v1\"`, `\"Secret\"`, 'ns', 'token'))",
            "spec.bindings[0].value: x_k8s_exists(...): health checks never read Secret objects",
        ),
        (
            "binding",
            "(x_k8s_list($client, '*/v1', 'Secret'))",
            f"spec.bindings[0].value: x_k8s_list(...): '*/v1' 'Secret': group '*' {NOT_A_GROUP}",
        ),
        (
            "binding",
            "(x_k8s_list($client, 'v1', join('', ['Sec', 'ret'])))",
            "spec.bindings[0].value: x_k8s_list(...) needs a literal apiVersion and kind (the "
            "check's read-only RBAC is derived from them) [given: 'v1', None]",
        ),
    ],
)
def test_an_expression_reading_secrets_is_refused(
    where: str, expression: str, message: str
) -> None:
    if where == "key":
        resource = {**POD, expression: True}
        test = doc({"assert": {"resource": resource}})
    else:
        test = doc(bindings=[{"name": "found", "value": expression}])
    assert refused(test) == f"{WHERE}: {message}"


def test_an_expression_reading_a_readable_kind_adds_its_read() -> None:
    nodes = "(x_k8s_list($client, 'v1', 'Node'))"
    test = parsed(doc(bindings=[{"name": "nodes", "value": nodes}]))
    assert test.reads == (Read("", "nodes"), Read("", "pods"))
