"""AICR's behaviour-pinning tests (NVIDIA/aicr `pkg/recipe`, `pkg/cli`), ported.

Each test names the AICR test it mirrors; the cases are AICR's, on gpu-ci's API.
"""

from __future__ import annotations

from typing import Any

import pytest

from recipes import RecipeCriteria, RecipeError, load_catalog, resolve
from recipes.model.criteria_values import canonical, unknown_value
from recipes.model.overlays import ComponentRef, Constraint, ExpectedResource, RecipeSpec
from recipes.model.validation import Validation, ValidationPhase, merge_phase, merge_validation
from recipes.resolution.guards import NO_CRITERIA
from recipes.resolution.hydrate import select_path
from recipes.resolution.merge import MergedSpec, merge_component
from recipes.resolution.ordering import deployment_order
from recipes.resolution.values import component_values
from tests.recipes.recipe_helpers import WriteCatalog, mixin, overlay, registry

K8S = "K8s.server.version"


def ref(name: str = "test", **fields: Any) -> ComponentRef:
    return ComponentRef(name=name, **fields)


def order(*refs: ComponentRef) -> list[str]:
    deps = {r.name: r.dependencyRefs for r in refs}
    return deployment_order(deps, {r.name for r in refs if not r.is_enabled()})


def test_recipe_metadata_spec_topological_sort() -> None:
    """TestRecipeMetadataSpecTopologicalSort (metadata_test.go)."""
    off = {"enabled": False}
    assert order(ref("cert-manager"), ref("gpu-operator")) == ["cert-manager", "gpu-operator"]
    assert order(
        ref("cert-manager"),
        ref("gpu-operator", dependencyRefs=["cert-manager"]),
        ref("nvidia-dra-driver-gpu", dependencyRefs=["gpu-operator"]),
    ) == ["cert-manager", "gpu-operator", "nvidia-dra-driver-gpu"]
    assert order(  # diamond: the two middle ones alphabetically
        ref("cert-manager"),
        ref("gpu-operator", dependencyRefs=["cert-manager"]),
        ref("network-operator", dependencyRefs=["cert-manager"]),
        ref("nvsentinel", dependencyRefs=["gpu-operator", "network-operator"]),
    ) == ["cert-manager", "gpu-operator", "network-operator", "nvsentinel"]
    # "disabled leaf component excluded from order"
    assert order(
        ref("cert-manager"),
        ref("gpu-operator"),
        ref("k8s-ephemeral-storage-metrics", overrides=off),
    ) == ["cert-manager", "gpu-operator"]
    # "disabled dependency treated as externally satisfied"
    assert order(
        ref("cert-manager", overrides=off),
        ref("gpu-operator", dependencyRefs=["cert-manager"]),
        ref("nvsentinel", dependencyRefs=["cert-manager", "gpu-operator"]),
    ) == ["gpu-operator", "nvsentinel"]
    # "undeclared dependency still surfaces as an error"
    with pytest.raises(RecipeError, match="depends on unknown component"):
        order(ref("gpu-operator", dependencyRefs=["cert-manager"]))


@pytest.mark.parametrize(
    "refs",
    [
        [ref("cert-manager", dependencyRefs=["cert-manager"])],
        [ref("A", dependencyRefs=["B"]), ref("B", dependencyRefs=["A"])],
        [
            ref("A", dependencyRefs=["B"]),
            ref("B", dependencyRefs=["C"]),
            ref("C", dependencyRefs=["A"]),
        ],
    ],
)
def test_recipe_metadata_spec_validate_dependencies_cycles(refs: list[ComponentRef]) -> None:
    """TestRecipeMetadataSpecValidateDependencies: self, two- and three-node cycles."""
    with pytest.raises(RecipeError, match="dependency cycle among components"):
        order(*refs)


