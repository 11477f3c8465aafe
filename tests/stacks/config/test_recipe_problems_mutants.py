"""Where the recipe's problems are reported, with which messages, from a valid or an invalid
config, and what a valid platform resolves to (mutation-testing survivors of
stacks/config/recipe.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from components.platform.platform_config import PlatformConfig
from recipes import Catalog
from stacks.config.recipe import PROJECT_ROOT, PreparedPlatform, recipe_problems, resolve_recipe
from tests.recipes.recipe_helpers import overlay, registry, write_files

NO_OVERLAY = "no overlay in the catalog supports it; valid values:"
UNKNOWN = "unknown value; valid values (AICR's and the catalog's):"
ACCELERATORS = "a10, a100, b200, gb200, gb300, h100, h200, l40, rtx-pro-6000 (or any)"
NOT_IN_RECIPE = (
    "component is not in the recipe kind-a10/kind-a10-training-kubeflow; components: "
    "gpu-operator, gpu-time-slicing, kubeflow-trainer"
)
P100 = (
    "gpu-ci:platform.accelerator: unknown value (did you mean 'h100'?); valid values "
    f"(AICR's and the catalog's): {ACCELERATORS} [given: 'p100']"
)


def problems(values: dict[str, Any]) -> list[str]:
    return [str(p) for p in recipe_problems(values)]


def catalog(root: Path, criteria: dict[str, str], *refs: dict[str, object]) -> str:
    """A catalog folder with no components of its own and one overlay: `criteria`, `refs`."""
    extra = overlay("extra", criteria=criteria)
    if refs:
        extra = overlay("extra", criteria=criteria, componentRefs=list(refs))
    files: dict[str, object] = {"registry.yaml": registry(), "overlays/extra.yaml": extra}
    return str(write_files(root, files))


def test_each_catalog_that_is_not_a_directory_is_named_at_its_index(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing")
    values = {"platform": {"catalogs": ["no-such-catalog", missing, "recipes/catalog"]}}
    assert problems(values) == [
        f"gpu-ci:platform.catalogs[0]: not a directory (in the project, {PROJECT_ROOT}) "
        "[given: 'no-such-catalog']",
        f"gpu-ci:platform.catalogs[1]: not a directory [given: {missing!r}]",
    ]


def test_a_catalog_that_fails_to_load_is_reported_at_the_catalogs_key(tmp_path: Path) -> None:
    folder = catalog(
        tmp_path,
        {"service": "eks", "accelerator": "a10"},
        {"name": "not-there", "type": "Helm"},
    )
    assert problems({"platform": {"accelerator": "a10", "catalogs": [folder]}}) == [
        "gpu-ci:platform.catalogs: overlays/extra.yaml: spec.componentRefs[0].name: component "
        "'not-there' is not in registry.yaml; known: gpu-operator, gpu-time-slicing, "
        "kubeflow-trainer"
    ]


def test_a_recipe_that_fails_to_resolve_is_reported_at_the_catalogs_key(tmp_path: Path) -> None:
    folder = catalog(
        tmp_path,
        {"service": "eks", "accelerator": "a10"},
        {"name": "gpu-operator", "type": "Helm", "dependencyRefs": ["not-there"]},
    )
    platform = PlatformConfig(service="eks", catalogs=[folder])
    prepared, found = resolve_recipe(platform, "a10")
    assert prepared is None
    assert [str(p) for p in found] == [
        "gpu-ci:platform.catalogs: component 'gpu-operator' depends on unknown component(s): "
        "not-there"
    ]


def test_criteria_each_known_but_matched_by_no_overlay_together(tmp_path: Path) -> None:
    folder = catalog(tmp_path, {"service": "eks", "accelerator": "h100"})
    values = {"platform": {"service": "eks", "accelerator": "a10", "catalogs": [folder]}}
    assert problems(values) == [
        "gpu-ci:platform: no overlay matches --service eks --accelerator a10 --intent training "
        "--platform kubeflow; valid completions:\n"
        "  --service eks --accelerator h100\n"
        "  --service kind --accelerator a10\n"
        "  --service kind --accelerator a10 --intent training --platform kubeflow\n"
        "  --service oke --accelerator a10"
    ]


def test_every_unsupported_criterion_is_named_at_its_own_key() -> None:
    values = {
        "platform": {
            "service": "eks",
            "accelerator": "zzz",
            "os": "zzz",
            "intent": "zzz",
            "platform": "zzz",
        }
    }
    assert problems(values) == [
        f"gpu-ci:platform.service: {NO_OVERLAY} kind, oke (or any) [given: 'eks']",
        f"gpu-ci:platform.accelerator: {UNKNOWN} {ACCELERATORS} [given: 'zzz']",
        f"gpu-ci:platform.os: {UNKNOWN} amazonlinux, cos, ol, rhel, sles, talos, ubuntu "
        "(or any) [given: 'zzz']",
        f"gpu-ci:platform.intent: {UNKNOWN} inference, training (or any) [given: 'zzz']",
        f"gpu-ci:platform.platform: {UNKNOWN} dynamo, kubeflow, nim, runai, slurm (or any) "
        "[given: 'zzz']",
    ]


def test_the_accelerator_comes_from_a_valid_vm_shape() -> None:
    values = {"platform": {}, "capacity": "vm", "vm": {"shape": "VM.GPU2.1"}}
    assert problems(values) == [P100]
    assert problems({"platform": {}, "capacity": "vm", "vm": {"shape": "VM.GPU.A10.1"}}) == []


def test_a_given_accelerator_wins_over_the_vm_shape() -> None:
    values = {"platform": {"accelerator": "a10"}, "capacity": "vm", "vm": {"shape": "VM.GPU2.1"}}
    assert problems(values) == []


def test_without_vm_capacity_the_shape_is_not_used() -> None:
    assert problems({"platform": {}, "capacity": "arc", "vm": {"shape": "VM.GPU2.1"}}) == []
    assert problems({"platform": {}, "vm": {"shape": "VM.GPU2.1"}}) == []


def test_an_invalid_vm_or_an_unlisted_shape_leaves_the_accelerator_unknown() -> None:
    eks = f"gpu-ci:platform.service: {NO_OVERLAY} kind, oke (or any) [given: 'eks']"
    invalid = {"shape": "VM.GPU2.1", "count": 0}
    unlisted = {"shape": "VM.GPU99.1", "allowUnlistedShape": True}
    for vm in (invalid, unlisted):
        assert problems({"platform": {"service": "eks"}, "capacity": "vm", "vm": vm}) == [eks]
        assert problems({"platform": {}, "capacity": "vm", "vm": vm}) == []


def test_each_set_entry_for_a_component_not_in_the_recipe_is_named() -> None:
    set_ = [
        "foo:enabled=false",
        "gpu-operator:driver.enabled=false",
        "bar:x=1",
        "foo:image=repo:tag",
    ]
    assert problems({"platform": {"accelerator": "a10", "set": set_}}) == [
        f"gpu-ci:platform.set[0]: platform override 'foo': {NOT_IN_RECIPE}",
        f"gpu-ci:platform.set[3]: platform override 'foo': {NOT_IN_RECIPE}",
        f"gpu-ci:platform.set[2]: platform override 'bar': {NOT_IN_RECIPE}",
    ]


def test_a_valid_platform_is_prepared_with_its_catalog() -> None:
    platform = PlatformConfig(set=["gpu-operator:driver.enabled=false"])
    prepared, found = resolve_recipe(platform, "a10")
    assert found == []
    assert isinstance(prepared, PreparedPlatform)
    assert isinstance(prepared.catalog, Catalog)
    assert set(prepared.catalog.overlays) >= {"kind-a10", "kind-a10-training-kubeflow"}
    assert prepared.recipe.metadata.appliedOverlays == ["kind-a10", "kind-a10-training-kubeflow"]
    assert list(prepared.overrides.components) == ["gpu-operator"]
