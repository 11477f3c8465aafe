"""Every AICR catalog format, by apiVersion: what each reads, tolerates and refuses."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import yaml

from core import yaml_text
from recipes import RecipeCriteria, RecipeError, load_catalog, resolve
from recipes.catalogs.versions import FORMATS, readable
from recipes.catalogs.yamlfiles import load_text
from tests.recipes.recipe_helpers import CURRENT, V1, WriteCatalog, mixin, overlay, registry

READ = ("aicr.nvidia.com/v1alpha1", "aicr.run/v1alpha2", "aicr.run/v1beta1")


def test_the_formats_gpu_ci_reads() -> None:
    assert readable("RecipeMetadata") == list(READ)
    assert readable("RecipeMixin") == list(READ)
    assert readable("ComponentRegistry") == list(READ)
    assert set(FORMATS) == {*READ, "aicr.run/v1alpha3", "aicr.run/v1beta2"}


@pytest.mark.parametrize("api", READ)
def test_each_format_resolves(write_catalog: WriteCatalog, api: str) -> None:
    root = write_catalog(
        {
            "registry.yaml": registry("a", "b", api=api),
            "overlays/base.yaml": overlay("base", api=api, componentRefs=[{"name": "a"}]),
            "overlays/x.yaml": overlay("x", api=api, criteria={"service": "eks"}, mixins=["m"]),
            "mixins/m.yaml": mixin("m", api=api, componentRefs=[{"name": "b"}]),
        }
    )
    result = resolve(load_catalog([root]), RecipeCriteria(service="eks"))
    assert result.deploymentOrder == ["a", "b"]


@pytest.mark.parametrize(
    ("rel", "doc", "message"),
    [
        (
            "overlays/x.yaml",
            overlay("x", api="aicr.run/v1"),
            "overlays/x.yaml: apiVersion: apiVersion 'aicr.run/v1' is not a RecipeMetadata "
            "format gpu-ci reads; it reads RecipeMetadata in aicr.nvidia.com/v1alpha1, "
            "aicr.run/v1alpha2, aicr.run/v1beta1",
        ),
        (
            "mixins/m.yaml",
            {"kind": "RecipeMixin", "metadata": {"name": "m"}},
            "mixins/m.yaml: apiVersion: no apiVersion is not a RecipeMixin format gpu-ci "
            "reads; it reads RecipeMixin in aicr.nvidia.com/v1alpha1, aicr.run/v1alpha2, "
            "aicr.run/v1beta1",
        ),
        (
            "mixins/m.yaml",
            mixin("m", api="aicr.run/v1beta2"),
            "mixins/m.yaml: apiVersion: apiVersion 'aicr.run/v1beta2' is not a RecipeMixin "
            "format gpu-ci reads; it reads RecipeMixin in aicr.nvidia.com/v1alpha1, "
            "aicr.run/v1alpha2, aicr.run/v1beta1",
        ),
    ],
)
def test_an_unknown_api_version_is_one_error_naming_file_and_versions(
    write_catalog: WriteCatalog, rel: str, doc: object, message: str
) -> None:
    root = write_catalog({"registry.yaml": registry("a"), rel: doc})
    with pytest.raises(RecipeError) as err:
        load_catalog([root])
    assert str(err.value) == message


@pytest.mark.parametrize("api", ["aicr.run/v1alpha3", "aicr.run/v1beta2"])
def test_profile_bearing_overlays_are_recognised_and_refused(
    write_catalog: WriteCatalog, api: str
) -> None:
    profile = {"name": "gpuStack", "default": "x", "values": {}}
    root = write_catalog(
        {"registry.yaml": registry("a"), "overlays/x.yaml": overlay("x", api=api, profile=profile)}
    )
    with pytest.raises(RecipeError) as err:
        load_catalog([root])
    assert str(err.value).startswith(
        f"overlays/x.yaml: apiVersion: {api} is profile-bearing RecipeMetadata (spec.profile, "
        "AICR's configuration profiles): gpu-ci does not implement profiles;"
    )


def test_keys_aicr_ignores_are_one_warning(
    write_catalog: WriteCatalog, caplog: pytest.LogCaptureFixture
) -> None:
    """AICR decodes overlays and the registry leniently (yaml.Unmarshal): unknown keys are
    ignored there, and gpu-ci says so once for the whole load."""
    reg = registry("a")
    reg["components"][0]["testTier"] = "deploy"  # type: ignore[index]
    root = write_catalog(
        {
            "registry.yaml": reg,
            "overlays/x.yaml": overlay(
                "x",
                criteria={"service": "eks", "gpu": "h100"},
                componentRefs=[{"name": "a", "valueFile": "v.yaml"}],
                future={"field": True},
            ),
        }
    )
    with caplog.at_level(logging.WARNING, logger="recipes"):
        catalog = load_catalog([root])
    assert catalog.warnings == [
        "recipe catalog: 4 key(s) its format does not define, ignored as aicr ignores them: "
        "registry.yaml: components[0].testTier; "
        "overlays/x.yaml: spec.criteria.gpu; "
        "overlays/x.yaml: spec.componentRefs[0].valueFile (did you mean 'valuesFile'?); "
        "overlays/x.yaml: spec.future"
    ]
    assert [r.getMessage() for r in caplog.records] == [f"warning: {catalog.warnings[0]}"]
    ref = catalog.overlays["x"].doc.spec.componentRefs[0]
    assert ref.valuesFile == ""  # ignored, as AICR ignores it


def test_a_later_format_field_in_v1alpha1_is_ignored_with_a_warning(
    write_catalog: WriteCatalog,
) -> None:
    """preManifestFiles came with aicr.run/v1alpha2: AICR v0.11 never read it."""
    root = write_catalog(
        {
            "registry.yaml": registry("a", api=V1),
            "pre.yaml": "kind: Namespace\n",
            "overlays/x.yaml": overlay(
                "x",
                api=V1,
                criteria={"service": "eks"},
                componentRefs=[{"name": "a", "preManifestFiles": ["pre.yaml"]}],
            ),
        }
    )
    catalog = load_catalog([root])
    assert catalog.warnings == [
        "recipe catalog: 1 key(s) its format does not define, ignored as aicr ignores them: "
        "overlays/x.yaml: spec.componentRefs[0].preManifestFiles (an aicr.run/v1alpha2 field)"
    ]
    result = resolve(catalog, RecipeCriteria(service="eks"))
    assert result.componentRefs[0].preManifestFiles == []


def test_mixins_are_strict_as_in_aicr(write_catalog: WriteCatalog) -> None:
    """AICR's TestMalformedMixinRejected: a mixin with base, criteria or validation fails."""
    cases: tuple[tuple[str, object], ...] = (
        ("base", "eks"),
        ("criteria", {"service": "eks"}),
        ("validation", {}),
    )
    for key, value in cases:
        doc = {**mixin("m"), "spec": {key: value}}
        root = write_catalog({"registry.yaml": registry("a"), "mixins/m.yaml": doc})
        with pytest.raises(RecipeError) as err:
            load_catalog([root])
        assert str(err.value) == f"mixins/m.yaml: spec.{key}: unknown field"