def test_component_ref_merge_inherits_from_base() -> None:
    """TestComponentRefMergeInheritsFromBase."""
    base = ref(
        "cert-manager",
        type="Helm",
        source="https://charts.jetstack.io",
        version="v1.17.2",
        valuesFile="components/cert-manager/values.yaml",
    )
    top = ref("cert-manager", type="Helm", valuesFile="components/cert-manager/tainted-values.yaml")
    merged = merge_component(base, top)
    assert (merged.source, merged.version) == ("https://charts.jetstack.io", "v1.17.2")
    assert merged.valuesFile == "components/cert-manager/tainted-values.yaml"


def test_merge_component_ref_advanced_fields() -> None:
    """TestMergeComponentRef_AdvancedFields."""
    m = merge_component
    merged = m(ref(overrides={"driver.enabled": True}), ref(overrides={"gds.enabled": True}))
    assert merged.overrides == {"driver.enabled": True, "gds.enabled": True}
    assert m(ref(), ref(overrides={"key": "val"})).overrides == {"key": "val"}
    assert m(ref(patches=["base-patch.yaml"]), ref(patches=["overlay-patch.yaml"])).patches == [
        "overlay-patch.yaml"
    ]
    deps = m(ref(dependencyRefs=["dep-a"]), ref(dependencyRefs=["dep-b", "dep-c"]))
    assert deps.dependencyRefs == ["dep-a", "dep-b", "dep-c"]
    deps = m(ref(dependencyRefs=["dep-a", "dep-b"]), ref(dependencyRefs=["dep-b", "dep-c"]))
    assert deps.dependencyRefs == ["dep-a", "dep-b", "dep-c"]
    assert m(
        ref(dependencyRefs=["dep-a"]), ref(dependencyRefs=["dep-b", "dep-b"])
    ).dependencyRefs == [
        "dep-a",
        "dep-b",
    ]
    files = m(ref(manifestFiles=["a.yaml", "b.yaml"]), ref(manifestFiles=["b.yaml", "c.yaml"]))
    assert files.manifestFiles == ["a.yaml", "b.yaml", "c.yaml"]
    assert m(ref(), ref(preManifestFiles=["ns.yaml"])).preManifestFiles == ["ns.yaml"]
    assert m(ref(preManifestFiles=["ns.yaml"]), ref()).preManifestFiles == ["ns.yaml"]
    pre = m(ref(preManifestFiles=["a.yaml", "b.yaml"]), ref(preManifestFiles=["b.yaml", "c.yaml"]))
    assert pre.preManifestFiles == ["a.yaml", "b.yaml", "c.yaml"]
    assert m(
        ref(preManifestFiles=["a.yaml"]), ref(preManifestFiles=["b.yaml", "b.yaml"])
    ).preManifestFiles == [
        "a.yaml",
        "b.yaml",
    ]
    assert m(ref(tag="v1.0"), ref(tag="v2.0")).tag == "v2.0"
    gpu = ExpectedResource(kind="Deployment", name="gpu-operator", namespace="gpu-operator")
    ds = [
        ExpectedResource(kind="DaemonSet", name="nvidia-driver", namespace="gpu-operator"),
        ExpectedResource(kind="DaemonSet", name="dcgm-exporter", namespace="gpu-operator"),
    ]
    assert m(ref(expectedResources=[gpu]), ref(expectedResources=ds)).expectedResources == ds
    assert m(
        ref(expectedResources=[gpu]), ref(overrides={"cdi.enabled": True})
    ).expectedResources == [gpu]
    assert m(ref(cleanup=True), ref(version="v2.0")).cleanup is True
    assert m(ref(), ref(cleanup=True)).cleanup is True
    assert m(ref(healthCheckSkip=True), ref()).healthCheckSkip is True  # set-if-true


