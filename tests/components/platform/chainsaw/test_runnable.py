"""A Test that would plan and then fail its check Job on every run is refused at preview,
naming the key and why (issue #40, "tests that can only fail in the cluster"): a namespace
other than the checks', another cluster's kubeconfig, a Test no ConfigMap can hold. The
timeouts are in `test_durations.py`, a kind with whitespace in `test_reads.py`."""

from __future__ import annotations

from components.platform.chainsaw.runnable import CONFIG_MAP_BYTES
from components.platform.checks.model import CHECKS_NAMESPACE
from core import yaml_text
from tests.components.platform.health_docs import WHERE, doc, parsed, refused


def test_a_namespace_other_than_the_checks_is_refused() -> None:
    assert refused(doc(namespace="kube-system")) == (
        f"{WHERE}: spec.namespace: 'kube-system' is not the checks' namespace "
        "'gpu-ci-checks', the only one the check Job may read in; leave it unset"
    )
    assert parsed(doc(namespace=CHECKS_NAMESPACE)).reads


def test_another_cluster_is_refused_at_the_test_and_at_a_step() -> None:
    elsewhere = {"prod": {"kubeconfig": "/home/me/.kube/prod"}}
    assert refused(doc(clusters=elsewhere)) == (
        f"{WHERE}: spec.clusters: names another cluster (a kubeconfig file the check Job does "
        "not have); a health check runs on the cluster it checks, remove it"
    )
    step = doc()
    step["spec"]["steps"][0]["cluster"] = "prod"
    assert refused(step).startswith(f"{WHERE}: spec.steps[0].cluster: names another cluster")


def test_a_test_no_config_map_can_hold_is_refused() -> None:
    text = yaml_text.dump(doc(description="x" * CONFIG_MAP_BYTES))
    assert refused(text) == (
        f"{WHERE}: the Test is {len(text.encode())} bytes, more than a ConfigMap holds "
        "(1048576 bytes, 1 MiB), so its check Job could not mount it; make it smaller"
    )
    # Exactly 1 MiB still fits: validation refuses only a larger total (kubernetes
    # `pkg/apis/core/validation/validation.go` ValidateConfigMap, `totalSize > MaxSecretSize`).
    base = len(yaml_text.dump(doc(description="x")).encode()) - 1
    full = yaml_text.dump(doc(description="x" * (CONFIG_MAP_BYTES - base)))
    assert len(full.encode()) == CONFIG_MAP_BYTES
    assert parsed(full).reads
    assert "more than a ConfigMap holds" in refused(
        yaml_text.dump(doc(description="x" * (CONFIG_MAP_BYTES - base + 1)))
    )


def test_a_zero_delay_or_grace_period_is_not_an_operation_timeout() -> None:
    # Both are waits, not an operation's deadline (a Test's `delayBeforeCleanup` is slept
    # before its cleanup): none or a zero one leaves no operation without time.
    zero = parsed(doc(delayBeforeCleanup="0s", forceTerminationGracePeriod="0s"))
    assert zero.reads == parsed(doc()).reads


def test_the_shortest_positive_timeout_is_positive() -> None:
    assert parsed(doc(timeouts={"assert": "1ns"})).reads
    assert "is not a positive duration" in refused(doc(timeouts={"assert": "0ns"}))
