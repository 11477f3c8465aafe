"""Resolver semantics and catalog errors, on tiny catalogs written to tmp_path."""

from __future__ import annotations

import pytest

from recipes import RecipeCriteria, RecipeError, component_values, load_catalog, resolve
from recipes.model.criteria import field_matches
from recipes.resolution.ordering import deployment_order
from recipes.resolution.resolver import matching_overlays, no_match_message
from tests.recipes.recipe_helpers import V1, WriteCatalog, mixin, overlay, registry


def base(*refs: dict[str, object]) -> dict[str, object]:
    return overlay("base", componentRefs=list(refs))


def test_field_matching_is_asymmetric() -> None:
    assert field_matches("", "h100")
    assert field_matches("any", "h100")
    assert field_matches("any", "any")
    assert not field_matches("h100", "any")
    assert field_matches("H100", "h100")
    assert not field_matches("h100", "gb200")


def test_any_in_query_matches_only_open_overlays(write_catalog: WriteCatalog) -> None:
    root = write_catalog(
        {
            "registry.yaml": registry("a"),
            "overlays/base.yaml": base(),
            "overlays/svc.yaml": overlay("svc", criteria={"service": "eks"}),
            "overlays/svc-acc.yaml": overlay(
                "svc-acc", criteria={"service": "eks", "accelerator": "h100"}
            ),
            "overlays/open.yaml": overlay("open", criteria={"intent": "any"}),
        }
    )
    catalog = load_catalog([root])
    generic = resolve(catalog, RecipeCriteria(service="eks"))
    assert generic.metadata.appliedOverlays == ["base", "open", "svc"]
    specific = resolve(catalog, RecipeCriteria(service="eks", accelerator="h100"))
    # svc-acc is not based on svc, so both apply, least specific first.
    assert specific.metadata.appliedOverlays == ["base", "open", "svc", "svc-acc"]


def test_merge_rules(write_catalog: WriteCatalog) -> None:
    root = write_catalog(
        {
            "registry.yaml": registry("a", "b", "c"),
            "components/a/values.yaml": {"x": {"keep": 1, "over": 1}, "list": [1, 2]},
            "components/a/values-eks.yaml": {"x": {"over": 2}, "list": [3]},
            "components/a/m1.yaml": "kind: ConfigMap\n",
            "components/a/m2.yaml": "kind: ConfigMap\n",
            "overlays/base.yaml": overlay(
                "base",
                constraints=[{"name": "K8s.server.version", "value": ">= 1.25"}],
                componentRefs=[
                    {
                        "name": "a",
                        "version": "1.0",
                        "valuesFile": "components/a/values.yaml",
                        "overrides": {"o": {"one": 1}},
                        "dependencyRefs": ["b"],
                        "manifestFiles": ["components/a/m1.yaml"],
                    },
                    {"name": "b"},
                    {"name": "c", "overrides": {"enabled": True}},
                ],
                validation={"conformance": {"checks": ["x", "y"]}},
            ),
            "overlays/eks.yaml": overlay(
                "eks",
                criteria={"service": "eks"},
                constraints=[{"name": "K8s.server.version", "value": ">= 1.30"}],
                componentRefs=[
                    {
                        "name": "a",
                        "valuesFile": "components/a/values-eks.yaml",
                        "overrides": {"o": {"two": 2}, "x": {"over": 3}},
                        "dependencyRefs": ["c"],
                        "manifestFiles": ["components/a/m2.yaml", "components/a/m1.yaml"],
                    },
                    {"name": "c", "overrides": {"enabled": False}},
                ],
                validation={"conformance": {"checks": ["z"]}},
            ),
        }
    )
    catalog = load_catalog([root])
    result = resolve(catalog, RecipeCriteria(service="eks"))
    a = result.component("a")
    assert a is not None
    assert a.version == "1.0"  # empty scalar in the later overlay inherits
    assert a.valuesFile == "components/a/values-eks.yaml"  # non-empty scalar wins
    assert a.overrides == {"o": {"one": 1, "two": 2}, "x": {"over": 3}}
    assert a.manifestFiles == ["components/a/m1.yaml", "components/a/m2.yaml"]
    # AICR keeps the edge to the disabled c in the ref; the order treats it as satisfied.
    assert a.dependencyRefs == ["b", "c"]
    assert (a.source, a.chart, a.namespace) == ("https://charts.example/a", "a", "ns-a")
    assert [c.value for c in result.constraints] == [">= 1.30"]
    assert result.validation is not None and result.validation.conformance is not None
    assert result.validation.conformance.checks == ["x", "y", "z"]  # checks are unioned
    assert result.metadata.disabledComponents == ["c"]
    assert result.deploymentOrder == ["b", "a"]
    assert component_values(catalog, result, "a") == {
        "x": {"keep": 1, "over": 3},
        "list": [3],  # lists are replaced, not appended
        "o": {"one": 1, "two": 2},
    }
    # The disabled component stays in the recipe, marked by its override (AICR).
    assert [c.name for c in result.componentRefs] == ["a", "b"]
    assert [c.name for c in result.disabledRefs] == ["c"]
    assert [c["name"] for c in result.to_dict()["componentRefs"]] == ["a", "b", "c"]
    assert result.to_dict()["componentRefs"][2]["overrides"] == {"enabled": False}
    assert component_values(catalog, result, "c") == {"enabled": False}


