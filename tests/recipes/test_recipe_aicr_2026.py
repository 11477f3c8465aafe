"""The unmodified AICR catalog of July 2026 (`aicr.run/v1alpha2`) loads with no error and no
warning, and every overlay resolves by its own criteria, with AICR's results."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from recipes import Catalog, RecipeCriteria, RecipeError, component_values, hydrate, resolve
from recipes.cli import main
from tests.recipes.aicr_overlays import OVERLAYS_2026
from tests.recipes.recipe_helpers import resolve_own

GB200_EKS_TRAINING = RecipeCriteria(service="eks", accelerator="gb200", intent="training")


def test_catalog_loads_every_file_with_no_warning(aicr2026: Catalog, aicr2026_dir: Path) -> None:
    overlays = sorted((aicr2026_dir / "overlays").glob("*.yaml"))
    mixins = sorted((aicr2026_dir / "mixins").glob("*.yaml"))
    assert len(overlays) + len(mixins) + 1 == 103  # every catalog document of the issue
    assert len(aicr2026.overlays) == 98 == len(OVERLAYS_2026) + 1
    assert sorted(aicr2026.overlays) == sorted([*OVERLAYS_2026, "base"])
    assert len(aicr2026.mixins) == 4
    assert len(aicr2026.registry) == 33
    assert aicr2026.warnings == []
    versions = {o.api_version for o in aicr2026.overlays.values()}
    versions |= {m.api_version for m in aicr2026.mixins.values()}
    assert versions == {"aicr.run/v1alpha2"}
    gpu = aicr2026.registry["gpu-operator"]
    assert gpu.hasSelfRefCRDs and gpu.gkeCriticalPriority
    assert aicr2026.registry["network-operator"].manifestsUseChartCRDs
    assert aicr2026.registry["kube-prometheus-stack"].storageClassPaths


@pytest.mark.parametrize("name", OVERLAYS_2026)
def test_every_overlay_resolves_by_its_own_criteria(aicr2026: Catalog, name: str) -> None:
    resolve_own(aicr2026, name)


def test_gb200_eks_training(aicr2026: Catalog) -> None:
    """The issue's done-when query: pre-manifests, health checks, nulls deleted."""
    result = resolve(aicr2026, GB200_EKS_TRAINING)
    assert result.metadata.appliedOverlays == [
        "base",
        "monitoring-hpa",
        "gb200-any",
        "eks",
        "eks-training",
        "gb200-eks-training",
    ]
    gpu = result.component("gpu-operator")
    assert gpu is not None
    assert gpu.preManifestFiles == ["components/gpu-operator/manifests/kernel-module-params.yaml"]
    for ref in result.all_refs():  # every component's registry health check, inlined
        assert_file = aicr2026.registry[ref.name].healthCheck.assertFile
        assert assert_file, ref.name
        assert ref.healthCheckAsserts == aicr2026.read_text(assert_file), ref.name
    assert "kind: Test" in gpu.healthCheckAsserts  # a Chainsaw test
    # eks.yaml sets `emptyDir: null` and `nodeAffinity: null`: the keys are deleted.
    prometheus = component_values(aicr2026, result, "kube-prometheus-stack")["prometheus"]
    storage = prometheus["prometheusSpec"]["storageSpec"]
    assert "emptyDir" not in storage
    assert storage["volumeClaimTemplate"]["spec"]["resources"] == {"requests": {"storage": "50Gi"}}
    # The DRA driver's values file has no controller.affinity, so AICR's mergeValues takes
    # the overlay's map as written, null and all; Helm then deletes the chart's default.
    dra = component_values(aicr2026, result, "nvidia-dra-driver-gpu")
    assert dra["controller"]["affinity"] == {"nodeAffinity": None}
    stack = result.component("kube-prometheus-stack")
    assert stack is not None  # the null stays in the ref's overrides, as in AICR's result
    assert stack.overrides["prometheus"]["prometheusSpec"]["storageSpec"]["emptyDir"] is None
    # Validation phases merged field by field: eks-training's checks kept, the leaf's added.
    assert result.validation is not None and result.validation.deployment is not None
    assert "check-nvidia-smi" in (result.validation.deployment.checks or [])


