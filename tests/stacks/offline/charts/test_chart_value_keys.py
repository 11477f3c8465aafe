"""Where a dead value is reported: at the last layer that set it, as
`recipes/resolution/values.py` and `components/platform/release_plan.py` layer a platform
release's values (the catalog's values file(s), the overlays' overrides, then
`gpu-ci:platform.set`, a later entry winning), or at the code that built the release.
Sources are read as the program reads the stack."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from recipes import load_catalog
from recipes.model.overlays import ComponentRef
from stacks.offline.charts.release import HelmRelease
from stacks.offline.charts.value_keys import ValueKey, ValueSources, value_key, value_sources
from stacks.offline.plan import REPO

SOURCE = "components/platform/release_plan.py:42"


def _release(component: str | None, resource: str = "platform-gpu-operator") -> HelmRelease:
    return HelmRelease(
        stack="t",
        resource=resource,
        name=component or "monitoring",
        chart="gpu-operator",
        version="v25.10.1",
        namespace="gpu-operator",
        values={},
        source=SOURCE,
        component=component,
    )


def _project(tmp_path: Path, sets: list[str], **platform: Any) -> Path:
    """This checkout's dev stack as `Pulumi.t.yaml`, with `sets` as its platform.set."""
    (tmp_path / "Pulumi.yaml").write_text((REPO / "Pulumi.yaml").read_text(encoding="utf-8"))
    doc = yaml.safe_load((REPO / "Pulumi.dev.yaml").read_text(encoding="utf-8"))
    doc["config"]["gpu-ci:platform"].update(set=sets, **platform)
    (tmp_path / "Pulumi.t.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    return tmp_path


@pytest.fixture
def aicr(upstream: Path) -> ValueSources:
    """AICR v0.11.1's own catalog (outside this project) under an aks-training recipe's
    gpu-operator: its values-aks.yaml over components/gpu-operator/values.yaml, overrides."""
    catalog = load_catalog([upstream / "aicr-v0.11.1" / "recipes"], log=False)
    ref = ComponentRef(
        name="gpu-operator",
        valuesFile="components/gpu-operator/values-aks.yaml",
        overrides={"driver": {"version": "580.95.05"}, "nodes": [{"name": "a"}]},
    )
    sets = (
        (0, "gpu-operator", ("toolkit",)),
        (1, "kubeflow-trainer", ("driver", "version")),
        (2, "gpu-operator", ("operator", "resources", "limits", "cpu")),
        (3, "gpu-operator", ("toolkit", "enabled")),
    )
    return ValueSources(sets, {"gpu-operator": ref}, catalog, ("aks", "aks-training"), REPO)


def test_the_last_set_entry_that_covers_the_path_wins(aicr: ValueSources) -> None:
    where = value_key(aicr, _release("gpu-operator"), ("toolkit", "enabled"))
    assert where == ValueKey("gpu-ci:platform.set[3] (gpu-operator:toolkit.enabled)")
    under = value_key(aicr, _release("gpu-operator"), ("toolkit", "env", 0, "name"))
    assert under == ValueKey("gpu-ci:platform.set[0] (gpu-operator:toolkit)")


def test_a_set_entry_below_the_path_covers_it(aicr: ValueSources) -> None:
    """`operator.resources.limits.cpu=1` made the map at `operator.resources`."""
    where = value_key(aicr, _release("gpu-operator"), ("operator", "resources"))
    assert where.where == "gpu-ci:platform.set[2] (gpu-operator:operator.resources.limits.cpu)"


def test_another_components_set_entry_is_not_this_ones(aicr: ValueSources) -> None:
    where = value_key(aicr, _release("gpu-operator"), ("driver", "version"))
    assert where == ValueKey(
        "the recipe's overrides of gpu-operator (overlays aks, aks-training): driver.version",
        recipe=True,
    )


def test_overrides_are_followed_into_lists_by_index(aicr: ValueSources) -> None:
    release = _release("gpu-operator")
    assert value_key(aicr, release, ("nodes", 0, "name")).where.startswith("the recipe's ove")
    paths: list[tuple[str | int, ...]] = [("nodes", 1, "name"), ("nodes", "0", "name")]
    for path in [*paths, ("nodes", 0, "taint"), ("driver", "version", "x")]:
        assert value_key(aicr, release, path).where.startswith("gpu-ci's own values"), path


def test_an_overlay_free_recipe_says_base(aicr: ValueSources) -> None:
    bare = ValueSources(aicr.sets, aicr.refs, aicr.catalog, (), REPO)
    where = value_key(bare, _release("gpu-operator"), ("driver", "version")).where
    assert where == "the recipe's overrides of gpu-operator (overlays base): driver.version"


def test_the_values_file_is_read_before_the_components_default(
    aicr: ValueSources, upstream: Path
) -> None:
    """Both have toolkit.enabled (values-aks.yaml's is the last layer); only the default has
    operator.upgradeCRD. A catalog outside the project is named by its full path."""
    folder = upstream / "aicr-v0.11.1" / "recipes" / "components" / "gpu-operator"
    no_sets = ValueSources((), aicr.refs, aicr.catalog, aicr.overlays, REPO)
    release = _release("gpu-operator")
    assert value_key(no_sets, release, ("toolkit", "enabled")) == ValueKey(
        f"{folder / 'values-aks.yaml'}: toolkit.enabled", recipe=True
    )
    assert value_key(no_sets, release, ("operator", "upgradeCRD")) == ValueKey(
        f"{folder / 'values.yaml'}: operator.upgradeCRD", recipe=True
    )


def test_without_a_values_file_the_components_default_is_not_read(aicr: ValueSources) -> None:
    """As `recipes/resolution/values.py`: no valuesFile, no values file at all."""
    ref = ComponentRef(name="gpu-operator")
    sources = ValueSources((), {"gpu-operator": ref}, aicr.catalog, aicr.overlays, REPO)
    where = value_key(sources, _release("gpu-operator"), ("operator", "upgradeCRD"))
    assert where == ValueKey(
        "gpu-ci's own values of gpu-operator (from its config, e.g. gpu-ci:observability's "
        f"DCGM ServiceMonitor; {SOURCE}): operator.upgradeCRD"
    )


def test_sources_without_a_catalog_read_no_values_file(aicr: ValueSources) -> None:
    sources = ValueSources((), aicr.refs, None, aicr.overlays, REPO)
    where = value_key(sources, _release("gpu-operator"), ("toolkit", "enabled"))
    assert where.where.startswith("gpu-ci's own values of gpu-operator")


def test_a_release_outside_the_recipe_is_gpu_cis_own(aicr: ValueSources) -> None:
    where = value_key(aicr, _release(None, "monitoring"), ("toolkit", "enabled"))
    assert where == ValueKey(f"{SOURCE} (gpu-ci's values of release monitoring): toolkit.enabled")


def test_the_projects_catalog_is_named_relative_to_the_project() -> None:
    """The dev stack as planned: its gpu-operator values file; the Trainer's values file
    lacks the path and its catalog has no default values.yaml to fall back on."""
    sources = value_sources(REPO, "dev")
    operator = value_key(sources, _release("gpu-operator"), ("devicePlugin", "config", "default"))
    assert operator == ValueKey(
        "recipes/catalog/components/gpu-operator/values-kind-a10.yaml: devicePlugin.config.default",
        recipe=True,
    )
    trainer = value_key(sources, _release("kubeflow-trainer"), ("image", "tag"))
    assert trainer.where.startswith("gpu-ci's own values of kubeflow-trainer (from its config")


def test_value_sources_are_the_stacks_set_entries_and_recipe(tmp_path: Path) -> None:
    """Each entry's path as `set` splits it (`\\.` a dot inside a key), by its index."""
    sets = ["gpu-operator:driver.enabled=false", r"gpu-operator:daemonsets.labels.x\.io/y=z"]
    sources = value_sources(_project(tmp_path, sets), "t")
    assert sources.sets == (
        (0, "gpu-operator", ("driver", "enabled")),
        (1, "gpu-operator", ("daemonsets", "labels", "x.io/y")),
    )
    assert sorted(sources.refs) == ["gpu-operator", "gpu-time-slicing", "kubeflow-trainer"]
    assert sources.refs["gpu-operator"].valuesFile == (
        "components/gpu-operator/values-kind-a10.yaml"
    )
    assert sources.overlays == ("kind-a10", "kind-a10-training-kubeflow")
    assert sources.root == tmp_path
    assert sources.catalog is not None
    assert "components/gpu-operator/values-kind-a10.yaml" in sources.catalog.files


def test_the_stacks_own_catalogs_are_folders_of_its_project(tmp_path: Path) -> None:
    """`catalogs: [team-catalog]` is the project's folder, wherever gpu-ci's code is."""
    root = _project(tmp_path, [], catalogs=["team-catalog"])
    (root / "team-catalog").mkdir()
    registry = "apiVersion: aicr.run/v1alpha2\nkind: ComponentRegistry\ncomponents: []\n"
    (root / "team-catalog" / "registry.yaml").write_text(registry, encoding="utf-8")
    sources = value_sources(root, "t")
    assert sources.catalog is not None
    assert root / "team-catalog" in sources.catalog.roots
    assert sorted(sources.refs) == ["gpu-operator", "gpu-time-slicing", "kubeflow-trainer"]


def test_a_stack_the_program_refuses_has_no_sources(tmp_path: Path) -> None:
    """The arc stack with a launcher's OCI key in plain text beside its `secure:` fields:
    the stack file is read as the plan reads it, each credential a secret on its own."""
    (tmp_path / "Pulumi.yaml").write_text((REPO / "Pulumi.yaml").read_text(encoding="utf-8"))
    doc = yaml.safe_load((REPO / "Pulumi.arc.yaml").read_text(encoding="utf-8"))
    scale_set = next(s for s in doc["config"]["gpu-ci:arc"]["scaleSets"] if "ociCredentials" in s)
    (tmp_path / "Pulumi.t.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    assert value_sources(tmp_path, "t").overlays == ("oke-a10",)
    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n"
    scale_set["ociCredentials"]["privateKey"] = pem
    (tmp_path / "Pulumi.t.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    assert value_sources(tmp_path, "t") == ValueSources()


def test_a_recipe_that_does_not_resolve_leaves_only_the_set_entries(tmp_path: Path) -> None:
    root = _project(tmp_path, ["gpu-operator:a.b=1"], service="eks")
    assert value_sources(root, "t") == ValueSources(((0, "gpu-operator", ("a", "b")),))


@pytest.mark.parametrize(
    ("stack", "why"),
    [("nope", "no stack file"), ("workstation", "no platform"), ("t", "a set entry refused")],
)
def test_a_stack_without_platform_values_has_no_sources(
    stack: str, why: str, tmp_path: Path
) -> None:
    root = _project(tmp_path, ["no-colon-here"]) if stack == "t" else REPO
    assert value_sources(root, stack) == ValueSources(), why
