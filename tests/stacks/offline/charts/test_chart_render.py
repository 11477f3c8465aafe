"""`helm template` as the chart check runs it: the pinned Helm on a small chart shows what it
is given (release name, namespace, Kubernetes version, API versions, CRDs, values); a stub
Helm records the exact call, the scratch homes and the values file."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from stacks.offline.charts.release import ChartCheckError, HelmRelease
from stacks.offline.charts.render import (
    Rendered,
    RenderError,
    RenderTarget,
    api_versions_of,
    render,
    target_for,
)
from tests.stacks.offline.charts.scratch_charts import scratch_chart
from tests.upstream_tools import tool

CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object}}
"""
SHOWN = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-shown
  namespace: {{ .Release.Namespace }}
data:
  kube: {{ .Capabilities.KubeVersion.Version | quote }}
  widgets: {{ .Capabilities.APIVersions.Has "example.com/v1/Widget" | quote }}
  {{- if .Values.fail }}{{ fail "told to fail" }}{{ end }}
  greeting: {{ .Values.greeting | quote }}
---
# a document of comments only is no object
---
kind: ""
"""


@pytest.fixture
def chart(tmp_path: Path) -> Path:
    folder = scratch_chart(tmp_path, "shown", "greeting: hello\n", {"shown.yaml": SHOWN})
    (folder / "crds").mkdir()
    (folder / "crds" / "widget.yaml").write_text(CRD, encoding="utf-8")
    return folder


def _target(chart: Path, **more: Any) -> RenderTarget:
    return RenderTarget(tool("helm"), chart, more.pop("name", "rel"), "team-a", "1.33.1", **more)


def test_helm_renders_the_release_for_the_clusters_version_with_the_values(chart: Path) -> None:
    release = HelmRelease(
        stack="t",
        resource="r",
        name="demo",
        chart="shown",
        version="0.1.0",
        namespace="team-a",
        values={},
        source="x.py:1",
    )
    target = target_for(release, tool("helm"), chart, "v1.33.1")
    assert target == RenderTarget(tool("helm"), chart, "demo", "team-a", "1.33.1", ())
    done = render(target, {"greeting": "hi"})
    (shown,) = done.objects
    assert shown["metadata"] == {"name": "demo-shown", "namespace": "team-a"}
    assert shown["data"] == {"kube": "v1.33.1", "widgets": "false", "greeting": "hi"}
    assert done.find("CustomResourceDefinition") == []


def test_the_api_versions_given_are_what_the_chart_sees(chart: Path) -> None:
    target = _target(chart, api_versions=("example.com/v1", "example.com/v1/Widget"))
    (shown,) = render(target, {}).find("ConfigMap")
    assert shown["data"]["widgets"] == "true"


def test_crds_come_with_the_render_only_when_asked(chart: Path) -> None:
    target = _target(chart)
    assert [o["kind"] for o in render(target, {}, crds=True).objects] == [
        "CustomResourceDefinition",
        "ConfigMap",
    ]
    assert render(target, {}, crds=True).find("ConfigMap", "rel-shown") != []
    assert render(target, {}, crds=True).find("ConfigMap", "other") == []


def test_a_render_helm_refuses_is_one_error_with_helms_words(chart: Path) -> None:
    with pytest.raises(RenderError) as raised:
        render(_target(chart), {"fail": True})
    assert str(raised.value) == (  # Helm's two lines, as one
        "Error: execution error at (shown/templates/shown.yaml:9:27): told to fail "
        "Use --debug flag to render out invalid YAML"
    )


STUB = """#!{python}
import json, os, sys
args = sys.argv[1:]
values = args[args.index("--values") + 1]
homes = {{k: v for k, v in os.environ.items() if k.startswith("HELM_")}}
with open({log!r}, "a") as log:
    log.write(json.dumps({{"args": args, "values": open(values).read(), "homes": homes}}) + "\\n")
