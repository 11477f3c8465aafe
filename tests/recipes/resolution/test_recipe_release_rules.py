"""Each rule that changed between AICR v0.11.1 and AICR of July 2026, on both shared
catalogs: v0.11.1's (`aicr.nvidia.com/v1alpha1`) resolves by v0.11.1's rule, the 2026 one
(`aicr.run/v1alpha2`) by today's (`recipes/model/semantics.py` names the AICR change of each)."""

from __future__ import annotations

from pathlib import Path

import pytest

from recipes import PROJECT_CATALOG, Catalog, RecipeCriteria, RecipeError, load_catalog, resolve
from recipes import component_values as values_of
from recipes.catalogs.catalog import semantics_of
from recipes.model.criteria_values import V0_11_1, canonical
from recipes.model.semantics import TODAY_SEMANTICS, V0_11_1_SEMANTICS
from recipes.resolution.defaults import with_health_check
from recipes.resolution.resolver import matching_overlays
from recipes.resolution.values import merge_values
from tests.recipes.recipe_helpers import CURRENT, V1, WriteCatalog, overlay, registry

EKS_H100_KUBEFLOW = RecipeCriteria(
    service="eks", accelerator="h100", os="ubuntu", intent="training", platform="kubeflow"
)
REFUSAL = (
    "--{field} {value}: unknown value{hint}; this catalog's format (aicr.nvidia.com/v1alpha1) "
    "is AICR v0.11.1's, which accepts only its own values, not those the catalog's overlays "
    "add; valid values: {valid} (or any)"
)
SERVICES = "aks, eks, gke, kind, oke"


def test_each_catalog_resolves_by_its_formats_release(aicr: Catalog, aicr2026: Catalog) -> None:
    assert semantics_of(aicr) is V0_11_1_SEMANTICS
    assert semantics_of(aicr2026) is TODAY_SEMANTICS
    assert semantics_of(load_catalog(None)) is TODAY_SEMANTICS


def test_layered_catalogs_take_the_newest_formats_release(aicr_dir: Path) -> None:
    """The project's catalog over v0.11.1's, as a stack layers them: today's rules."""
    assert semantics_of(load_catalog([aicr_dir, PROJECT_CATALOG])) is TODAY_SEMANTICS


def test_a_null_override_is_kept_by_v0_11_1_and_deletes_today(
    aicr: Catalog, aicr2026: Catalog
) -> None:
    """AICR PR #458: v0.11.1 handed `emptyDir: null` to Helm, today's AICR drops the key."""
    old = resolve(aicr, RecipeCriteria(service="eks"))
    storage = values_of(aicr, old, "kube-prometheus-stack")["prometheus"]["prometheusSpec"]
    assert storage["storageSpec"]["emptyDir"] is None
    assert storage["storageSpec"]["volumeClaimTemplate"]["spec"]["storageClassName"] == "gp2"
    new = resolve(aicr2026, RecipeCriteria(service="eks"))
    storage = values_of(aicr2026, new, "kube-prometheus-stack")["prometheus"]["prometheusSpec"]
    assert "emptyDir" not in storage["storageSpec"]
    assert "volumeClaimTemplate" in storage["storageSpec"]


@pytest.mark.parametrize(
    ("null_deletes", "expected"), [(True, {"b": 2}), (False, {"a": None, "b": 2})]
)
def test_merge_values_by_release(null_deletes: bool, expected: dict[str, object]) -> None:
    dst: dict[str, object] = {"a": {"medium": ""}, "b": 1}
    merge_values(dst, {"a": None, "b": 2}, null_deletes=null_deletes)
    assert dst == expected


@pytest.mark.parametrize(
    ("field", "value", "hint", "valid"),
    [
        ("service", "lke", " (did you mean 'oke'?)", SERVICES),
        ("service", "bcm", "", SERVICES),
        ("service", "openshift", "", SERVICES),
        ("os", "ol", "", "amazonlinux, cos, rhel, ubuntu"),
        ("accelerator", "h200", " (did you mean 'h100'?)", "a100, gb200, h100, l40"),
        ("platform", "nim", "", "dynamo, kubeflow"),
    ],
)
def test_v0_11_1_refuses_values_it_did_not_know(
    aicr: Catalog, field: str, value: str, hint: str, valid: str
) -> None:
    """AICR PR #999 opened the values to the catalog's; v0.11.1 took only its own."""
    with pytest.raises(RecipeError) as err:
        resolve(aicr, RecipeCriteria.model_validate({field: value}))
    assert str(err.value) == REFUSAL.format(field=field, value=value, hint=hint, valid=valid)


@pytest.mark.parametrize(
    ("criteria", "overlay_name"),
    [
        ({"service": "lke"}, "lke"),
        ({"service": "bcm"}, "bcm"),
        ({"service": "openshift"}, "ocp"),  # today's alias
        ({"service": "oke", "os": "ol"}, "oke-ol"),
        ({"service": "eks", "accelerator": "h200"}, "h200-any"),
    ],
)
def test_today_takes_them(aicr2026: Catalog, criteria: dict[str, str], overlay_name: str) -> None:
    result = resolve(aicr2026, RecipeCriteria.model_validate(criteria))
    assert result.metadata.appliedOverlays[-1] == overlay_name


def test_openshift_is_an_alias_only_since_ocp_came() -> None:
    assert canonical("service", "OpenShift") == "ocp"
    assert canonical("service", "OpenShift", V0_11_1) == "openshift"
    assert canonical("service", "vanilla", V0_11_1) == "any"


