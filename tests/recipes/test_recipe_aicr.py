"""The unmodified AICR v0.11.1 catalog (`aicr.nvidia.com/v1alpha1`) loads and resolves
with AICR's results."""

from __future__ import annotations

from pathlib import Path

import pytest

from recipes import Catalog, RecipeCriteria, component_values, load_catalog, resolve
from recipes.catalogs.yamlfiles import load_yaml
from tests.recipes.recipe_helpers import resolve_own

# The overlays of the pinned v0.11.1 catalog besides `base`, named here rather than globbed
# at collection: without the data (a public clone) each case still runs into the `upstream`
# fixture, which skips it (or fails it where GPU_CI_REQUIRE_UPSTREAM=1), instead of pytest
# dropping the whole parametrization as an empty parameter set.
OVERLAYS = (
    "aks-inference",
    "aks-training",
    "aks",
    "eks-inference",
    "eks-training",
    "eks",
    "gb200-eks-inference",
    "gb200-eks-training",
    "gb200-eks-ubuntu-inference-dynamo",
    "gb200-eks-ubuntu-inference",
    "gb200-eks-ubuntu-training-kubeflow",
    "gb200-eks-ubuntu-training",
    "gke-cos-inference",
    "gke-cos-training",
    "gke-cos",
    "h100-aks-inference",
    "h100-aks-training",
    "h100-aks-ubuntu-inference-dynamo",
    "h100-aks-ubuntu-inference",
    "h100-aks-ubuntu-training-kubeflow",
    "h100-aks-ubuntu-training",
    "h100-eks-inference",
    "h100-eks-training",
    "h100-eks-ubuntu-inference-dynamo",
    "h100-eks-ubuntu-inference",
    "h100-eks-ubuntu-training-kubeflow",
    "h100-eks-ubuntu-training",
    "h100-gke-cos-inference-dynamo",
    "h100-gke-cos-inference",
    "h100-gke-cos-training-kubeflow",
    "h100-gke-cos-training",
    "h100-kind-inference-dynamo",
    "h100-kind-inference",
    "h100-kind-training",
    "kind-inference",
    "kind",
    "monitoring-hpa",
)


def test_catalog_loads_every_overlay(aicr: Catalog, aicr_dir: Path) -> None:
    files = sorted((aicr_dir / "overlays").glob("*.yaml"))
    assert len(files) == len(aicr.overlays) == 38
    assert sorted(aicr.overlays) == sorted([*OVERLAYS, "base"])
    assert aicr.base is not None and aicr.base.rel == "overlays/base.yaml"
    assert {o.api_version for o in aicr.overlays.values()} == {"aicr.nvidia.com/v1alpha1"}
    assert len(aicr.registry) == 19
    # v0.11.1's registry gives gke-nccl-tcpxo a `manifest:` block, which AICR's registry
    # type has no field for: it ignored it, and so does gpu-ci, saying so once.
    assert aicr.warnings == [
        "recipe catalog: 1 key(s) its format does not define, ignored as aicr ignores "
        "them: registry.yaml: components[2].manifest"
    ]


@pytest.mark.parametrize("name", OVERLAYS)
def test_every_overlay_resolves_by_its_own_criteria(aicr: Catalog, name: str) -> None:
    resolve_own(aicr, name)


def test_a_known_accelerator_no_overlay_names_gets_the_generic_chain(aicr: Catalog) -> None:
    """a100 is an AICR value the v0.11.1 catalog has no overlay for: AICR's generic chain."""
    result = resolve(aicr, RecipeCriteria(service="eks", accelerator="a100", intent="training"))
    assert result.metadata.appliedOverlays == ["base", "monitoring-hpa", "eks", "eks-training"]
    rhel = resolve(aicr, RecipeCriteria(service="eks", os="rhel"))
    assert rhel.metadata.appliedOverlays == ["base", "monitoring-hpa", "eks"]


