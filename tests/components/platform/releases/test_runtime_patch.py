"""The runtimeClassName + /dev/shm patches: which runtimes, what they hold, and, applied to
the runtimes Helm renders from the Trainer 2.3.0 chart, objects kubectl-validate accepts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from components.platform.releases.overrides import PlatformError
from components.platform.releases.runtime_patch import (
    CHART_VERSION_ANNOTATION,
    TRAINER_RUNTIMES,
    VALUES_DIGEST_ANNOTATION,
    installed_runtimes,
    runtime_patch,
    runtime_patches,
    values_digest,
)
from recipes import Catalog, RecipeResult, component_values
from stacks.offline.charts.render import Rendered
from stacks.offline.engine.records import ProgramRun
from tests.components.platform.platform_helpers import RUNTIME_PATCH
from tests.stacks.offline.charts.chart_helpers import patched_runtime, problems_of, render_chart

TABLE = TRAINER_RUNTIMES["2.3.0"]
ALL_DEFAULT = {r.name for r in TABLE if r.default_set}


@pytest.fixture(scope="module")
def chart(upstream: Path) -> Path:
    return upstream / "helm-charts" / "kubeflow-trainer-2.3.0"


@pytest.fixture(scope="module")
def every_runtime(chart: Path) -> Rendered:
    """The chart with every built-in runtime on (the data cache one needs the cache)."""
    values = {
        "runtimes": {"defaultEnabled": True},
        "dataCache": {
            "enabled": True,
            "runtimes": {"torchDistributedWithCache": {"enabled": True}},
        },
    }
    return render_chart(chart, values, name="kubeflow-trainer", namespace="kubeflow-system")


@pytest.fixture(scope="module")
def rendered_runtimes(every_runtime: Rendered) -> dict[str, dict[str, Any]]:
    """The ClusterTrainingRuntimes the chart's installer Job applies, by name."""
    (installer,) = every_runtime.find("ConfigMap", "kubeflow-trainer-runtimes-installer")
    docs = [d for d in yaml.safe_load_all(installer["data"]["runtimes.yaml"]) if d]
    return {d["metadata"]["name"]: d for d in docs}


def _pods(obj: dict[str, Any]) -> dict[str, dict[str, Any]]:
    jobs = obj["spec"]["template"]["spec"]["replicatedJobs"]
    return {j["name"]: j["template"]["spec"]["template"]["spec"] for j in jobs}


def test_the_table_covers_the_vendored_chart_version(chart: Path) -> None:
    meta = yaml.safe_load((chart / "Chart.yaml").read_text(encoding="utf-8"))
    assert meta["version"] in TRAINER_RUNTIMES


def test_table_paths_exist_in_the_chart_values(chart: Path) -> None:
    defaults = yaml.safe_load((chart / "values.yaml").read_text(encoding="utf-8"))
    assert defaults["runtimes"]["defaultEnabled"] is False
    for runtime in TABLE:
        for path in runtime.enabled_when:
            node: Any = defaults
            for key in path.split("."):
                assert isinstance(node, dict) and key in node, f"{runtime.name}: {path}"
                node = node[key]
            assert node is False, f"{runtime.name}: {path} defaults to {node!r}"


def test_table_is_what_helm_renders(rendered_runtimes: dict[str, dict[str, Any]]) -> None:
    """Every runtime of the chart, with its replicated jobs and their containers."""
    assert sorted(rendered_runtimes) == sorted(r.name for r in TABLE)
    by_name = {r.name: r for r in TABLE}
    for name, obj in rendered_runtimes.items():
        pods = {job: tuple(c["name"] for c in pod["containers"]) for job, pod in _pods(obj).items()}
        assert dict(by_name[name].pods) == pods, name


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


def test_patched_runtimes_validate_and_keep_their_fields(
    rendered_runtimes: dict[str, dict[str, Any]], every_runtime: Rendered, upstream: Path
) -> None:
    crds = every_runtime.find("CustomResourceDefinition")
    merged = []
    for runtime in TABLE:
        live = rendered_runtimes[runtime.name]
        obj = patched_runtime(live, runtime_patch(runtime, "2.3.0", "d"))
        merged.append(obj)
        assert obj["spec"]["mlPolicy"] == live["spec"]["mlPolicy"]
        for job, pod in _pods(obj).items():
            before = _pods(live)[job]
            assert pod["runtimeClassName"] == "nvidia"
            assert {"name": "dshm", "emptyDir": {"medium": "Memory"}} in pod["volumes"]
            assert [c["image"] for c in pod["containers"]] == [
                c["image"] for c in before["containers"]
            ]
            for container in pod["containers"]:
                assert {"name": "dshm", "mountPath": "/dev/shm"} in container["volumeMounts"]
    assert problems_of([*merged, *crds], upstream) == []


def test_the_validator_rejects_a_broken_patch(
    rendered_runtimes: dict[str, dict[str, Any]], upstream: Path
) -> None:
    patch = runtime_patch(TABLE[0], "2.3.0", "d")
    pod = _pods(patch)["node"]
    pod["runtimeClass"] = "nvidia"  # typo: the server would refuse it (strict fields)
    obj = patched_runtime(rendered_runtimes[TABLE[0].name], patch)
    _pods(obj)["node"]["runtimeClass"] = "nvidia"
    (problem,) = problems_of([obj], upstream)
    assert "runtimeClass: Invalid value: value provided for unknown field" in problem


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