def test_v1alpha1_validation_phase_is_replaced_whole(write_catalog: WriteCatalog) -> None:
    """AICR v0.11 (`aicr.nvidia.com/v1alpha1`) replaced a phase an overlay restated."""
    root = write_catalog(
        {
            "registry.yaml": registry("a", api=V1),
            "overlays/base.yaml": overlay(
                "base", api=V1, validation={"conformance": {"checks": ["x", "y"]}}
            ),
            "overlays/eks.yaml": overlay(
                "eks",
                api=V1,
                criteria={"service": "eks"},
                validation={"conformance": {"checks": ["z"]}},
            ),
        }
    )
    result = resolve(load_catalog([root]), RecipeCriteria(service="eks"))
    assert result.validation is not None and result.validation.conformance is not None
    assert result.validation.conformance.checks == ["z"]


def test_mixins_and_v1beta1(write_catalog: WriteCatalog) -> None:
    v1b = "aicr.run/v1beta1"
    root = write_catalog(
        {
            "registry.yaml": registry("a", "b", api=v1b),
            "components/b/extra.yaml": "kind: ConfigMap\n",
            "overlays/base.yaml": overlay("base", api=v1b, componentRefs=[{"name": "a"}]),
            "overlays/x.yaml": overlay(
                "x", api=v1b, criteria={"service": "oke"}, mixins=["os-ubuntu", "with-b"]
            ),
            "mixins/os-ubuntu.yaml": mixin(
                "os-ubuntu", api=v1b, constraints=[{"name": "OS.release.ID", "value": "ubuntu"}]
            ),
            "mixins/with-b.yaml": mixin(
                "with-b",
                api=v1b,
                componentRefs=[
                    {"name": "b", "dependencyRefs": ["a"]},
                    {"name": "a", "manifestFiles": ["components/b/extra.yaml"]},
                ],
            ),
        }
    )
    result = resolve(load_catalog([root]), RecipeCriteria(service="oke"))
    assert [c.name for c in result.constraints] == ["OS.release.ID"]
    assert result.deploymentOrder == ["a", "b"]
    a = result.component("a")
    assert a is not None and a.manifestFiles == ["components/b/extra.yaml"]


def test_mixin_may_not_override_chain_component(write_catalog: WriteCatalog) -> None:
    root = write_catalog(
        {
            "registry.yaml": registry("a"),
            "overlays/base.yaml": base({"name": "a"}),
            "overlays/x.yaml": overlay("x", criteria={"service": "oke"}, mixins=["m"]),
            "mixins/m.yaml": mixin("m", componentRefs=[{"name": "a", "version": "9"}]),
        }
    )
    with pytest.raises(RecipeError) as err:
        resolve(load_catalog([root]), RecipeCriteria(service="oke"))
    assert str(err.value) == (
        "mixins/m.yaml: spec.componentRefs[0].version: a mixin may only add namespace, "
        "manifestFiles or preManifestFiles to component 'a', which the overlay chain "
        "already declares"
    )