def test_gke_h100_without_an_os(aicr: Catalog, aicr2026: Catalog) -> None:
    """AICR PR #1510 (issue #1534): v0.11.1 matched no gke overlay (each pins `os: cos`)
    and answered the generic chain; today the query is refused, naming the OS to give."""
    query = RecipeCriteria(service="gke", accelerator="h100", intent="training")
    old = resolve(aicr, query)
    assert old.metadata.appliedOverlays == ["base", "monitoring-hpa"]
    assert old.warnings == []  # monitoring-hpa applied: not the base-only warning
    with pytest.raises(RecipeError) as err:
        resolve(aicr2026, query)
    assert str(err.value) == (
        "service 'gke' has no OS-agnostic recipe for accelerator 'h100'; specify an OS (valid: cos)"
    )


def test_candidates_are_every_match_in_v0_11_1_and_maximal_leaves_today(
    aicr: Catalog, aicr2026: Catalog
) -> None:
    """AICR PR #496: ancestors of another match stop being candidates (they still apply
    through the descendant's chain)."""
    query = EKS_H100_KUBEFLOW.normalized()
    assert [o.name for o in matching_overlays(aicr, query)] == [
        "monitoring-hpa",
        "eks",
        "eks-training",
        "h100-eks-training",
        "h100-eks-ubuntu-training",
        "h100-eks-ubuntu-training-kubeflow",
    ]
    assert [o.name for o in matching_overlays(aicr2026, query)] == [
        "monitoring-hpa",
        "h100-any",
        "h100-eks-ubuntu-training-kubeflow",
    ]


@pytest.mark.parametrize(("api", "version"), [(V1, "x"), (CURRENT, "p")])
def test_an_ancestor_candidate_changes_the_merge_order(
    write_catalog: WriteCatalog, api: str, version: str
) -> None:
    """p is c's parent and less specific than x: as a candidate of its own (v0.11.1) it
    merges before x; reached only through c's chain (today) it merges after x."""
    root = write_catalog(
        {
            "registry.yaml": registry("a", api=api),
            "overlays/base.yaml": overlay("base", api, componentRefs=[{"name": "a"}]),
            "overlays/p.yaml": overlay(
                "p", api, criteria={"service": "eks"}, componentRefs=[{"name": "a", "version": "p"}]
            ),
            "overlays/x.yaml": overlay(
                "x",
                api,
                criteria={"service": "eks", "accelerator": "h100"},
                componentRefs=[{"name": "a", "version": "x"}],
            ),
            "overlays/c.yaml": overlay(
                "c",
                api,
                base="p",
                criteria={"service": "eks", "accelerator": "h100", "intent": "training"},
            ),
        }
    )
    query = RecipeCriteria(service="eks", accelerator="h100", intent="training")
    result = resolve(load_catalog([root]), query)
    order = ["base", "p", "x", "c"] if api == V1 else ["base", "x", "p", "c"]
    assert result.metadata.appliedOverlays == order
    assert [c.version for c in result.componentRefs] == [version]


def test_health_checks_are_inlined_only_today(aicr: Catalog, aicr2026: Catalog) -> None:
    """AICR PR #1231: v0.11.1's recipe carried no asserts (its validator read the registry's
    file, which `with_health_check` still gives); today's inlines them."""
    old = resolve(aicr, RecipeCriteria(service="kind", accelerator="h100", intent="training"))
    assert [r.name for r in old.all_refs() if r.healthCheckAsserts] == []
    operator = old.component("gpu-operator")
    assert operator is not None
    registry_check = aicr.read_text(aicr.registry["gpu-operator"].healthCheck.assertFile)
    assert with_health_check(aicr, operator).healthCheckAsserts == registry_check
    new = resolve(aicr2026, RecipeCriteria(service="kind", accelerator="h100", intent="training"))
    inlined = new.component("gpu-operator")
    assert inlined is not None
    path = aicr2026.registry["gpu-operator"].healthCheck.assertFile
    assert inlined.healthCheckAsserts == aicr2026.read_text(path)


def test_validation_phases_replace_in_v0_11_1_and_merge_today(
    aicr: Catalog, aicr2026: Catalog
) -> None:
    """AICR issue #1000: a leaf's conformance block replaced the chain's in v0.11.1 (the
    leaf's own list, in its own order), and is unioned with it today (a Slurm leaf naming
    one check keeps every inherited one)."""
    leaf = aicr.overlays["h100-kind-inference"].doc.spec.validation
    old = resolve(aicr, RecipeCriteria(service="kind", accelerator="h100", intent="inference"))
    assert leaf is not None and leaf.conformance and old.validation and old.validation.conformance
    assert old.validation.conformance.checks == leaf.conformance.checks
    assert (leaf.conformance.checks or [])[3] == "secure-accelerator-access"  # kind's: 6th
    leaf = aicr2026.overlays["h100-eks-ubuntu-training-slurm"].doc.spec.validation
    new = resolve(
        aicr2026,
        RecipeCriteria(
            service="eks", accelerator="h100", os="ubuntu", intent="training", platform="slurm"
        ),
    )
    assert leaf is not None and leaf.conformance and new.validation and new.validation.conformance
    assert leaf.conformance.checks == ["slinky-slurm-health"]
    assert new.validation.conformance.checks == [
        "platform-health",
        "gpu-operator-health",
        "dra-support",
        "accelerator-metrics",
        "ai-service-metrics",
        "gang-scheduling",
        "pod-autoscaling",
        "cluster-autoscaling",
        "robust-controller",
        "secure-accelerator-access",
        "slinky-slurm-health",
    ]
