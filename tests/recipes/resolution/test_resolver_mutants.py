"""The resolver's exact messages, copies and order (mutation-testing survivors)."""

from __future__ import annotations

import pytest

from recipes import RecipeCriteria, RecipeError, load_catalog, resolve
from recipes.resolution.resolver import no_match_message
from tests.recipes.recipe_helpers import WriteCatalog, mixin, overlay, registry


def test_no_match_message_lists_the_overlays_that_agree_with_the_query(
    write_catalog: WriteCatalog,
) -> None:
    """A recipe field that is empty or `any` agrees with any query value, and a query field
    left open (`any`) agrees with any recipe value; the criteria-less root is skipped."""
    root = write_catalog(
        {
            "registry.yaml": registry("a"),
            "overlays/base.yaml": overlay("base"),
            "overlays/eks-h100.yaml": overlay(
                "eks-h100", criteria={"service": "eks", "accelerator": "h100"}
            ),
            "overlays/kind-a10.yaml": overlay(
                "kind-a10", criteria={"service": "kind", "accelerator": "A10"}
            ),
            "overlays/gke-any.yaml": overlay(
                "gke-any", criteria={"service": "gke", "intent": "any"}
            ),
            "overlays/oke.yaml": overlay("oke", criteria={"service": "oke"}),
        }
    )
    catalog = load_catalog([root])
    query = RecipeCriteria(accelerator="a10", intent="training").normalized()
    assert no_match_message(catalog, query) == (
        "no overlay matches --accelerator a10 --intent training; valid completions:\n"
        "  --service gke\n"
        "  --service kind --accelerator A10\n"
        "  --service oke"
    )


def test_no_match_message_lists_every_overlay_when_none_agrees(
    write_catalog: WriteCatalog,
) -> None:
    root = write_catalog(
        {
            "registry.yaml": registry("a"),
            "overlays/base.yaml": overlay("base"),
            "overlays/eks-h100.yaml": overlay(
                "eks-h100", criteria={"service": "eks", "accelerator": "h100"}
            ),
            "overlays/kind-a10.yaml": overlay(
                "kind-a10", criteria={"service": "kind", "accelerator": "a10"}
            ),
        }
    )
    catalog = load_catalog([root])
    query = RecipeCriteria(service="eks", accelerator="gb200").normalized()
    assert no_match_message(catalog, query) == (
        "no overlay matches --service eks --accelerator gb200; valid completions:\n"
        "  --service eks --accelerator h100\n"
        "  --service kind --accelerator a10"
    )


def test_a_mixin_constraint_the_chain_declares_is_refused(write_catalog: WriteCatalog) -> None:
    root = write_catalog(
        {
            "registry.yaml": registry("a"),
            "overlays/base.yaml": overlay(
                "base", constraints=[{"name": "K8s.server.version", "value": ">= 1.30"}]
            ),
            "overlays/x.yaml": overlay("x", criteria={"service": "oke"}, mixins=["m"]),
            "mixins/m.yaml": mixin(
                "m",
                constraints=[
                    {"name": "OS.release.ID", "value": "ubuntu"},
                    {"name": "K8s.server.version", "value": ">= 1.25"},
                ],
            ),
        }
    )
    with pytest.raises(RecipeError) as err:
        resolve(load_catalog([root]), RecipeCriteria(service="oke"))
    assert str(err.value) == (
        "mixins/m.yaml: spec.constraints[1].name: constraint 'K8s.server.version' "
        "conflicts with the inheritance chain or another mixin"
    )


def test_the_result_keeps_every_component_in_the_root_order(
    write_catalog: WriteCatalog,
) -> None:
    """refOrder is AICR's componentRefs order, disabled components included; the root alone
    is not sorted, so the order differs from the names sorted."""
    root = write_catalog(
        {
            "registry.yaml": registry("c", "b", "a"),
            "overlays/base.yaml": overlay(
                "base",
                componentRefs=[
                    {"name": "c"},
                    {"name": "b", "overrides": {"enabled": False}},
                    {"name": "a"},
                ],
            ),
            "overlays/svc.yaml": overlay("svc", criteria={"service": "eks"}),
        }
    )
    result = resolve(load_catalog([root]), RecipeCriteria(service="gke"))
    assert result.refOrder == ["c", "b", "a"]
    assert [r.name for r in result.all_refs()] == ["c", "b", "a"]
    assert [r["name"] for r in result.to_dict()["componentRefs"]] == ["c", "b", "a"]


def test_each_result_is_a_deep_copy_of_the_cached_one(write_catalog: WriteCatalog) -> None:
    root = write_catalog(
        {
            "registry.yaml": registry("a"),
            "overlays/base.yaml": overlay("base", componentRefs=[{"name": "a"}]),
            "overlays/svc.yaml": overlay("svc", criteria={"service": "eks"}),
        }
    )
    catalog = load_catalog([root])
    first = resolve(catalog, RecipeCriteria(service="eks"))
    first.warnings.append("changed by a caller")
    first.metadata.appliedOverlays.append("changed")
    first.componentRefs[0].overrides["changed"] = True
    again = resolve(catalog, RecipeCriteria(service="eks"))
    assert again.warnings == []
    assert again.metadata.appliedOverlays == ["base", "svc"]
    assert again.componentRefs[0].overrides == {}