def test_recipe_metadata_spec_merge() -> None:
    """TestRecipeMetadataSpecMerge: components and constraints keyed by name, sorted."""
    merged = MergedSpec()
    merged.start(RecipeSpec(componentRefs=[ref("cert-manager", version="v1.0.0")]))
    merged.apply(RecipeSpec(componentRefs=[ref("gpu-operator", version="v2.0.0")]), "fieldwise")
    assert list(merged.components) == ["cert-manager", "gpu-operator"]
    merged.apply(RecipeSpec(componentRefs=[ref("gpu-operator", version="v3.0.0")]), "fieldwise")
    assert merged.components["gpu-operator"].version == "v3.0.0"
    merged.apply(RecipeSpec(constraints=[Constraint(name="kernel", value=">= 6.8")]), "fieldwise")
    merged.apply(RecipeSpec(constraints=[Constraint(name=K8S, value=">= 1.30")]), "fieldwise")
    merged.apply(RecipeSpec(constraints=[Constraint(name=K8S, value=">= 1.32")]), "fieldwise")
    assert [(c.name, c.value) for c in merged.constraints.values()] == [
        (K8S, ">= 1.32"),
        ("kernel", ">= 6.8"),
    ]


def test_merge_validation_config() -> None:
    """TestMergeValidationConfig: phases merge field by field (AICR issue #1000)."""
    base = Validation(
        readiness=ValidationPhase(constraints=[Constraint(name=K8S, value=">= 1.30")]),
        deployment=ValidationPhase(timeout="5m", checks=["expected-resources"]),
    )
    top = Validation(
        deployment=ValidationPhase(
            timeout="10m", checks=["expected-resources", "check-nvidia-smi"]
        ),
        performance=ValidationPhase(timeout="15m", infrastructure="nccl-doctor"),
    )
    merged = merge_validation(base, top, "fieldwise")
    assert merged.readiness is not None and merged.readiness.constraints is not None
    assert merged.readiness.constraints[0].name == K8S
    assert merged.deployment is not None and merged.deployment.timeout == "10m"
    assert merged.deployment.checks == ["expected-resources", "check-nvidia-smi"]
    assert merged.performance is not None and merged.performance.infrastructure == "nccl-doctor"
    into_nil = merge_validation(
        None, Validation(deployment=ValidationPhase(checks=["x"])), "fieldwise"
    )
    assert into_nil.deployment is not None and into_nil.deployment.checks == ["x"]
    assert merge_validation(base, Validation(), "fieldwise") == base  # nil overlay keeps base


def test_merge_validation_phase_nil_versus_empty() -> None:
    """mergeValidationPhase: an omitted list inherits, `checks: []` clears, same-named
    constraints take the later value in the earlier position."""
    base = ValidationPhase(
        checks=["nccl-all-reduce-bw"],
        constraints=[Constraint(name="a", value="1"), Constraint(name="b", value="2")],
    )
    assert merge_phase(base, ValidationPhase()).checks == ["nccl-all-reduce-bw"]
    assert merge_phase(base, ValidationPhase(checks=[])).checks == []
    assert merge_phase(base, ValidationPhase(constraints=[])).constraints == []
    later = merge_phase(
        base,
        ValidationPhase(
            constraints=[Constraint(name="c", value="3"), Constraint(name="a", value="9")]
        ),
    )
    assert [(c.name, c.value) for c in later.constraints or []] == [
        ("a", "9"),
        ("b", "2"),
        ("c", "3"),
    ]


@pytest.mark.parametrize(
    ("overrides", "enabled"),
    [
        ({}, True),
        ({"enabled": True}, True),
        ({"enabled": False}, False),
        ({"enabled": "false"}, True),  # "enabled string false is not recognized"
        ({"replicas": 3}, True),
    ],
)
def test_component_ref_is_enabled(overrides: dict[str, Any], enabled: bool) -> None:
    """TestComponentRefIsEnabled."""
    assert ref(overrides=overrides).is_enabled() is enabled


@pytest.mark.parametrize(
    ("field", "given", "parsed"),
    [
        ("service", "", "any"),
        ("service", "EKS", "eks"),
        ("service", "self-managed", "any"),
        ("service", "self", "any"),
        ("service", "vanilla", "any"),
        ("service", "openshift", "ocp"),
        ("accelerator", "H100", "h100"),
        ("os", "al2", "amazonlinux"),
        ("os", "al2023", "amazonlinux"),
        ("intent", " Training ", "training"),
    ],
)
def test_parse_criteria_types(field: str, given: str, parsed: str) -> None:
    """TestParseCriteriaServiceType / AcceleratorType / OSType (criteria_test.go)."""
    value = canonical(field, given)
    assert value == parsed
    assert unknown_value(field, value, {}) is None


