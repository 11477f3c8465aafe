"""Day 2: turning the GPU time-slicing off (`gpu-time-slicing`, issue #26 "Also").

The `gpu-time-slicing` component ships the ConfigMap the GPU operator's values name
(`devicePlugin.config.name`). Disabling it alone would delete the ConfigMap while the
operator's device plugin still waits for it, so the plan refuses it and names the values
path to clear (`components.platform.release_plan.dangling_names`); with that path cleared,
the ConfigMap goes and the operator is upgraded in place to name none.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pulumi
import pytest

from components.platform.release_plan import dangling_names, plan_platform
from components.platform.releases.overrides import PlatformError, PlatformOverrides
from recipes import PROJECT_CATALOG, RecipeCriteria, load_catalog, resolve
from stacks.offline.lifecycle.fate import classify
from stacks.offline.snapshot.shape import Snapshot
from tests.stacks.offline.lifecycle.test_day2 import Edit, base_plan, changed, plan_edited

CONFIG_MAP = "gpu-time-slicing-config"
CONFIG_MAP_RESOURCE = "platform-gpu-time-slicing-configmap-gpu-time-slicing-config"
OFF = "gpu-time-slicing:enabled=false"
UNNAMED = "gpu-operator:devicePlugin.config.name="
DIGEST = 'spec.template.metadata.annotations["gpu-ci/check-digest"]'
SLICING_CHECK = "platform-checks-health-gpu-time-slicing"  # its Job and its Test's ConfigMap
# The checks that cover gpu-operator re-run (docs/validation.md): the GPU pod, which checks
# every component, the operator's health check and AICR's operator-health validator.
RERUN = [
    "platform-checks-check-nvidia-smi",
    "platform-checks-health-gpu-operator",
    "platform-checks-operator-health",
]
START = "platform-checks-chainsaw-pods-start"
"""Re-runs before the Chainsaw checks it gates whenever one of them does
(components/platform/checks/starts.py)."""
REFUSAL = (
    "gpu-time-slicing is disabled, but gpu-operator's values still name its ConfigMap "
    "gpu-time-slicing-config at devicePlugin.config.name, so gpu-operator would wait for an "
    "object nothing creates; also set `gpu-operator:devicePlugin.config.name=` (empty: it "
    "names nothing), or `gpu-operator:devicePlugin.config.name=gpu-time-slicing-config` "
    "yourself if something else creates it"
)


def platform_set(*items: str) -> Edit:
    def edit(config: dict[str, Any]) -> None:
        config["gpu-ci:platform"]["set"] = list(items)

    return edit


def operator_values(plan: Snapshot) -> dict[str, Any]:
    (release,) = [r for r in plan["resources"] if r["name"] == "platform-gpu-operator"]
    values: dict[str, Any] = release["inputs"]["values"]
    return values


def test_disabling_it_alone_is_refused_naming_the_path_to_clear(tmp_path: Path) -> None:
    with pytest.raises(pulumi.RunError) as refused:
        plan_edited("dev", [platform_set(OFF)], tmp_path / "off")
    assert f"  - gpu-ci:platform.set[0]: {REFUSAL}\n" in str(refused.value)
    assert "Nothing was created." in str(refused.value)


def test_turning_it_off_deletes_the_config_map_and_unnames_it_in_place(tmp_path: Path) -> None:
    result = changed("dev", platform_set(OFF, UNNAMED), tmp_path)
    found = [(f.op, f.name, f.replace_because, f.delete_before_replace) for f in result.changed]
    # the check Jobs are auto-named: each new one is made before the old one goes; the
    # time-slicing check goes with its component, and the checks' reader no longer reads
    # what only it read
    assert found == [
        ("update", "platform-gpu-operator", (), False),
        ("update", "platform-checks-reader", (), False),
        *[("replace", job, (DIGEST,), False) for job in [START, *RERUN]],
        ("delete", SLICING_CHECK, (), False),
        ("delete", SLICING_CHECK, (), False),
        ("delete", CONFIG_MAP_RESOURCE, (), False),
    ]
    operator = result.of("platform-gpu-operator", "kubernetes:helm.sh/v3:Release")
    assert [(c.path, c.old, c.new) for c in operator.inputs] == [
        ("values.devicePlugin.config.name", CONFIG_MAP, "")
    ]
    # the cluster, its provider and the other releases stay as they are
    for name in ("cluster-nvkind-cluster", "cluster-k8s", "platform-kubeflow-trainer"):
        assert result.of(name).op is None
    head = plan_edited("dev", [platform_set(OFF, UNNAMED)], tmp_path / "again")
    assert CONFIG_MAP not in json.dumps(operator_values(head))
    assert CONFIG_MAP in json.dumps(operator_values(base_plan("dev")))


def test_turning_it_back_on_makes_the_config_map_before_the_operator_names_it(
    tmp_path: Path,
) -> None:
    result = changed("dev", platform_set(), tmp_path, deployed=platform_set(OFF, UNNAMED))
    found = [(f.op, f.name, f.replace_because, f.delete_before_replace) for f in result.changed]
    assert found == [
        ("create", CONFIG_MAP_RESOURCE, (), False),
        ("update", "platform-gpu-operator", (), False),
        ("update", "platform-checks-reader", (), False),
        ("create", SLICING_CHECK, (), False),
        *[("replace", job, (DIGEST,), False) for job in [START, *RERUN[:2]]],
        ("create", SLICING_CHECK, (), False),
        ("replace", RERUN[2], (DIGEST,), False),
    ]


def test_the_same_config_twice_changes_nothing(tmp_path: Path) -> None:
    off = [platform_set(OFF, UNNAMED)]
    assert (
        classify(
            plan_edited("dev", off, tmp_path / "a"), plan_edited("dev", off, tmp_path / "b")
        ).changed
        == []
    )


# -- the rule itself, on the project's recipe ------------------------------------------------


def kind_recipe() -> tuple[Any, Any]:
    catalog = load_catalog([PROJECT_CATALOG])
    criteria = {
        "service": "kind",
        "accelerator": "a10",
        "intent": "training",
        "platform": "kubeflow",
    }
    return catalog, resolve(catalog, RecipeCriteria.model_validate(criteria))


def test_the_platform_plan_refuses_it_too() -> None:
    """For callers of the component that skip the stack config check."""
    catalog, recipe = kind_recipe()
    with pytest.raises(PlatformError, match=r"^platform: gpu-time-slicing is disabled"):
        plan_platform(catalog, recipe, PlatformOverrides.parse([OFF]))


def test_what_the_stack_names_itself_is_its_word() -> None:
    """Naming the ConfigMap in stack config: the user creates it some other way."""
    catalog, recipe = kind_recipe()
    own = PlatformOverrides.parse([OFF, f"gpu-operator:devicePlugin.config.name={CONFIG_MAP}"])
    assert dangling_names(catalog, recipe, own) == []
    plan = plan_platform(catalog, recipe, own)
    assert [c.name for c in plan.components] == ["gpu-operator", "kubeflow-trainer"]
    assert plan.by_name["gpu-operator"].values["devicePlugin"]["config"]["name"] == CONFIG_MAP


def test_nothing_dangles_while_both_are_on_or_both_off() -> None:
    catalog, recipe = kind_recipe()
    assert dangling_names(catalog, recipe) == []
    both_off = PlatformOverrides.parse([OFF, "gpu-operator:enabled=false"])
    assert dangling_names(catalog, recipe, both_off) == []
