"""`check_stack` on small recorded runs whose releases are small charts the pinned Helm
renders: which releases render (and with which API versions), which are not checked, what
Helm refuses, the dead values at their keys (a problem, or a warning for a recipe value), and
kubectl-validate's verdict."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from recipes.model.overlays import ComponentRef
from stacks.offline.charts.check import ChartTools, StackCharts, check_stack, render_stack
from stacks.offline.charts.value_keys import ValueSources
from stacks.offline.engine.records import ProgramRun, Registration
from tests.stacks.offline.charts.scratch_charts import packed, scratch_chart
from tests.stacks.offline.charts.synthetic_runs import (
    platform_parent,
    program_run,
    registration,
    release,
)
from tests.upstream_tools import tool

CLUSTER = {"cluster": {"kubernetesVersion": "v1.33.1"}}
REFERENCE = "pulumi:pulumi:StackReference"
WIDGET_CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.a.io}
spec:
  group: a.io
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
"""
PROBE = """apiVersion: v1
kind: ConfigMap
metadata: {name: {{ .Release.Name }}}
data:
  tag: {{ .Values.image.tag | quote }}
  widgets: {{ .Capabilities.APIVersions.Has "a.io/v1/Widget" | quote }}
  {{- if .Values.monitor.enabled }}
  interval: {{ .Values.monitor.interval | quote }}
  {{- end }}
"""
PROBE_VALUES = "image:\n  tag: v1\nmonitor:\n  enabled: false\n  interval: 1m\n"


@pytest.fixture(scope="module")
def charts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """probe (reads image.tag, monitor.interval while monitor.enabled), widgets (installs
    the Widget CRD), strict (refuses a cluster that serves a.io/v1), broken (always
    refuses), badmap (a ConfigMap the API server would refuse)."""
    folder = tmp_path_factory.mktemp("charts")
    scratch_chart(folder, "probe", PROBE_VALUES, {"cm.yaml": PROBE}, dirname="probe-0.1.0")
    widgets = scratch_chart(folder, "widgets", None, {}, dirname="widgets-0.1.0")
    (widgets / "crds").mkdir()
    (widgets / "crds" / "widget.yaml").write_text(WIDGET_CRD, encoding="utf-8")
    strict = '{{ if .Capabilities.APIVersions.Has "a.io/v1" }}{{ fail "no a.io here" }}{{ end }}'
    scratch_chart(folder, "strict", None, {"s.yaml": strict}, dirname="strict-0.1.0")
    scratch_chart(folder, "broken", None, {"b.yaml": '{{ fail "broken" }}'}, dirname="broken-0.1.0")
    badmap = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad}\ndata: {a: 1}\n"
    scratch_chart(folder, "badmap", None, {"b.yaml": badmap}, dirname="badmap-0.1.0")
    return folder


def _tools(charts: Path, **more: Any) -> ChartTools:
    return ChartTools(tool("helm"), (charts,), **more)


def _probe(values: dict[str, Any], **more: Any) -> Registration:
    return release("probe", "probe", "0.1.0", values, source="stacks/layers/probe.py:3", **more)


def _check(run: ProgramRun, tools: ChartTools, sources: ValueSources | None = None) -> StackCharts:
    return check_stack(run, {run.stack: run}, tools, sources or ValueSources())


def test_a_stack_without_releases_renders_nothing(charts: Path) -> None:
    found = render_stack(program_run("t", [], CLUSTER), {}, _tools(charts))
    assert found == StackCharts("t", "v1.33.1")


def test_releases_without_a_kubernetes_version_cannot_be_rendered(charts: Path) -> None:
    found = render_stack(program_run("t", [_probe({})]), {}, _tools(charts))
    assert found.problems == [
        "t: the plan says no Kubernetes version for its cluster, so no chart can be rendered for it"
    ]
    assert found.renders == []


def test_a_release_without_its_chart_is_listed_not_checked(charts: Path, tmp_path: Path) -> None:
    run = program_run("t", [release("gone", "oci://r.io/x/gone", "1.2.3", {}), _probe({})], CLUSTER)
    found = render_stack(run, {}, ChartTools(tool("helm"), (tmp_path, charts)))
    assert found.unchecked == [
        f"t/gone (gone 1.2.3): no gone-1.2.3/ or .tgz in {tmp_path}, {charts} (`helm pull "
        "oci://r.io/x/gone --version 1.2.3` there)"
    ]
    assert [r.release.name for r in found.renders] == ["probe"]
    assert found.problems == []