def test_wrong_types_fail_in_lenient_documents_too(write_catalog: WriteCatalog) -> None:
    root = write_catalog(
        {
            "registry.yaml": registry("a"),
            "overlays/x.yaml": overlay("x", componentRefs=[{"name": "a", "dependencyRefs": "b"}]),
        }
    )
    with pytest.raises(RecipeError) as err:
        load_catalog([root])
    assert str(err.value) == (
        "overlays/x.yaml: spec.componentRefs[0].dependencyRefs: Input should be a valid list"
    )


def test_the_project_catalog_is_in_the_current_format() -> None:
    catalog = load_catalog()
    assert {o.api_version for o in catalog.overlays.values()} == {CURRENT}
    assert catalog.warnings == []


def test_every_data_dir_needs_a_registry(write_catalog: WriteCatalog) -> None:
    first = write_catalog({"registry.yaml": registry("a")})
    second = write_catalog({"overlays/x.yaml": overlay("x", criteria={"service": "eks"})})
    with pytest.raises(RecipeError, match=r"registry\.yaml is required, as in aicr"):
        load_catalog([first, second])


def test_fast_yaml_reads_every_shared_catalog_file_as_the_safe_loader(upstream: Path) -> None:
    files = sorted(upstream.glob("aicr-*/recipes/**/*.yaml"))
    assert len(files) > 250
    compared = 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        try:
            expected = yaml_text.load(text)
        except yaml.YAMLError:  # Helm templates are not YAML: both loaders refuse them
            with pytest.raises(yaml.YAMLError):
                load_text(text)
            continue
        assert load_text(text) == expected, path
        compared += 1
    assert compared > 200


@pytest.mark.parametrize(
    "text",
    [
        "a: &x {b: 1}\nc: *x\n",
        "base: &b {x: 1}\nderived: {<<: *b, y: 2}\n",
        "s: !!set {a, b}\n",
        "t: 2026-07-09\nn: ~\nf: 1.5e3\ni: 0x1F\no: 017\nb: yes\n",
        "",  # a value that contains itself is refused: tests/hardening/test_hardening_readers.py
    ],
)
def test_fast_yaml_edge_cases(text: str) -> None:
    assert repr(load_text(text)) == repr(yaml_text.load(text))
