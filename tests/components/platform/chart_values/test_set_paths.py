"""Helm values paths are checked against the pinned chart's own values (issue #27, item 4).

`gpu-ci:platform.set` paths at config time, and every path of the project catalog's values
files and overrides here, against `recipes/chart-values/<chart>-<version>/`.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from components.platform.chart_values.defaults import from_values_text
from components.platform.chart_values.lookup import (
    CHART_VALUES,
    ChartValues,
    chart_values,
    set_problems,
    unknown_paths,
)
from components.platform.chart_values.paths import render
from components.platform.platform_config import PlatformConfig
from recipes import PROJECT_CATALOG, Catalog, load_catalog
from stacks.config.recipe import recipe_problems, resolve_recipe
from tests.components.platform.platform_helpers import project_catalog, project_recipe
from tests.stacks.test_newcomer_errors import config_error, dev_with, project, refused

SET = "gpu-ci:platform.set"


def set_messages(*items: str) -> list[str]:
    """The problems `resolve_recipe` reports for the project recipe with these `set` items."""
    _, problems = resolve_recipe(PlatformConfig(set=list(items)), "a10")
    return [str(p) for p in problems]


def trainer() -> ChartValues:
    found = chart_values("kubeflow-trainer", "2.3.0")
    assert found is not None
    return found


def operator() -> ChartValues:
    found = chart_values("nvidia/gpu-operator", "v26.7.0")
    assert found is not None
    return found


# -- the issue's example ---------------------------------------------------------------------
def test_the_issues_typo_is_one_error_at_the_key_with_did_you_mean() -> None:
    assert set_messages("kubeflow-trainer:image.tagg=test") == [
        f"{SET}[0]: platform override 'kubeflow-trainer:image.tagg': the kubeflow-trainer "
        "chart (2.3.0) has no value 'image.tagg' (did you mean 'image.tag'?); keys under "
        "'image': pullPolicy, pullSecrets, registry, repository, tag"
    ]
    assert set_messages("kubeflow-trainer:image.tag=test") == []


def test_a_typo_comes_with_the_configs_other_problems_before_anything_registers(
    tmp_path: Path,
) -> None:
    text = dev_with(
        ("gpu-ci:owner: kubeflow-trainer-ci", 'gpu-ci:owner: "kubeflow trainer"'),
        (
            "    set: []",
            '    set: ["gpu-operator:dcgmExporter.enabled=false", '
            '"kubeflow-trainer:image.tagg=test"]',
        ),
    )
    assert refused(project(tmp_path, {"dev": text})) == config_error(
        "dev",
        "  - gpu-ci:owner: String should match pattern '^[A-Za-z0-9][A-Za-z0-9._@-]{0,62}$' "
        "[given: 'kubeflow trainer']",
        f"  - {SET}[1]: platform override 'kubeflow-trainer:image.tagg': the kubeflow-trainer "
        "chart (2.3.0) has no value 'image.tagg' (did you mean 'image.tag'?); keys under "
        "'image': pullPolicy, pullSecrets, registry, repository, tag",
    )


def test_recipe_problems_of_an_otherwise_invalid_config_include_the_typo() -> None:
    values = {"platform": {"accelerator": "a10", "set": ["gpu-operator:drvier.enabled=false"]}}
    (problem,) = recipe_problems(values)
    assert problem.key == f"{SET}[0]"
    assert "has no value 'drvier' (did you mean 'driver.enabled'?); top-level keys: " in str(
        problem
    )


def test_each_entry_is_named_once_and_a_misspelt_component_is_not_also_a_path() -> None:
    messages = set_messages(
        "gpu-opertor:drvier.enabled=false",
        "gpu-operator:driver.enabled=false",
        "gpu-operator:driver.enabled.x=1",
        "kubeflow-trainer:enabled=false",
    )
    assert [m.split(":", 2)[1] for m in messages] == ["platform.set[0]", "platform.set[2]"]
    assert "component is not in the recipe" in messages[0]
    assert messages[1].endswith(
        "'driver.enabled' is a boolean in the gpu-operator chart (v26.7.0), so nothing can "
        "be set under it"
    )


# -- what is free-form -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "item",
    [
        "kubeflow-trainer:manager.podAnnotations.example\\.com/owner=ci",  # {} default
        "kubeflow-trainer:manager.nodeSelector.pool=gpu",  # {} default
        "kubeflow-trainer:manager.config.featureGates.SomeGate=true",  # {} default
        "kubeflow-trainer:runtimes.commonLabels.team=ci",  # a map of labels
        "kubeflow-trainer:manager.securityContext.runAsUser=1000",  # a Kubernetes object
        "gpu-operator:operator.resources.requests.ephemeral-storage=1Gi",
        "gpu-operator:operator.nodeSelector.pool=gpu",  # {kubernetes.io/os: linux}
        "gpu-operator:operator.metrics.serviceMonitor.additionalLabels.team=ci",  # documented {}
    ],
)
def test_a_path_under_a_free_form_value_is_accepted(item: str) -> None:
    assert set_messages(item) == []


@pytest.mark.parametrize(
    "item",
    [
        "gpu-operator:operator.metrics.serviceMonitor.interval=30s",  # `# metrics:` block
        "gpu-operator:hostPaths.kubeletRootDir=/var/lib/k0s/kubelet",  # `# kubeletRootDir:`
        "gpu-operator:validator.version=v26.7.0",  # `#version: ""`
        "gpu-operator:dcgmExporter.config.name=my-metrics",  # `# config:` block
    ],
)
def test_a_key_the_chart_documents_in_a_comment_is_known(item: str) -> None:
    assert set_messages(item) == []


@pytest.mark.parametrize(
    ("item", "unknown"),
    [
        ("gpu-operator:operator.metrics.serviceMonitor.intervall=30s", "interval"),
        ("gpu-operator:operator.logging.levle=debug", "level"),
        ("kubeflow-trainer:manager.config.webhook.prot=9443", "port"),
    ],
)
def test_documented_and_nested_maps_are_not_free_form(item: str, unknown: str) -> None:
    (message,) = set_messages(item)
    assert f".{unknown}'?)" in message


def test_the_free_form_rules_read_from_a_values_file() -> None:
    text = """\