def test_gb200_eks_training_from_the_cli(
    aicr2026_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["recipe", "--data", str(aicr2026_dir), "--service", "eks", "--gpu", "gb200"]
    assert main([*argv, "--intent", "training"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    doc = yaml.safe_load(captured.out)
    refs = {c["name"]: c for c in doc["componentRefs"]}
    assert refs["gpu-operator"]["preManifestFiles"] == [
        "components/gpu-operator/manifests/kernel-module-params.yaml"
    ]
    assert all(c["healthCheckAsserts"] for c in refs.values())


def test_the_os_guard(aicr2026: Catalog) -> None:
    """Every GKE overlay is OS-gated: an OS-less GKE query is refused naming the OS."""
    with pytest.raises(RecipeError) as err:
        resolve(aicr2026, RecipeCriteria(service="gke", accelerator="h100", intent="training"))
    assert str(err.value) == (
        "service 'gke' has no OS-agnostic recipe for accelerator 'h100'; specify an OS (valid: cos)"
    )
    cos = resolve(aicr2026, RecipeCriteria(service="gke", accelerator="h100", os="cos"))
    assert "h100-gke-cos-training" not in cos.metadata.appliedOverlays
    assert "gke-cos" in cos.metadata.appliedOverlays
    # EKS has an OS-agnostic recipe for h100 (h100-eks-training): no OS needed.
    assert (
        "h100-eks-training"
        in resolve(
            aicr2026, RecipeCriteria(service="eks", accelerator="h100", intent="training")
        ).metadata.appliedOverlays
    )


def test_aliases(aicr2026: Catalog) -> None:
    """`openshift` is `ocp`; `al2023` is `amazonlinux` (AICR's ParseService / ParseOS)."""
    ocp = resolve(aicr2026, RecipeCriteria(service="OpenShift", intent="training"))
    assert ocp.criteria.service == "ocp"
    assert "ocp-training" in ocp.metadata.appliedOverlays
    al = resolve(aicr2026, RecipeCriteria(service="eks", os="al2023"))
    assert al.criteria.os == "amazonlinux"


def test_disabled_components_stay_marked_disabled(aicr2026: Catalog) -> None:
    """OCP disables the upstream operators (it installs them through OLM)."""
    result = resolve(aicr2026, RecipeCriteria(service="ocp", intent="training"))
    assert "gpu-operator" in result.metadata.disabledComponents
    assert result.component("gpu-operator") is None
    ref = result.ref("gpu-operator")
    assert ref is not None and ref.overrides["enabled"] is False
    assert ref.healthCheckAsserts  # hydrated even though disabled, as AICR does
    assert "gpu-operator" not in result.deploymentOrder
    names = [c["name"] for c in result.to_dict()["componentRefs"]]
    assert "gpu-operator" in names and names == sorted(names)
    assert "gpu-operator" in hydrate(aicr2026, result)["components"]
    # nvsentinel depends on the disabled cert-manager: the edge counts as satisfied.
    assert "gpu-operator-ocp" in result.deploymentOrder


def test_hydrated_recipe_has_aicrs_shape(aicr2026: Catalog) -> None:
    result = resolve(aicr2026, GB200_EKS_TRAINING)
    doc = hydrate(aicr2026, result)
    assert list(doc) == [
        "kind",
        "apiVersion",
        "metadata",
        "deploymentOrder",
        "criteria",
        "constraints",
        "components",
    ]
    assert doc["criteria"] == {
        "service": "eks",
        "accelerator": "gb200",
        "os": "any",
        "intent": "training",
        "platform": "any",
        "nodes": 0,
    }
    gpu = doc["components"]["gpu-operator"]
    assert set(gpu) == {
        "name",
        "type",
        "source",
        "namespace",
        "chart",
        "version",
        "dependencyRefs",
        "values",
    }
    assert gpu["values"]["gdrcopy"] == {"enabled": True}
