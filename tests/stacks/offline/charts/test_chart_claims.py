"""What the docs say about the objects the charts make, checked on what Helm renders.

- the Trainer runtimes get `runtimeClassName: nvidia` and a memory-backed `/dev/shm`
  (README, docs/architecture.md "The Kubeflow hotfix is a resource"): the patches name
  exactly the runtimes the chart installs with the stack's values, their jobs and
  containers, and merged as the CRD's list-map keys merge them they validate;
- time-slicing (docs/validation.md `health-gpu-time-slicing`, docs/multi-gpu.md): the
  ClusterPolicy points the device plugin at the ConfigMap the recipe ships, and not where
  the stack turns it off;
- the DCGM exporter (docs/observability.md): the operator's ServiceMonitor on, `honorLabels`,
  the scrape interval, the monitor labels, and a Prometheus that selects it;
- ARC's listener metrics (docs/observability.md): every scale set's AutoscalingRunnerSet
  carries the catalog's `listenerMetrics`; the controller tells listeners to serve them,
  on a port named `metrics` that the PodMonitors scrape;
- the PodMonitors and the PrometheusRule: the Prometheus kube-prometheus-stack renders
  selects them (`ruleSelector` `release: kube-prometheus-stack`), Grafana's sidecar the
  dashboard; and kubectl-validate accepts them against the chart's own CRDs.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from components.observability.metrics import listener_metrics_values
from components.platform.releases.runtime_patch import SHM_PATH, installed_runtimes
from stacks.offline.charts.check import ReleaseRender, StackCharts
from stacks.offline.charts.validate import validate
from stacks.offline.engine.records import ProgramRun
from tests.components.platform.platform_helpers import RUNTIME_PATCH
from tests.stacks.offline.charts.chart_helpers import list_map_keys, patched_runtime

MONITORING = "kubernetes:monitoring.coreos.com/v1"


def _release(found: StackCharts, name: str) -> ReleaseRender:
    (item,) = [r for r in found.renders if r.release.name == name]
    return item


def _selects(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    """A Kubernetes label selector (matchLabels, matchExpressions) over `labels`."""
    if any(labels.get(k) != v for k, v in (selector.get("matchLabels") or {}).items()):
        return False
    for term in selector.get("matchExpressions") or []:
        key, op, values = term["key"], term["operator"], term.get("values") or []
        held = {
            "In": key in labels and labels[key] in values,
            "NotIn": labels.get(key) not in values,
            "Exists": key in labels,
            "DoesNotExist": key not in labels,
        }[op]
        if not held:
            return False
    return True


def _pods(runtime: dict[str, Any]) -> dict[str, dict[str, Any]]:
    jobs = runtime["spec"]["template"]["spec"]["replicatedJobs"]
    return {j["name"]: j["template"]["spec"]["template"]["spec"] for j in jobs}


def test_trainer_patches_name_exactly_the_runtimes_the_chart_installs(
    rendered: dict[str, StackCharts], example_runs: dict[str, ProgramRun]
) -> None:
    trainer = _release(rendered["dev"], "kubeflow-trainer")
    (installer,) = trainer.rendered.find("ConfigMap", "kubeflow-trainer-runtimes-installer")
    runtimes = [d for d in yaml.safe_load_all(installer["data"]["runtimes.yaml"]) if d]
    table = installed_runtimes("2.3.0", trainer.release.values)
    assert [r["metadata"]["name"] for r in runtimes] == [t.name for t in table]
    for runtime, row in zip(runtimes, table, strict=True):
        pods = {
            job: tuple(c["name"] for c in pod["containers"]) for job, pod in _pods(runtime).items()
        }
        assert pods == dict(row.pods), row.name
    patches = example_runs["dev"].by_type(RUNTIME_PATCH)
    assert sorted(p.inputs["metadata"]["name"] for p in patches) == sorted(t.name for t in table)


def test_patched_runtimes_get_nvidia_and_shm_and_validate(
    rendered: dict[str, StackCharts], example_runs: dict[str, ProgramRun], validator: Path
) -> None:
    trainer = _release(rendered["dev"], "kubeflow-trainer")
    (crd,) = [
        o
        for o in trainer.rendered.find("CustomResourceDefinition")
        if o["spec"]["names"]["kind"] == "ClusterTrainingRuntime"
    ]
    schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    assert list_map_keys(schema, "replicatedJobs") == {("name",)}  # what the merge keys by
    assert list_map_keys(schema, "containers") == {("name",)}
    assert list_map_keys(schema, "volumes") == {("name",)}
    assert list_map_keys(schema, "volumeMounts") == {("mountPath",)}
    (installer,) = trainer.rendered.find("ConfigMap", "kubeflow-trainer-runtimes-installer")
    live = {
        d["metadata"]["name"]: d
        for d in yaml.safe_load_all(installer["data"]["runtimes.yaml"])
        if d
    }
    merged = []
    for patch in example_runs["dev"].by_type(RUNTIME_PATCH):
        runtime = copy.deepcopy(live[patch.inputs["metadata"]["name"]])
        runtime = patched_runtime(runtime, patch.inputs)
        merged.append(runtime)
        for pod in _pods(runtime).values():
            assert pod["runtimeClassName"] == "nvidia"
            assert {"name": "dshm", "emptyDir": {"medium": "Memory"}} in pod["volumes"]
            for container in pod["containers"]:
                assert {"name": "dshm", "mountPath": SHM_PATH} in container["volumeMounts"]
    objects = [("patched", o) for o in merged] + [("crd", crd)]
    assert validate(validator, objects, "v1.35.0") == []


def test_time_slicing_points_the_device_plugin_at_the_recipes_config_map(
    rendered: dict[str, StackCharts], example_runs: dict[str, ProgramRun]
) -> None:
    operator = _release(rendered["dev"], "gpu-operator")
    (policy,) = operator.rendered.find("ClusterPolicy", "cluster-policy")
    (config_map,) = [
        r
        for r in example_runs["dev"].by_type("kubernetes:core/v1:ConfigMap")
        if r.inputs["metadata"]["name"] == policy["spec"]["devicePlugin"]["config"]["name"]
    ]
    assert config_map.inputs["metadata"]["namespace"] == operator.release.namespace
    assert list(config_map.inputs["data"]) == [policy["spec"]["devicePlugin"]["config"]["default"]]
    (off,) = _release(rendered["multi-gpu"], "gpu-operator").rendered.find("ClusterPolicy")
    assert "config" not in off["spec"]["devicePlugin"]


def test_the_dcgm_exporter_monitor_is_on_and_selected(rendered: dict[str, StackCharts]) -> None:
    for stack in ("dev", "arc"):
        (policy,) = _release(rendered[stack], "gpu-operator").rendered.find("ClusterPolicy")
        monitor = policy["spec"]["dcgmExporter"]["serviceMonitor"]
        assert policy["spec"]["dcgmExporter"]["enabled"] is True
        assert monitor["enabled"] is True
        assert monitor["honorLabels"] is True
        assert monitor["interval"] == "30s"
        assert monitor["additionalLabels"] == {"release": "kube-prometheus-stack"}
        (prometheus,) = _release(rendered[stack], "kube-prometheus-stack").rendered.find(
            "Prometheus"
        )
        assert _selects(prometheus["spec"]["serviceMonitorSelector"], monitor["additionalLabels"])
        assert prometheus["spec"]["serviceMonitorNamespaceSelector"] == {}


def test_every_scale_set_carries_the_listener_metrics(rendered: dict[str, StackCharts]) -> None:
    sets = [r for r in rendered["arc"].renders if r.release.chart_name == "gha-runner-scale-set"]
    assert len(sets) == 3
    for item in sets:
        (runner_set,) = item.rendered.find("AutoscalingRunnerSet")
        assert runner_set["spec"]["listenerMetrics"] == listener_metrics_values()


def test_the_controller_serves_what_the_pod_monitors_scrape(
    rendered: dict[str, StackCharts], example_runs: dict[str, ProgramRun]
) -> None:
    controller = _release(rendered["arc"], "arc")
    (deployment,) = controller.rendered.find("Deployment")
    pod = deployment["spec"]["template"]
    (container,) = pod["spec"]["containers"]
    assert "--listener-metrics-addr=:8080" in container["args"]
    assert "--listener-metrics-endpoint=/metrics" in container["args"]
    monitors = {
        r.inputs["metadata"]["name"]: r.inputs
        for r in example_runs["arc"].by_type(f"{MONITORING}:PodMonitor")
    }
    # and the queue-time exporter's (its own pod, not ARC's: test_queue_deploy.py)
    assert sorted(monitors) == [
        "gpu-ci-arc-controller",
        "gpu-ci-arc-listeners",
        "gpu-ci-queue-exporter",
    ]
    spec = monitors["gpu-ci-arc-controller"]["spec"]
    assert _selects(spec["selector"], pod["metadata"]["labels"])
    assert spec["namespaceSelector"]["matchNames"] == [controller.release.namespace]
    ports = {p["name"] for p in container["ports"]}
    assert {e["port"] for e in spec["podMetricsEndpoints"]} <= ports
    listeners = monitors["gpu-ci-arc-listeners"]["spec"]
    assert listeners["namespaceSelector"]["matchNames"] == [controller.release.namespace]


def test_prometheus_selects_the_monitors_and_the_rule_and_grafana_the_dashboard(
    rendered: dict[str, StackCharts], example_runs: dict[str, ProgramRun], validator: Path
) -> None:
    for stack in ("dev", "arc"):
        monitoring = _release(rendered[stack], "kube-prometheus-stack")
        (prometheus,) = monitoring.rendered.find("Prometheus")
        spec = prometheus["spec"]
        run = example_runs[stack]
        own = [r.inputs for r in run.by_type(f"{MONITORING}:PodMonitor")]
        own += [r.inputs for r in run.by_type(f"{MONITORING}:PrometheusRule")]
        for obj in own:
            labels = obj["metadata"]["labels"]
            selector = "ruleSelector" if obj["kind"] == "PrometheusRule" else "podMonitorSelector"
            assert _selects(spec[selector], labels), (stack, obj["metadata"]["name"])
            assert spec[selector.replace("Selector", "NamespaceSelector")] == {}
        assert spec["ruleSelector"] == {"matchLabels": {"release": "kube-prometheus-stack"}}
        (grafana,) = monitoring.rendered.find("Deployment", "kube-prometheus-stack-grafana")
        (sidecar,) = [
            c
            for c in grafana["spec"]["template"]["spec"]["containers"]
            if c["name"].endswith("-sc-dashboard")
        ]
        env = {e["name"]: e.get("value") for e in sidecar["env"]}
        dashboards = [
            r.inputs
            for r in run.by_type("kubernetes:core/v1:ConfigMap")
            if "grafana_dashboard" in (r.inputs["metadata"].get("labels") or {})
        ]
        assert [d["metadata"]["labels"][env["LABEL"]] for d in dashboards] == [env["LABEL_VALUE"]]
        crds = monitoring.rendered.find("CustomResourceDefinition")
        pairs = [("gpu-ci", o) for o in own] + [("chart", c) for c in crds]
        assert validate(validator, pairs, rendered[stack].kube_version or "") == []