# -- plain keys
image:
  tag: ""
extraEnv: []
podSpec: {}
optional:
  # key: value
nothing:
labels:
  app.kubernetes.io/part-of: ci
config:
  retries: 3
  # NOTE: the retry count is per request and not per job
  # timeout: 30s
  # proxy:
  #   url: ""
  # hosts:
  #   - "a.example"
  #   - "b.example"
script: |
  # notAKey: 1
  echo hi
"""
    chart = ChartValues("demo", "1.0.0", from_values_text(text))
    ok: list[list[str | int]] = [
        ["image", "tag"],
        ["extraEnv", 0, "name"],
        ["podSpec", "anything", "at", "all"],
        ["optional", "anything"],  # null, documented as a map
        ["labels", "team"],
        ["config", "timeout"],
        ["config", "proxy", "url"],
        ["config", "hosts", 3],  # documented as a list
        ["script"],
    ]
    assert [p for p in ok if chart.miss(p) is not None] == []
    refused = {
        "image.tagg": "has no value 'image.tagg' (did you mean 'image.tag'?)",
        "image.tag.x": "'image.tag' is a string in the demo chart (1.0.0)",
        "nothing.x": "'nothing' is null in the demo chart (1.0.0)",  # null, not documented
        "config.NOTE": "has no value 'config.NOTE'",  # prose, not a key
        "config.proxy.uri": "(did you mean 'config.proxy.url'?)",
        "script.notAKey": "'script' is a string",  # a `#` line in a block scalar
    }
    for path, expected in refused.items():
        assert expected in (chart.miss(path.split(".")) or ""), path


# -- subcharts and lists ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "item",
    [
        "gpu-operator:node-feature-discovery.worker.anything.at.all=1",
        "kubeflow-trainer:jobset.controller.replicas=2",
        "kubeflow-trainer:lws.enableCertManager=true",
        "kubeflow-trainer:global.imageRegistry=mirror.example",
    ],
)
def test_a_path_under_a_dependency_is_accepted(item: str) -> None:
    assert set_messages(item) == []


def test_a_dependency_is_what_opens_its_name(tmp_path: Path) -> None:
    for folder, deps in {"one-1.0.0": [{"name": "sub"}], "two-1.0.0": []}.items():
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "values.yaml").write_text("own: 1\nsub:\n  known: true\n")
        (tmp_path / folder / "Chart.yaml").write_text(yaml.safe_dump({"dependencies": deps}))
    with_dependency = chart_values("one", "1.0.0", tmp_path)
    without = chart_values("two", "1.0.0", tmp_path)
    assert with_dependency is not None and without is not None
    assert with_dependency.miss(["sub", "other"]) is None
    assert with_dependency.miss(["global", "x"]) is None
    assert without.miss(["sub", "other"]) == (
        "the two chart (1.0.0) has no value 'sub.other'; keys under 'sub': known"
    )
    assert without.miss(["global", "x"]) is not None


def test_a_list_index_path() -> None:
    chart = operator()
    assert chart.miss(["daemonsets", "tolerations", 0, "tolerationSeconds"]) is None
    assert chart.miss(["driver", 0]) == (
        "'driver' is a map in the gpu-operator chart (v26.7.0), not a list [given: 'driver[0]']"
    )
    assert chart.miss(["daemonsets", "tolerations", "key"]) == (
        "'daemonsets.tolerations' is a list in the gpu-operator chart (v26.7.0), not a map "
        "[given: 'daemonsets.tolerations.key']"
    )
    assert (
        render(["nodeSelector", "nvidia.com/gpu", 0, "x"]) == "nodeSelector.nvidia\\.com/gpu[0].x"
    )


def test_a_list_index_in_set_is_one_error_the_parser_gives() -> None:
    with pytest.raises(ValidationError) as err:
        PlatformConfig(set=["gpu-operator:daemonsets.tolerations[0].key=x"])
    assert err.value.error_count() == 1
    assert "list indexes are not supported" in str(err.value)


def test_a_schema_describes_list_items(tmp_path: Path) -> None:
    folder = tmp_path / "svc-2.0.0"
    folder.mkdir()
    (folder / "values.yaml").write_text("ports: []\nunlisted: 1\n")  # the schema wins
    schema = {
        "type": "object",
        "properties": {
            "ports": {"type": "array", "items": {"$ref": "#/definitions/port"}},
            "extra": {"type": "object", "additionalProperties": {"type": "string"}},
            "name": {"type": "string"},
        },
        "definitions": {
            "port": {"type": "object", "properties": {"name": {}, "port": {"type": "integer"}}}
        },
    }
    (folder / "values.schema.json").write_text(json.dumps(schema))
    chart = chart_values("svc", "2.0.0", tmp_path)
    assert chart is not None
    values = {"ports": [{"name": "http", "prot": 80}], "extra": {"a": "b"}, "unlisted": 2}
    assert unknown_paths(chart, values) == [
        "ports[0].prot: the svc chart (2.0.0) has no value 'ports[0].prot' (did you mean "
        "'ports[0].port'?); keys under 'ports[0]': name, port",
        "unlisted: the svc chart (2.0.0) has no value 'unlisted'; top-level keys: extra, "
        "name, ports",
    ]
    assert chart.miss(["name", "x"]) == (
        "'name' is a string in the svc chart (2.0.0), so nothing can be set under it"
    )


def test_a_chart_version_without_values_is_not_checked() -> None:
    assert chart_values("prometheus-community/kube-prometheus-stack", "84.4.0") is None
    recipe = project_recipe(project_catalog())
    ref = recipe.component("kubeflow-trainer")
    assert ref is not None
    assert set_problems(["kubeflow-trainer:image.tagg=x"], recipe) != []
    ref.version = "9.9.9"
    assert set_problems(["kubeflow-trainer:image.tagg=x"], recipe) == []


# -- the project's catalog -------------------------------------------------------------------
def catalog_values(catalog: Catalog) -> Iterator[tuple[str, ChartValues | None, dict[str, Any]]]:
    """(source, the chart's values, values) for every values file and override in `catalog`,
    the chart and version as the registry and overlay pin them."""
    for overlay in catalog.overlays.values():
        for ref in overlay.doc.spec.componentRefs:
            entry = catalog.registry.get(ref.name)
            chart = ref.chart or (entry.helm.defaultChart if entry else "")
            if not chart:
                continue  # manifest-only
            version = ref.version or (entry.helm.defaultVersion if entry else "")
            known = chart_values(chart, version)
            if ref.valuesFile:
                yield ref.valuesFile, known, catalog.read_yaml(ref.valuesFile)
            overrides = {k: v for k, v in ref.overrides.items() if k != "enabled"}  # AICR's
            if overrides:
                yield f"{overlay.rel} overrides", known, overrides


def catalog_problems(catalog: Catalog) -> list[str]:
    problems = []
    for source, known, values in catalog_values(catalog):
        if known is None:
            problems.append(f"{source}: no chart values in {CHART_VALUES} for its chart")
        else:
            problems += [f"{source}: {message}" for message in unknown_paths(known, values)]
    return problems


def test_every_path_of_the_project_catalog_is_known_to_its_chart() -> None:
    catalog = project_catalog()
    checked = {source for source, _, _ in catalog_values(catalog)}
    files = {
        str(p.relative_to(PROJECT_CATALOG))
        for p in (PROJECT_CATALOG / "components").glob("*/values*.yaml")
    }
    assert files and files <= checked  # every values file is used, so checked
    assert catalog_problems(catalog) == []


def test_the_catalog_check_catches_an_unknown_key(tmp_path: Path) -> None:
    copy = tmp_path / "catalog"
    shutil.copytree(PROJECT_CATALOG, copy)
    path = copy / "components/kubeflow-trainer/values-gpu-ci.yaml"
    path.write_text(
        path.read_text().replace(
            "  jaxDistributed:\n    enabled: true", "  jaxDistributed:\n    enabeld: true"
        )
    )
    overlay = copy / "overlays/kind-a10.yaml"
    overlay.write_text(
        overlay.read_text().replace(
            "      valuesFile: components/gpu-operator/values-kind-a10.yaml",
            "      valuesFile: components/gpu-operator/values-kind-a10.yaml\n"
            "      overrides:\n        devicePlugin:\n          confg: {name: x}",
        )
    )
    assert catalog_problems(load_catalog([copy])) == [
        "components/kubeflow-trainer/values-gpu-ci.yaml: runtimes.jaxDistributed.enabeld: the "
        "kubeflow-trainer chart (2.3.0) has no value 'runtimes.jaxDistributed.enabeld' (did you "
        "mean 'runtimes.jaxDistributed.enabled'?); keys under 'runtimes.jaxDistributed': enabled",
        "overlays/kind-a10.yaml overrides: devicePlugin.confg: the gpu-operator chart (v26.7.0) "
        "has no value 'devicePlugin.confg' (did you mean 'devicePlugin.config'?); keys under "
        "'devicePlugin': args, config, enabled, env, hostNetwork, image, imagePullPolicy, "
        "imagePullSecrets, mps, repository, resources, version",
    ]


# -- the data --------------------------------------------------------------------------------
def test_every_chart_values_folder_says_where_it_is_from() -> None:
    folders = sorted(p for p in CHART_VALUES.iterdir() if p.is_dir())
    assert [p.name for p in folders] == ["gpu-operator-v26.7.0", "kubeflow-trainer-2.3.0"]
    for folder in folders:
        assert {"values.yaml", "Chart.yaml", "LICENSE", "SOURCE.md"} <= {
            p.name for p in folder.iterdir()
        }, folder
        chart = yaml.safe_load((folder / "Chart.yaml").read_text())
        assert folder.name.startswith(f"{chart['name']}-")


@pytest.mark.parametrize(
    ("folder", "upstream_chart"),
    [("gpu-operator-v26.7.0", "gpu-operator"), ("kubeflow-trainer-2.3.0", "kubeflow-trainer")],
)
def test_the_shipped_values_are_the_upstream_files_unmodified(
    upstream: Path, folder: str, upstream_chart: str
) -> None:
    for name in ("values.yaml", "Chart.yaml"):
        ours = (CHART_VALUES / folder / name).read_bytes()
        assert ours == (upstream / "charts" / upstream_chart / name).read_bytes(), name