def test_parse_criteria_rejects_an_invalid_value() -> None:
    """TestParseCriteriaServiceType's "invalid" case."""
    assert unknown_value("service", "invalid", {}) is not None


def test_build_recipe_without_criteria_is_refused(write_catalog: WriteCatalog) -> None:
    """pkg/cli `buildRecipeFromCmdWithConfig`: Specificity() == 0 is refused."""
    root = write_catalog({"registry.yaml": registry("a"), "overlays/base.yaml": overlay("base")})
    with pytest.raises(RecipeError) as err:
        resolve(load_catalog([root]), RecipeCriteria(service="self-managed"))
    assert str(err.value) == NO_CRITERIA


def _guard_catalog(write_catalog: WriteCatalog) -> Any:
    return load_catalog(
        [
            write_catalog(
                {
                    "registry.yaml": registry("a"),
                    "overlays/base.yaml": overlay("base"),
                    "overlays/gke-cos.yaml": overlay(
                        "gke-cos", criteria={"service": "gke", "os": "cos"}
                    ),
                    "overlays/h100.yaml": overlay("h100", criteria={"accelerator": "h100"}),
                    "overlays/eks.yaml": overlay("eks", criteria={"service": "eks"}),
                }
            )
        ]
    )


def test_retired_os_guard(write_catalog: WriteCatalog) -> None:
    """retiredOSGuard (coverage_subsumption_test.go, the July 2026 requireOSIfNeeded)."""
    catalog = _guard_catalog(write_catalog)
    with pytest.raises(RecipeError) as err:
        resolve(catalog, RecipeCriteria(service="gke", accelerator="h100"))
    assert str(err.value) == (
        "service 'gke' has no OS-agnostic recipe for accelerator 'h100'; specify an OS (valid: cos)"
    )
    with pytest.raises(RecipeError, match="for accelerator 'any'; specify an OS"):
        resolve(catalog, RecipeCriteria(service="gke"))
    assert resolve(catalog, RecipeCriteria(service="gke", os="cos")).metadata.appliedOverlays == [
        "base",
        "gke-cos",
    ]
    resolve(catalog, RecipeCriteria(accelerator="h100"))  # no service stated: no guard
    resolve(catalog, RecipeCriteria(service="eks", accelerator="h100"))  # no OS-gated overlay


def test_select(write_catalog: WriteCatalog) -> None:
    """TestSelect (query.go): '' and '.' give everything; missing keys list the others."""
    hydrated = {"components": {"a": {"values": {"x": 1}}}, "deploymentOrder": ["a"]}
    assert select_path(hydrated, "") is hydrated
    assert select_path(hydrated, ".") is hydrated
    assert select_path(hydrated, ".components.a.values.x") == 1
    with pytest.raises(RecipeError, match=r"key 'b' not found, available keys: a$"):
        select_path(hydrated, "components.b")
    with pytest.raises(RecipeError, match="cannot descend into non-map value at '0'"):
        select_path(hydrated, "deploymentOrder.0")