def test_cycle_and_unknown_dependency_messages() -> None:
    with pytest.raises(RecipeError) as err:
        deployment_order({"a": ["b"], "b": ["c"], "c": ["b"], "d": []})
    assert str(err.value) == "dependency cycle among components: a, b, c"
    with pytest.raises(RecipeError) as err:
        deployment_order({"a": ["zz"]})
    assert str(err.value) == "component 'a' depends on unknown component(s): zz"
    assert deployment_order({"b": [], "a": [], "c": ["b"]}) == ["a", "b", "c"]


def test_unknown_dependency_in_catalog(write_catalog: WriteCatalog) -> None:
    root = write_catalog(
        {
            "registry.yaml": registry("a", "b"),
            "overlays/base.yaml": base({"name": "a", "dependencyRefs": ["b"]}),
            "overlays/x.yaml": overlay("x", criteria={"service": "oke"}),
        }
    )
    with pytest.raises(RecipeError) as err:
        resolve(load_catalog([root]), RecipeCriteria(service="oke"))
    assert str(err.value) == "component 'a' depends on unknown component(s): b"


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (
            {"overlays/x.yaml": "kind: RecipeMetadata\nspec: [unclosed\n"},
            "overlays/x.yaml: malformed YAML: line 3, column 1: "
            "expected ',' or ']', but got '<stream end>'",
        ),
        (
            {"mixins/m.yaml": mixin("m", componentRefs=[{"name": "a", "valueFile": "v.yaml"}])},
            "mixins/m.yaml: spec.componentRefs[0].valueFile: unknown field",
        ),
        (
            {"overlays/x.yaml": overlay("x", componentRefs=[{"name": "a", "type": "helm3"}])},
            "overlays/x.yaml: spec.componentRefs[0].type: Input should be 'Helm', 'Kustomize' "
            "or ''",
        ),
        (
            {
                "overlays/h100-eks.yaml": overlay(
                    "h100-eks",
                    componentRefs=[
                        {"name": "a"},
                        {"name": "a"},
                        {"name": "a", "valuesFile": "components/gpu-operator/values-x.yaml"},
                    ],
                )
            },
            "overlays/h100-eks.yaml: spec.componentRefs[2].valuesFile: "
            "file components/gpu-operator/values-x.yaml does not exist",
        ),
        (
            {
                "overlays/x.yaml": overlay(
                    "x", componentRefs=[{"name": "a", "manifestFiles": ["m"]}]
                )
            },
            "overlays/x.yaml: spec.componentRefs[0].manifestFiles[0]: file m does not exist",
        ),
        (
            {"overlays/x.yaml": overlay("x", base="kindd"), "overlays/kind.yaml": overlay("kind")},
            "overlays/x.yaml: spec.base: overlay 'kindd' does not exist (did you mean 'kind'?)",
        ),
        (
            {"overlays/x.yaml": overlay("x", mixins=["nope"])},
            "overlays/x.yaml: spec.mixins[0]: mixin 'nope' does not exist; known: none",
        ),
        (
            {"overlays/x.yaml": overlay("x", componentRefs=[{"name": "gpu-operater"}])},
            "overlays/x.yaml: spec.componentRefs[0].name: component 'gpu-operater' is not in "
            "registry.yaml; known: a",
        ),
        (
            {"overlays/x.yaml": {**overlay("x"), "apiVersion": "aicr.nvidia.com/v2"}},
            "overlays/x.yaml: apiVersion: apiVersion 'aicr.nvidia.com/v2' is not a "
            "RecipeMetadata format gpu-ci reads; it reads RecipeMetadata in "
            "aicr.nvidia.com/v1alpha1, aicr.run/v1alpha2, aicr.run/v1beta1",
        ),
        (
            {"overlays/x.yaml": overlay("x", base="y"), "overlays/y.yaml": overlay("y", base="x")},
            "overlays/x.yaml: spec.base: inheritance cycle x -> y -> x",
        ),
    ],
)
def test_catalog_errors_name_file_and_field(
    write_catalog: WriteCatalog, files: dict[str, object], message: str
) -> None:
    root = write_catalog({"registry.yaml": registry("a"), **files})
    with pytest.raises(RecipeError) as err:
        load_catalog([root])
    assert str(err.value) == message