def test_every_release_renders_with_the_apis_of_the_crds_the_stack_installs(
    charts: Path,
) -> None:
    run = program_run(
        "t", [_probe({}), release("widgets", "widgets", "0.1.0", {}, namespace="w")], CLUSTER
    )
    found = render_stack(run, {}, _tools(charts))
    assert found.problems == []
    probe, widgets = found.renders
    apis = ("a.io/v1", "a.io/v1/Widget")
    assert (probe.target.api_versions, widgets.target.api_versions) == (apis, apis)
    assert (widgets.target.namespace, probe.target.kube_version) == ("w", "1.33.1")
    (config_map,) = probe.rendered.find("ConfigMap", "probe")
    assert config_map["data"]["widgets"] == "true"
    assert [o["kind"] for o in widgets.rendered.objects] == ["CustomResourceDefinition"]


def test_without_crds_each_release_renders_once_with_no_extra_apis(charts: Path) -> None:
    found = render_stack(program_run("t", [_probe({})], CLUSTER), {}, _tools(charts))
    (probe,) = found.renders
    assert probe.target.api_versions == ()
    assert probe.rendered.find("ConfigMap")[0]["data"]["widgets"] == "false"


def test_what_helm_refuses_is_a_problem_at_the_release_first_render_or_second(
    charts: Path,
) -> None:
    run = program_run(
        "t",
        [
            release("broken", "broken", "0.1.0", {}),
            release("strict", "strict", "0.1.0", {}),
            release("widgets", "widgets", "0.1.0", {}),
        ],
        CLUSTER,
    )
    found = render_stack(run, {}, _tools(charts))
    broken, strict = found.problems
    assert broken.startswith("t/broken (broken 0.1.0): helm template refuses it: Error: ")
    assert broken.endswith(": broken Use --debug flag to render out invalid YAML")
    assert strict.startswith("t/strict (strict 0.1.0): helm template refuses it: Error: ")
    assert "no a.io here" in strict
    assert [r.release.name for r in found.renders] == ["widgets"]


def test_a_typo_and_a_value_the_chart_ignores_are_problems_at_gpu_cis_code(
    charts: Path,
) -> None:
    values = {"image": {"tag": "v2", "tagg": "v3"}, "monitor": {"interval": "5m"}}
    found = _check(program_run("t", [_probe(values)], CLUSTER), _tools(charts))
    where = "stacks/layers/probe.py:3 (gpu-ci's values of release probe)"
    assert found.problems == [
        f"{where}: image.tagg: the probe chart (0.1.0) has no value 'image.tagg' (did you mean "
        "'image.tag'?); keys under 'image': tag; so it changes nothing Helm renders: fix the "
        "path or remove it",
        f"{where}: monitor.interval: 'monitor.interval' changes nothing the probe chart (0.1.0) "
        "renders with this stack's other values (a dead value): remove it, or also set what "
        "makes the chart use it",
    ]
    assert found.warnings == []


def test_a_recipe_value_this_stack_turns_off_is_a_warning_its_typo_a_problem(
    charts: Path,
) -> None:
    parent = platform_parent()
    values = {"monitor": {"interval": "5m", "intervall": "1m"}}
    run = program_run("t", [parent, _probe(values, parent=parent.urn)], CLUSTER)
    ref = ComponentRef(name="probe", overrides=values)
    found = _check(run, _tools(charts), ValueSources(refs={"probe": ref}, overlays=("o",)))
    where = "the recipe's overrides of probe (overlays o)"
    assert found.warnings == [
        f"{where}: monitor.interval: 'monitor.interval' changes nothing the probe chart (0.1.0) "
        "renders with this stack's other values: the recipe's value, for the stacks that leave "
        "its feature on; this one turns it off (nothing to fix unless the stack meant to use it)"
    ]
    (typo,) = found.problems
    assert typo.startswith(
        f"{where}: monitor.intervall: the probe chart (0.1.0) has no value 'monitor.intervall'"
    )


def test_render_only_skips_the_dead_values(charts: Path) -> None:
    run = program_run("t", [_probe({"image": {"tagg": "v3"}})], CLUSTER)
    found = _check(run, _tools(charts, dead_values=False))
    assert (found.problems, len(found.renders)) == ([], 1)


def test_with_a_validator_every_rendered_object_is_validated(charts: Path) -> None:
    run = program_run(
        "t", [release("badmap", "badmap", "0.1.0", {}), _probe({"image": {"tag": "v2"}})], CLUSTER
    )
    assert _check(run, _tools(charts)).problems == []
    found = _check(run, _tools(charts, validator=tool("kubectl-validate")))
    assert found.problems == [
        't/badmap (badmap 0.1.0): ConfigMap bad: data.a: Invalid value: "integer": data.a in '
        'body must be of type string: "integer"'
    ]