def test_h100_eks_ubuntu_training_kubeflow(aicr: Catalog) -> None:
    result = resolve(
        aicr,
        RecipeCriteria(
            service="eks", accelerator="h100", os="ubuntu", intent="training", platform="kubeflow"
        ),
    )
    assert result.metadata.appliedOverlays == [
        "base",
        "monitoring-hpa",
        "eks",
        "eks-training",
        "h100-eks-training",
        "h100-eks-ubuntu-training",
        "h100-eks-ubuntu-training-kubeflow",
    ]
    versions = {c.name: c.version for c in result.componentRefs}
    assert versions == {
        "aws-ebs-csi-driver": "2.55.0",
        "aws-efa": "v0.5.3",
        "cert-manager": "v1.17.2",
        "gpu-operator": "v25.10.1",
        "k8s-ephemeral-storage-metrics": "1.19.2",
        "kai-scheduler": "v0.13.0",
        "kube-prometheus-stack": "82.8.0",
        # Not set by any overlay: the registry's defaultVersion fills it.
        "kubeflow-trainer": "2.1.0",
        "nvidia-dra-driver-gpu": "25.12.0",
        "nvsentinel": "v1.1.0",
        "prometheus-adapter": "5.3.0",
        "skyhook-customizations": "",
        "skyhook-operator": "v0.14.0",
    }
    trainer = result.component("kubeflow-trainer")
    assert trainer is not None
    assert (trainer.namespace, trainer.source, trainer.chart) == (
        "kubeflow",
        "oci://ghcr.io/kubeflow/charts",
        "kubeflow-trainer",
    )
    constraints = {c.name: c.value for c in result.constraints}
    assert constraints == {
        "K8s.server.version": ">= 1.32.4",
        "OS.release.ID": "ubuntu",
        "OS.release.VERSION_ID": "24.04",
        "OS.sysctl./proc/sys/kernel/osrelease": ">= 6.8",
    }
    values = component_values(aicr, result, "gpu-operator")
    assert values["driver"]["enabled"] is True
    assert values["driver"]["version"] == "580.105.08"
    assert values["cdi"] == {"enabled": True, "default": False}  # values-eks-training.yaml
    assert values["gdrcopy"] == {"enabled": True}  # h100-eks-training overrides
    order = result.deploymentOrder
    assert order.index("skyhook-customizations") < order.index("gpu-operator")
    assert order.index("gpu-operator") < order.index("kubeflow-trainer")
    assert result.validation is not None and result.validation.performance is not None
    assert (result.validation.performance.constraints or [])[0].value == ">= 300"


def test_h100_kind_training(aicr: Catalog) -> None:
    result = resolve(aicr, RecipeCriteria(service="kind", accelerator="h100", intent="training"))
    assert result.metadata.appliedOverlays == [
        "base",
        "monitoring-hpa",
        "kind",
        "h100-kind-training",
    ]
    assert result.deploymentOrder == [
        "cert-manager",
        "kube-prometheus-stack",
        "gpu-operator",
        "k8s-ephemeral-storage-metrics",
        "kai-scheduler",
        "network-operator",
        "nvidia-dra-driver-gpu",
        "nvsentinel",
        "prometheus-adapter",
        "skyhook-operator",
    ]
    assert [(c.name, c.value) for c in result.constraints] == [("K8s.server.version", ">= 1.34")]
    values = component_values(aicr, result, "gpu-operator")
    assert values["driver"]["enabled"] is False
    assert values["driver"]["rdma"] == {"enabled": False}
    assert values["driver"]["version"] == "580.105.08"  # from values.yaml, kept by deep merge
    assert values["toolkit"]["enabled"] is False
    assert values["devicePlugin"]["env"] == []  # kind overrides replace the CDI env list
    dra = component_values(aicr, result, "nvidia-dra-driver-gpu")
    assert dra["nvidiaDriverRoot"] == "/"
    conformance = result.validation.conformance if result.validation else None
    assert conformance is not None and "gang-scheduling" in (conformance.checks or [])


def test_h100_gke_cos_training(aicr: Catalog) -> None:
    result = resolve(
        aicr, RecipeCriteria(service="gke", accelerator="h100", os="cos", intent="training")
    )
    gpu = result.component("gpu-operator")
    assert gpu is not None
    assert gpu.valuesFile == "components/gpu-operator/values-gke-cos-training.yaml"
    tcpxo = result.component("gke-nccl-tcpxo")
    assert tcpxo is not None and tcpxo.manifestFiles == [
        "components/gke-nccl-tcpxo/manifests/nccl-tcpxo-installer.yaml",
        "components/gke-nccl-tcpxo/manifests/nri-device-injector.yaml",
    ]
    values = component_values(aicr, result, "gpu-operator")
    assert values["driver"]["enabled"] is False  # GKE COS ships the driver
    assert values["cdi"] == {"enabled": True, "default": True}
    assert values["toolkit"]["installDir"] == "/home/kubernetes/bin/nvidia"
    assert "aws-efa" not in result.deploymentOrder


def test_generic_query_gets_only_generic_overlays(aicr: Catalog) -> None:
    result = resolve(aicr, RecipeCriteria(service="eks"))
    assert result.metadata.appliedOverlays == ["base", "monitoring-hpa", "eks"]


def test_catalog_files_are_parsed_once(aicr_dir: Path) -> None:
    first = load_catalog([aicr_dir])
    second = load_catalog([aicr_dir])
    assert first.overlays["kind"].doc == second.overlays["kind"].doc
    rel = "components/gpu-operator/values.yaml"
    assert load_yaml(aicr_dir / rel, rel) is load_yaml(aicr_dir / rel, rel)