sys.stdout.write("kind: ConfigMap\\nmetadata: {{name: stub}}\\n")
sys.exit(int(os.environ.get("STUB_EXIT", "0")))
"""


@pytest.fixture
def stub(tmp_path: Path) -> tuple[Path, Path]:
    """A Helm that records each call (arguments, the values file's text, HELM_* homes)."""
    log = tmp_path / "calls.jsonl"
    helm = tmp_path / "helm"
    helm.write_text(STUB.format(python=sys.executable, log=str(log)), encoding="utf-8")
    helm.chmod(0o755)
    return helm, log


def _calls(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def test_the_call_is_helm_template_in_scratch_homes(
    stub: tuple[Path, Path], tmp_path: Path
) -> None:
    helm, log = stub
    target = RenderTarget(helm, tmp_path / "c", "r1", "ns", "1.35.0", ("a/v1", "a/v1/K"))
    assert render(target, {"b": 1, "a": {"c": [1]}}, crds=True).text == (
        "kind: ConfigMap\nmetadata: {name: stub}\n"
    )
    (call,) = _calls(log)
    values_file = call["args"][8]
    assert call["args"] == [
        "template",
        "r1",
        str(tmp_path / "c"),
        "--namespace",
        "ns",
        "--kube-version",
        "1.35.0",
        "--values",
        values_file,
        "--api-versions=a/v1",
        "--api-versions=a/v1/K",
        "--include-crds",
    ]
    assert json.loads(call["values"]) == {"a": {"c": [1]}, "b": 1}
    scratch = Path(values_file).parent
    assert call["homes"] == {
        "HELM_CACHE_HOME": str(scratch / "cache"),
        "HELM_CONFIG_HOME": str(scratch / "config"),
        "HELM_DATA_HOME": str(scratch / "data"),
    }
    assert not scratch.exists()  # removed with everything Helm wrote there


def test_the_same_values_in_any_key_order_render_once(
    stub: tuple[Path, Path], tmp_path: Path
) -> None:
    helm, log = stub
    target = RenderTarget(helm, tmp_path / "once", "r", "ns", "1.35.0")
    render(target, {"a": 1, "b": {"c": 2, "d": 3}})
    render(target, {"b": {"d": 3, "c": 2}, "a": 1})
    assert len(_calls(log)) == 1
    render(target, {"a": 1, "b": {"c": 2, "d": 3}}, crds=True)
    assert len(_calls(log)) == 2


def test_a_helm_that_fails_silently_is_named_by_its_exit(
    stub: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    helm, _ = stub
    monkeypatch.setenv("STUB_EXIT", "3")
    with pytest.raises(RenderError, match=r"^helm exited 3$"):
        render(RenderTarget(helm, tmp_path / "silent", "r", "ns", "1.35.0"), {})


def test_a_helm_that_cannot_start_is_one_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "no-helm"
    with pytest.raises(ChartCheckError, match=rf"^{missing}: cannot run helm \("):
        render(RenderTarget(missing, tmp_path / "c", "r", "ns", "1.35.0"), {})


def test_the_api_versions_of_the_served_crd_versions() -> None:
    def crd(group: str, kind: str, versions: list[dict[str, Any]]) -> dict[str, Any]:
        names = {"kind": kind}
        spec = {"group": group, "names": names, "versions": versions}
        return {"kind": "CustomResourceDefinition", "spec": spec}

    nameless = crd("d.io", "", [{"name": "v1"}])
    del nameless["spec"]["names"]
    objects = [
        {"kind": "ConfigMap", "spec": {"group": "c.io", "versions": [{"name": "v1"}]}},
        crd("b.io", "Gadget", [{"name": "v1"}, {"name": "v2", "served": False}]),
        crd("a.io", "Widget", [{"name": "v1beta1", "served": True}]),
        nameless,  # no kind to name: its group/version only
    ]
    assert api_versions_of(objects) == (
        "a.io/v1beta1",
        "a.io/v1beta1/Widget",
        "b.io/v1",
        "b.io/v1/Gadget",
        "d.io/v1",
    )
    assert api_versions_of([{"kind": "CustomResourceDefinition"}]) == ()


def test_objects_are_the_documents_with_a_kind() -> None:
    text = "kind: A\nmetadata: {name: x}\n---\n# none\n---\n- a list\n---\nkind: B\nmetadata: {}\n"
    rendered = Rendered(text)
    assert [o["kind"] for o in rendered.objects] == ["A", "B"]
    assert rendered.find("A", "x") == [{"kind": "A", "metadata": {"name": "x"}}]
    assert rendered.find("B", "x") == []
    assert [o["kind"] for o in rendered.find("B")] == ["B"]