def test_the_validator_is_not_run_when_nothing_rendered(charts: Path, tmp_path: Path) -> None:
    """A missing validator would fail the check if it ran."""
    tools = _tools(charts, validator=tmp_path / "no-validator")
    run = program_run("t", [release("gone", "gone", "1.0.0", {})], CLUSTER)
    assert _check(run, tools).problems == []
    no_version = program_run("t", [_probe({})])
    assert len(_check(no_version, tools).problems) == 1


GADGET_CRD = WIDGET_CRD.replace("widgets", "gadgets").replace("Widget", "Gadget")
GADGET_CRD = GADGET_CRD.replace("a.io", "b.io")


def test_the_findings_of_every_release_and_the_validator_are_all_kept(charts: Path) -> None:
    parent = platform_parent()
    recipe = {"monitor": {"interval": "5m"}}
    run = program_run(
        "t",
        [
            parent,
            _probe(recipe, parent=parent.urn),
            release("typo", "probe", "0.1.0", {"imagee": {"tag": "v2"}}, source="s.py:2"),
            release("badmap", "badmap", "0.1.0", {}),
            release("clean", "probe", "0.1.0", {}),
        ],
        CLUSTER,
    )
    sources = ValueSources(refs={"probe": ComponentRef(name="probe", overrides=recipe)})
    found = _check(run, _tools(charts, validator=tool("kubectl-validate")), sources)
    assert [line.split(":")[0] for line in found.warnings] == [
        "the recipe's overrides of probe (overlays base)"
    ]
    typo, invalid = found.problems
    assert typo.startswith("s.py:2 (gpu-ci's values of release typo): imagee.tag: the probe")
    assert invalid.startswith("t/badmap (badmap 0.1.0): ConfigMap bad: data.a: ")


def test_a_value_is_dead_or_live_against_the_render_with_crds(charts: Path) -> None:
    """The chart installs a CRD: its probes are rendered with it too, as the base is."""
    run = program_run("t", [release("widgets", "widgets", "0.1.0", {"colour": "red"})], CLUSTER)
    (dead,) = _check(run, _tools(charts)).problems
    assert dead.startswith("stacks/layers/widgets.py:10 (gpu-ci's values of release widgets): ")
    assert "'colour' changes nothing the widgets chart (0.1.0) renders" in dead


def test_the_chart_is_named_at_the_release_version_and_read_packed_too(
    charts: Path, tmp_path: Path
) -> None:
    """gpu-operator's releases say `v26.7.0`; a packed chart's keys come from `helm show`."""
    packed_folder = tmp_path / "packed"
    packed(charts / "probe-0.1.0", packed_folder)
    values = {"image": {"tagg": "x"}}
    run = program_run("t", [release("probe", "probe", "v0.1.0", values)], CLUSTER)
    for folder in (charts, packed_folder):
        (typo,) = _check(run, ChartTools(tool("helm"), (folder,))).problems
        assert "the probe chart (v0.1.0) has no value 'image.tagg' (did you mean 'image.tag'" in (
            typo
        )


def test_a_stack_on_another_stacks_cluster_renders_for_that_version(charts: Path) -> None:
    cluster = program_run("cluster", [], {"cluster": {"kubernetesVersion": "v1.34.2"}})
    reference = registration(REFERENCE, "c", {"name": "org/gpu-ci/cluster"})
    apps = program_run("apps", [reference, _probe({})])
    found = check_stack(apps, {"apps": apps, "cluster": cluster}, _tools(charts), ValueSources())
    assert (found.kube_version, found.problems) == ("v1.34.2", [])
    assert found.renders[0].target.kube_version == "1.34.2"


def test_the_validator_reads_the_crd_folders_given(charts: Path, tmp_path: Path) -> None:
    gadget = "apiVersion: b.io/v1\nkind: Gadget\nmetadata: {name: g}\n"
    scratch_chart(tmp_path, "gadget", None, {"g.yaml": gadget}, dirname="gadget-0.1.0")
    crds = tmp_path / "crds"
    crds.mkdir()
    (crds / "gadget.yaml").write_text(GADGET_CRD, encoding="utf-8")
    run = program_run("t", [release("gadget", "gadget", "0.1.0", {})], CLUSTER)
    validator = tool("kubectl-validate")
    tools = ChartTools(tool("helm"), (tmp_path,), validator)
    (unknown,) = _check(run, tools).problems
    assert unknown.endswith("failed to locate OpenAPI spec for GV: b.io/v1")
    assert _check(run, ChartTools(tool("helm"), (tmp_path,), validator, (crds,))).problems == []
