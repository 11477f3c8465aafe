"""The kube-prometheus-stack values gpu-ci deploys, against what upstream data there is.

The chart's own values.yaml is not in `../shared/upstream`; AICR's catalog is, with its
values for the same chart and the node-scheduling paths its registry declares for it. Every
path set here is either one AICR sets too, or one of the chart keys listed below (each
documented in the chart's values.yaml, prometheus-community/helm-charts, and the Grafana
subchart's for `grafana.admin.*` and `grafana.sidecar.*`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from components.arc.pod_spec import Placement
from components.observability.observability_config import ObservabilityConfig
from components.observability.stack_values import stack_values

CHART_KEYS_AICR_DOES_NOT_SET = {
    "alertmanager.enabled",
    "prometheus.prometheusSpec.scrapeInterval",
    "prometheus.prometheusSpec.podMonitorSelectorNilUsesHelmValues",
    "grafana.admin.existingSecret",
    "grafana.admin.userKey",
    "grafana.admin.passwordKey",
    "grafana.sidecar.dashboards.enabled",
    "grafana.sidecar.dashboards.label",
    "grafana.sidecar.dashboards.labelValue",
}


def leaves(values: dict[str, Any], prefix: str = "") -> set[str]:
    found: set[str] = set()
    for key, value in values.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            found |= leaves(value, f"{path}.")
        else:
            found.add(path)
    return found


@pytest.fixture(scope="module")
def aicr(upstream: Path) -> dict[str, Any]:
    """AICR's kube-prometheus-stack values and its EKS overlay's overrides (a volume claim)."""
    recipes = upstream / "aicr-v0.11.1/recipes"
    path = recipes / "components/kube-prometheus-stack/values.yaml"
    loaded: dict[str, Any] = yaml.safe_load(path.read_text())
    eks = yaml.safe_load((recipes / "overlays/eks.yaml").read_text())
    (ref,) = [r for r in eks["spec"]["componentRefs"] if r["name"] == "kube-prometheus-stack"]
    return {"base": loaded, "eks": ref["overrides"]}


def test_every_path_is_aicrs_or_a_listed_chart_key(aicr: dict[str, Any]) -> None:
    ours = leaves(stack_values(ObservabilityConfig(), admin_secret="s", placement=Placement()))
    theirs = leaves(aicr["base"]) | leaves(aicr["eks"])
    assert ours - theirs - CHART_KEYS_AICR_DOES_NOT_SET == set()
    assert ours >= CHART_KEYS_AICR_DOES_NOT_SET  # the list holds nothing stale
    assert "prometheus.prometheusSpec.retention" in theirs
    claim = "prometheus.prometheusSpec.storageSpec.volumeClaimTemplate.spec"
    assert f"{claim}.resources.requests.storage" in ours & theirs


def test_placement_goes_where_aicrs_registry_schedules_the_chart(upstream: Path) -> None:
    registry = yaml.safe_load((upstream / "aicr-v0.11.1/recipes/registry.yaml").read_text())
    entry = next(c for c in registry["components"] if c["name"] == "kube-prometheus-stack")
    paths = set(entry["nodeScheduling"]["system"]["nodeSelectorPaths"])
    placement = Placement(node_selector={"pool": "cpu"}, tolerations=[{"key": "k"}])
    values = stack_values(ObservabilityConfig(), admin_secret="s", placement=placement)
    selected = {
        p.removesuffix(".nodeSelector") for p in leaves(values) if p.endswith("nodeSelector.pool")
    }
    selected = {p.removesuffix(".pool") for p in selected}
    assert selected, "no nodeSelector set"
    assert selected <= paths
    # The ones left out: Alertmanager (not deployed) and node-exporter (runs on every node).
    assert paths - selected == {
        "alertmanager.alertmanagerSpec.nodeSelector",
        "prometheus-node-exporter.nodeSelector",
        "thanosRuler.thanosRulerSpec.nodeSelector",
    }


def test_no_password_in_the_values_and_the_retention_given() -> None:
    cfg = ObservabilityConfig(retention="30d", retentionSize="8GB", scrapeInterval="1m")
    values = stack_values(cfg, admin_secret="gpu-ci-grafana-admin", placement=Placement())
    assert "adminPassword" not in values["grafana"]
    spec = values["prometheus"]["prometheusSpec"]
    assert (spec["retention"], spec["retentionSize"], spec["scrapeInterval"]) == (
        "30d",
        "8GB",
        "1m",
    )
    assert values["grafana"]["admin"]["existingSecret"] == "gpu-ci-grafana-admin"
    claim = spec["storageSpec"]["volumeClaimTemplate"]["spec"]
    assert claim == {
        "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": "50Gi"}},
    }
    cfg = ObservabilityConfig(storageSize="100Gi", storageClassName="oci-bv")
    claim = stack_values(cfg, admin_secret="s", placement=Placement())["prometheus"][
        "prometheusSpec"
    ]["storageSpec"]["volumeClaimTemplate"]["spec"]
    assert (claim["storageClassName"], claim["resources"]["requests"]["storage"]) == (
        "oci-bv",
        "100Gi",
    )
