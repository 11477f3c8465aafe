"""The runtimeClassName + /dev/shm patches: which runtimes, what they hold, CRD validity."""

from __future__ import annotations

from typing import Any

import pytest

from components.platform.overrides import PlatformError
from components.platform.runtime_patch import (
    CHART_VERSION_ANNOTATION,
    TRAINER_RUNTIMES,
    VALUES_DIGEST_ANNOTATION,
    installed_runtimes,
    runtime_patch,
    runtime_patches,
    values_digest,
)
from recipes import Catalog, RecipeResult, component_values
from stacks.offline.records import ProgramRun
from tests.components.platform.platform_helpers import RUNTIME_PATCH
from tests.oracles.crd_schema import crd_schema, ssa_merge, validate_object

TABLE = TRAINER_RUNTIMES["2.3.0"]
ALL_DEFAULT = {r.name for r in TABLE if r.default_set}


def _pods(obj: dict[str, Any]) -> dict[str, dict[str, Any]]:
    jobs = obj["spec"]["template"]["spec"]["replicatedJobs"]
    return {j["name"]: j["template"]["spec"]["template"]["spec"] for j in jobs}


def test_the_table_covers_the_upstream_chart_version(
    trainer_chart: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    chart, _ = trainer_chart
    assert chart["version"] in TRAINER_RUNTIMES


def test_table_paths_exist_in_the_chart_values(
    trainer_chart: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    _, defaults = trainer_chart
    assert defaults["runtimes"]["defaultEnabled"] is False
    for runtime in TABLE:
        for path in runtime.enabled_when:
            node: Any = defaults
            for key in path.split("."):
                assert isinstance(node, dict) and key in node, f"{runtime.name}: {path}"
                node = node[key]
            assert node is False, f"{runtime.name}: {path} defaults to {node!r}"


def test_table_matches_the_upstream_runtime_objects(
    upstream_runtimes: dict[str, dict[str, Any]],
) -> None:
    by_name = {r.name: r for r in TABLE}
    assert set(upstream_runtimes) == {
        "torch-distributed",
        "jax-distributed",
        "deepspeed-distributed",
    }
    for name, obj in upstream_runtimes.items():
        pods = {job: tuple(c["name"] for c in pod["containers"]) for job, pod in _pods(obj).items()}
        assert dict(by_name[name].pods) == pods, name
        for pod in _pods(obj).values():
            assert "initContainers" not in pod


def test_project_values_install_torch_jax_and_qwen(catalog: Catalog, recipe: RecipeResult) -> None:
    values = component_values(catalog, recipe, "kubeflow-trainer")
    assert [r.name for r in installed_runtimes("2.3.0", values)] == [
        "torch-distributed",
        "jax-distributed",
        "torchtune-qwen2.5-1.5b",
    ]


def test_default_enabled_installs_every_default_runtime() -> None:
    values = {"runtimes": {"defaultEnabled": True}}
    assert {r.name for r in installed_runtimes("v2.3.0", values)} == ALL_DEFAULT
    assert "torch-distributed-with-cache" not in ALL_DEFAULT


def test_the_cache_runtime_needs_data_cache_enabled() -> None:
    flag = {"runtimes": {"torchDistributedWithCache": {"enabled": True}}}
    assert installed_runtimes("2.3.0", {"dataCache": flag}) == []
    both = {"dataCache": {"enabled": True, **flag}}
    assert [r.name for r in installed_runtimes("2.3.0", both)] == ["torch-distributed-with-cache"]


def test_unknown_chart_version_is_an_error_naming_the_table() -> None:
    with pytest.raises(PlatformError, match=r"kubeflow-trainer 9\.9\.9: .*known: 2\.3\.0"):
        installed_runtimes("9.9.9", {})


@pytest.mark.parametrize("runtime", TABLE, ids=lambda r: r.name)
def test_every_patch_validates_against_the_crd(runtime: Any, runtime_crd: dict[str, Any]) -> None:
    patch = runtime_patch(runtime, "2.3.0", "digest")
    assert validate_object(runtime_crd, patch) == []
    for job, containers in runtime.pods:
        pod = _pods(patch)[job]
        assert pod["runtimeClassName"] == "nvidia"
        assert [c["name"] for c in pod["containers"]] == list(containers)


def test_patched_upstream_runtimes_validate_and_keep_their_fields(
    upstream_runtimes: dict[str, dict[str, Any]], runtime_crd: dict[str, Any]
) -> None:
    schema = crd_schema(runtime_crd, "v1alpha1")
    by_name = {r.name: r for r in TABLE}
    for name, live in upstream_runtimes.items():
        merged = ssa_merge(live, runtime_patch(by_name[name], "2.3.0", "d"), schema)
        assert validate_object(runtime_crd, merged) == [], name
        assert merged["spec"]["mlPolicy"] == live["spec"]["mlPolicy"]
        for job, pod in _pods(merged).items():
            before = _pods(live)[job]
            assert pod["runtimeClassName"] == "nvidia"
            assert {"name": "dshm", "emptyDir": {"medium": "Memory"}} in pod["volumes"]
            assert [c["image"] for c in pod["containers"]] == [
                c["image"] for c in before["containers"]
            ]
            for container in pod["containers"]:
                assert {"name": "dshm", "mountPath": "/dev/shm"} in container["volumeMounts"]


def test_the_validator_rejects_a_broken_patch(runtime_crd: dict[str, Any]) -> None:
    patch = runtime_patch(TABLE[0], "2.3.0", "d")
    pod = _pods(patch)["node"]
    pod["runtimeClass"] = "nvidia"  # typo: the server would prune it silently
    pod["volumes"].append({"name": "dshm", "emptyDir": {"medium": "Memory"}})
    pod["containers"][0]["volumeMounts"][0].pop("name")
    problems = validate_object(runtime_crd, patch)
    assert any(p.endswith("runtimeClass: unknown field") for p in problems)
    assert any("volumes: duplicate list-map keys" in p for p in problems)
    assert any("missing required field 'name'" in p for p in problems)


def test_chart_upgrade_or_values_change_changes_the_patch() -> None:
    values = {"runtimes": {"torchDistributed": {"enabled": True}}}
    old = runtime_patches("2.3.0", values)[0]
    upgraded = runtime_patch(TABLE[0], "2.3.1", values_digest(values))
    changed = runtime_patches("2.3.0", {**values, "image": {"tag": "x"}})[0]
    annotations = old["metadata"]["annotations"]
    assert annotations[CHART_VERSION_ANNOTATION] == "2.3.0"
    assert upgraded["metadata"]["annotations"][CHART_VERSION_ANNOTATION] == "2.3.1"
    assert (
        changed["metadata"]["annotations"][VALUES_DIGEST_ANNOTATION]
        != annotations[VALUES_DIGEST_ANNOTATION]
    )
    assert old["spec"] == upgraded["spec"] == changed["spec"]


def test_registered_patches_carry_the_trainer_values_digest(
    patched: ProgramRun, catalog: Catalog, recipe: RecipeResult
) -> None:
    digest = values_digest(component_values(catalog, recipe, "kubeflow-trainer"))
    for patch in patched.by_type(RUNTIME_PATCH):
        assert patch.inputs["metadata"]["annotations"][VALUES_DIGEST_ANNOTATION] == digest
        assert patch.inputs["metadata"]["annotations"]["pulumi.com/patchForce"] == "true"
