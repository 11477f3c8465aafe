"""The project's own catalog: alone, and layered over AICR's."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from recipes import (
    PROJECT_CATALOG,
    Catalog,
    RecipeCriteria,
    component_values,
    load_catalog,
    resolve,
)

KIND_TRAINING = RecipeCriteria(
    service="kind", accelerator="a10", intent="training", platform="kubeflow"
)


@pytest.fixture(scope="module")
def project() -> Catalog:
    return load_catalog([PROJECT_CATALOG])


@pytest.fixture(scope="module")
def layered(aicr_dir: Path) -> Catalog:
    return load_catalog([aicr_dir, PROJECT_CATALOG])


def test_default_catalog_is_the_projects() -> None:
    assert load_catalog().roots == (PROJECT_CATALOG,)


def test_kind_a10_training_kubeflow_alone(project: Catalog) -> None:
    result = resolve(project, KIND_TRAINING)
    assert result.metadata.appliedOverlays == ["kind-a10", "kind-a10-training-kubeflow"]
    assert result.deploymentOrder == ["gpu-time-slicing", "gpu-operator", "kubeflow-trainer"]
    versions = {c.name: (c.version, c.namespace) for c in result.componentRefs}
    assert versions == {
        "gpu-operator": ("v26.7.0", "gpu-operator"),
        "gpu-time-slicing": ("", "gpu-operator"),
        "kubeflow-trainer": ("2.3.0", "kubeflow-system"),
    }
    gpu = component_values(project, result, "gpu-operator")
    assert gpu["driver"] == {"enabled": False}
    assert gpu["toolkit"] == {"enabled": False}
    assert gpu["cdi"]["enabled"] is True
    assert gpu["devicePlugin"]["config"] == {"name": "gpu-time-slicing-config", "default": "any"}
    trainer = component_values(project, result, "kubeflow-trainer")
    assert trainer["jobset"] == {"install": True}
    assert trainer["runtimes"]["torchtuneDistributed"]["qwen2_5_1_5B"]["enabled"] is True
    constraints = {c.name: c.value for c in result.constraints}
    assert constraints["K8s.server.version"] == ">= 1.33"


def test_time_slicing_manifest_is_upstreams(project: Catalog, upstream: Path) -> None:
    result = resolve(project, KIND_TRAINING)
    ref = result.component("gpu-time-slicing")
    assert ref is not None and len(ref.manifestFiles) == 1
    ours = yaml.safe_load(project.files[ref.manifestFiles[0]].read_text())
    theirs = yaml.safe_load((upstream / "kubeflow-trainer/gpu-time-slicing.yml").read_text())
    assert ours == theirs
    assert ours["metadata"]["name"] == "gpu-time-slicing-config"
    sharing = yaml.safe_load(ours["data"]["any"])["sharing"]["timeSlicing"]["resources"]
    assert sharing == [{"name": "nvidia.com/gpu", "replicas": 2}]


def test_oke_a10_keeps_the_image_driver(project: Catalog) -> None:
    result = resolve(project, RecipeCriteria(service="oke", accelerator="a10"))
    assert result.metadata.appliedOverlays == ["oke-a10"]
    assert result.deploymentOrder == ["gpu-operator"]
    gpu = component_values(project, result, "gpu-operator")
    assert gpu["driver"]["enabled"] is False
    # OKE's NvidiaGpuPlugin add-on advertises the GPUs: no second device plugin, and so no
    # time-slicing outside the CI's kind clusters; the operator keeps the DCGM exporter.
    assert gpu["devicePlugin"] == {"enabled": False}
    assert gpu.get("dcgmExporter", {}).get("enabled", True) is True


def test_layered_over_aicr_extends_aicr(layered: Catalog) -> None:
    result = resolve(layered, KIND_TRAINING)
    assert result.metadata.appliedOverlays == [
        "base",
        "monitoring-hpa",
        "kind",
        "kind-a10",
        "kind-a10-training-kubeflow",
    ]
    gpu = result.component("gpu-operator")
    assert gpu is not None and gpu.version == "v26.7.0"
    # AICR's base dependencies are kept and the project's one is added.
    assert gpu.dependencyRefs == ["cert-manager", "kube-prometheus-stack", "gpu-time-slicing"]
    assert "dcgm-exporter.yaml" in gpu.manifestFiles[0]
    values = component_values(layered, result, "gpu-operator")
    assert values["driver"]["enabled"] is False
    assert values["devicePlugin"]["config"]["name"] == "gpu-time-slicing-config"
    assert values["operator"]["resources"]["limits"]["cpu"] == "500m"  # AICR kind overrides
    order = result.deploymentOrder
    assert order.index("gpu-time-slicing") < order.index("gpu-operator")
    assert order.index("kube-prometheus-stack") < order.index("gpu-operator")
    trainer = result.component("kubeflow-trainer")
    assert trainer is not None and (trainer.version, trainer.namespace) == (
        "2.3.0",
        "kubeflow-system",
    )
    # The registry merges by name: AICR's other components keep their entries.
    assert layered.registry["cert-manager"].helm is not None


def test_layered_catalog_still_resolves_aicr_overlays(layered: Catalog) -> None:
    result = resolve(layered, RecipeCriteria(service="kind", accelerator="h100", intent="training"))
    assert "kind-a10" not in result.metadata.appliedOverlays
    gpu = result.component("gpu-operator")
    # The project's registry moved the default version, but AICR's base pins its own.
    assert gpu is not None and gpu.version == "v25.10.1"