def test_get_values_for_component(write_catalog: WriteCatalog) -> None:
    """GetValuesForComponent: which files merge, and `mergeValues`' null deletion."""
    root = write_catalog(
        {
            "registry.yaml": registry("a", "b", "c", "d"),
            "components/a/values.yaml": {"keep": 1, "drop": {"x": 1}, "nested": {"n": None}},
            "components/a/values-eks.yaml": {"drop": None, "extra": {"y": None}},
            "components/b/values.yaml": {"unused": True},
            "components/c/values.yaml": {"top": None, "z": 1},
            "overlays/x.yaml": overlay(
                "x",
                criteria={"service": "eks"},
                componentRefs=[
                    {
                        "name": "a",
                        "valuesFile": "components/a/values-eks.yaml",
                        "overrides": {"keep": None},
                    },
                    {"name": "b"},
                    {"name": "c", "valuesFile": "components/c/values.yaml"},
                    {"name": "d", "overrides": {"o": {"p": None}, "q": None}},
                ],
            ),
        }
    )
    catalog = load_catalog([root])
    result = resolve(catalog, RecipeCriteria(service="eks"))
    # base values.yaml, then the overlay's file, then overrides; a null deletes the key,
    # a null under a key new to the earlier layer is kept as written.
    assert component_values(catalog, result, "a") == {"nested": {"n": None}, "extra": {"y": None}}
    assert component_values(catalog, result, "b") == {}  # no valuesFile: no values
    assert component_values(catalog, result, "c") == {"top": None, "z": 1}  # read as is
    assert component_values(catalog, result, "d") == {"o": {"p": None}}


def test_hydrate_health_check_asserts(write_catalog: WriteCatalog) -> None:
    """TestHydrateHealthCheckAsserts: the registry's assertFile is inlined; healthCheckSkip
    and inline asserts win; disabled components are hydrated too."""
    reg = registry("a", "b", "c", "d")
    for comp in reg["components"]:  # type: ignore[attr-defined]
        comp["healthCheck"] = {"assertFile": f"checks/{comp['name']}/health-check.yaml"}
    files: dict[str, object] = {f"checks/{n}/health-check.yaml": f"# {n}\n" for n in "abcd"}
    root = write_catalog(
        {
            "registry.yaml": reg,
            **files,
            "overlays/x.yaml": overlay(
                "x",
                criteria={"service": "eks"},
                componentRefs=[
                    {"name": "a"},
                    {"name": "b", "healthCheckSkip": True},
                    {"name": "c", "healthCheckAsserts": "inline"},
                    {"name": "d", "overrides": {"enabled": False}},
                ],
            ),
        }
    )
    result = resolve(load_catalog([root]), RecipeCriteria(service="eks"))
    asserts = {r.name: r.healthCheckAsserts for r in result.all_refs()}
    assert asserts == {"a": "# a\n", "b": "", "c": "inline", "d": "# d\n"}


def test_merge_mixins_conflicts(write_catalog: WriteCatalog) -> None:
    """TestMixinOverrideSafety (mixin_override_safety_test.go): a mixin may add namespace,
    manifestFiles and preManifestFiles to a chain component; a constraint it restates, or
    any identity field, is a conflict."""

    def catalog(*mixin_refs: dict[str, object], constraints: Any = ()) -> Any:
        return load_catalog(
            [
                write_catalog(
                    {
                        "registry.yaml": registry("a"),
                        "m.yaml": "kind: ConfigMap\n",
                        "overlays/base.yaml": overlay(
                            "base",
                            componentRefs=[{"name": "a"}],
                            constraints=[{"name": K8S, "value": ">= 1.30"}],
                        ),
                        "overlays/x.yaml": overlay("x", criteria={"service": "eks"}, mixins=["m"]),
                        "mixins/m.yaml": mixin(
                            "m", componentRefs=list(mixin_refs), constraints=list(constraints)
                        ),
                    }
                )
            ]
        )

    eks = RecipeCriteria(service="eks")
    safe: dict[str, object] = {
        "name": "a",
        "namespace": "ns",
        "manifestFiles": ["m.yaml"],
        "preManifestFiles": ["m.yaml"],
    }
    a = resolve(catalog(safe), eks).componentRefs[0]
    assert (a.namespace, a.manifestFiles, a.preManifestFiles) == ("ns", ["m.yaml"], ["m.yaml"])
    with pytest.raises(RecipeError, match=r"componentRefs\[0\]\.overrides: a mixin may only add"):
        resolve(catalog({"name": "a", "overrides": {"x": 1}}), eks)
    with pytest.raises(RecipeError, match="conflicts with the inheritance chain"):
        resolve(catalog(constraints=[{"name": K8S, "value": ">= 1.31"}]), eks)