def test_query_values_are_open_but_must_be_known(write_catalog: WriteCatalog) -> None:
    root = write_catalog(
        {
            "registry.yaml": registry("a"),
            "overlays/x.yaml": overlay("x", criteria={"service": "kind", "accelerator": "a10"}),
        }
    )
    catalog = load_catalog([root])
    assert resolve(
        catalog, RecipeCriteria(service="kind", accelerator=" A10 ")
    ).metadata.appliedOverlays == ["x"]
    # a100 is a value AICR knows: a valid query no overlay names gets the generic chain.
    generic = resolve(catalog, RecipeCriteria(service="kind", accelerator="a100"))
    assert generic.metadata.appliedOverlays == []
    assert generic.warnings == [
        "no environment-specific overlays matched criteria(service=kind, accelerator=a100), "
        "using base configuration only: the recipe may not be optimized for your environment"
    ]
    with pytest.raises(RecipeError) as err:
        resolve(catalog, RecipeCriteria(service="kind", accelerator="a10x"))
    assert str(err.value).startswith(
        "--accelerator a10x: unknown value (did you mean 'a10'?); valid values (AICR's and "
        "the catalog's): a10, a100, b200,"
    )
    assert no_match_message(catalog, RecipeCriteria(accelerator="a10").normalized()) == (
        "no overlay matches --accelerator a10; valid completions:\n"
        "  --service kind --accelerator a10"
    )


def test_later_data_dir_overrides_file_by_file(write_catalog: WriteCatalog) -> None:
    first = write_catalog(
        {
            "registry.yaml": registry("a", "b"),
            "components/a/values.yaml": {"v": 1},
            "overlays/x.yaml": overlay(
                "x",
                criteria={"service": "kind"},
                componentRefs=[{"name": "a", "valuesFile": "components/a/values.yaml"}],
            ),
        }
    )
    second = write_catalog(
        {
            "registry.yaml": {
                **registry("a"),
                "components": [{"name": "a", "helm": {"defaultVersion": "2.0.0"}}],
            },
            "components/a/values.yaml": {"v": 2},
        }
    )
    catalog = load_catalog([first, second])
    result = resolve(catalog, RecipeCriteria(service="kind"))
    assert component_values(catalog, result, "a") == {"v": 2}
    a = result.component("a")
    assert a is not None and a.version == "2.0.0"
    assert set(catalog.registry) == {"a", "b"}


def test_a_matching_ancestor_applies_once_through_its_descendant(
    write_catalog: WriteCatalog,
) -> None:
    """AICR drops matches that are ancestors of other matches: `svc` matches and is the
    base of `svc-acc`, which matches too, so only svc-acc's chain applies (svc once, in its
    place), and matching_overlays names svc-acc alone."""
    root = write_catalog(
        {
            "registry.yaml": registry("a"),
            "overlays/base.yaml": base(),
            "overlays/svc.yaml": overlay("svc", criteria={"service": "eks"}),
            "overlays/svc-acc.yaml": overlay(
                "svc-acc", base="svc", criteria={"service": "eks", "accelerator": "h100"}
            ),
        }
    )
    catalog = load_catalog([root])
    query = RecipeCriteria(service="eks", accelerator="h100")
    assert [o.name for o in matching_overlays(catalog, query.normalized())] == ["svc-acc"]
    assert resolve(catalog, query).metadata.appliedOverlays == ["base", "svc", "svc-acc"]


def test_the_root_alone_keeps_its_component_order(write_catalog: WriteCatalog) -> None:
    """AICR's `initBaseMergedSpec` takes the root's componentRefs as written; only merging
    an overlay sorts them by name. A query no overlay matches gets the root alone."""
    root = write_catalog(
        {
            "registry.yaml": registry("b", "a"),
            "overlays/base.yaml": base({"name": "b"}, {"name": "a"}),
            "overlays/svc.yaml": overlay("svc", criteria={"service": "eks"}),
        }
    )
    catalog = load_catalog([root])
    alone = resolve(catalog, RecipeCriteria(service="gke"))
    assert alone.metadata.appliedOverlays == ["base"]
    assert [c.name for c in alone.componentRefs] == ["b", "a"]
    merged = resolve(catalog, RecipeCriteria(service="eks"))
    assert [c.name for c in merged.componentRefs] == ["a", "b"]
