"""Observability in the graph: where Prometheus comes from decides the order, ARC and the
GPU operator export what the dashboards read, and Grafana's admin stays secret."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from components.observability.dashboard import dashboard_text
from components.observability.metrics import listener_metrics_values
from stacks.offline.engine.fakes import FAKE_PASSWORD, FakeCloud, StackExports
from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import ProgramRun, Registration
from stacks.offline.engine.values import Secret, reveal
from stacks.offline.snapshot.recorded import dumps, snapshot_of
from stacks.program import main
from tests.components.arc.arc_helpers import arc_stack, gpu_pod, oke
from tests.stacks.stack_helpers import CLUSTER_EXPORT, children_of, dev_stack, flat, run_stack

RELEASE = "kubernetes:helm.sh/v3:Release"
MONITORING = "gpu-ci:observability:Monitoring"
PLATFORM = "gpu-ci:platform:RecipeReleases"
POD_MONITOR = "kubernetes:monitoring.coreos.com/v1:PodMonitor"
PROMETHEUS_RULE = "kubernetes:monitoring.coreos.com/v1:PrometheusRule"
DEPLOYMENT = "kubernetes:apps/v1:Deployment"
CONFIG_MAP = "kubernetes:core/v1:ConfigMap"
SECRET = "kubernetes:core/v1:Secret"
PASSWORD = "random:index/randomPassword:RandomPassword"
NAMESPACE = "kubernetes:core/v1:Namespace"
GIVEN_PASSWORD = "grafana-admin-given-in-test"


def arc(**overrides: Any) -> dict[str, Any]:
    values = arc_stack(gpu_pod(), cluster=oke())
    values["gpu-ci:platform"] = {"service": "oke"}
    values.update(overrides)
    return {k: v for k, v in values.items() if v is not None}


def waits_for(registration: Registration, component: Registration) -> bool:
    """Whether `registration` depends on `component` (the engine records a dependency on a
    component as dependencies on each of its children)."""
    return any(d == component.urn or f"::{component.type}$" in d for d in registration.dependencies)


def operator_values(run: ProgramRun) -> dict[str, Any]:
    values: dict[str, Any] = run.one(RELEASE, "platform-gpu-operator").inputs["values"]
    return values


@pytest.fixture(scope="module")
def dev_run() -> ProgramRun:
    return run_stack(dev_stack())


@pytest.fixture(scope="module")
def arc_run() -> ProgramRun:
    return run_stack(arc(), secret_keys={"gpu-ci:arc"})


def test_the_deployed_prometheus_comes_before_the_platform(dev_run: ProgramRun) -> None:
    monitoring = dev_run.one(MONITORING)
    stack = dev_run.one(RELEASE, "monitoring")
    assert waits_for(dev_run.one(PLATFORM), monitoring)
    # The platform's first children wait for it too (the engine does not make a component's
    # children wait for what the component depends on).
    assert stack.urn in dev_run.one(NAMESPACE, "platform-ns-gpu-operator").dependencies
    assert not waits_for(monitoring, dev_run.one(PLATFORM))
    assert stack.parent == monitoring.urn
    assert stack.inputs["chart"] == "kube-prometheus-stack"
    assert stack.inputs["version"] == "84.4.0"
    assert stack.options["provider"].startswith(dev_run.one("pulumi:providers:kubernetes").urn)
    # What needs its CRDs waits for it.
    dashboard = dev_run.one(CONFIG_MAP, "monitoring-dashboard-gpu-ci")
    assert stack.urn in dashboard.dependencies


def test_the_gpu_operator_exports_its_dcgm_service_monitor(dev_run: ProgramRun) -> None:
    assert operator_values(dev_run)["dcgmExporter"]["serviceMonitor"] == {
        "enabled": True,
        "interval": "30s",
        "honorLabels": True,
        "additionalLabels": {"release": "kube-prometheus-stack"},
    }


def test_what_platform_set_says_wins_over_the_monitor_defaults() -> None:
    run = run_stack(
        dev_stack(
            **{
                "gpu-ci:platform": {
                    "set": ["gpu-operator:dcgmExporter.serviceMonitor.interval=60s"]
                }
            }
        )
    )
    monitor = operator_values(run)["dcgmExporter"]["serviceMonitor"]
    assert monitor["interval"] == "60s" and monitor["enabled"] is True


def test_the_dashboard_config_map_is_the_dashboard(dev_run: ProgramRun) -> None:
    cm = dev_run.one(CONFIG_MAP, "monitoring-dashboard-gpu-ci")
    assert cm.inputs["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert cm.inputs["metadata"]["namespace"] == "monitoring"
    assert cm.inputs["data"] == {"gpu-ci.json": dashboard_text()}


def test_the_stack_values_select_every_monitor_and_use_the_admin_secret(
    dev_run: ProgramRun,
) -> None:
    values = dev_run.one(RELEASE, "monitoring").inputs["values"]
    spec = values["prometheus"]["prometheusSpec"]
    assert spec["serviceMonitorSelectorNilUsesHelmValues"] is False
    assert spec["podMonitorSelectorNilUsesHelmValues"] is False
    assert (spec["retention"], spec["scrapeInterval"]) == ("15d", "30s")
    assert values["grafana"]["admin"]["existingSecret"] == "gpu-ci-grafana-admin"
    assert "adminPassword" not in values["grafana"]
    assert values["grafana"]["sidecar"]["dashboards"]["label"] == "grafana_dashboard"
    secret = dev_run.one(SECRET, "monitoring-grafana-admin")
    assert secret.inputs["metadata"]["name"] == "gpu-ci-grafana-admin"
    assert dev_run.one(RELEASE, "monitoring").dependencies.count(secret.urn) == 1


def test_a_generated_password_is_never_regenerated_and_stays_secret(dev_run: ProgramRun) -> None:
    password = dev_run.one(PASSWORD)
    assert password.inputs == {"length": 32, "special": False}  # constants: never replaced
    secret = dev_run.one(SECRET, "monitoring-grafana-admin")
    assert password.urn in secret.dependencies
    assert isinstance(secret.inputs["stringData"], Secret)  # unknown until the password exists
    run = run_stack(dev_stack(), preview=False)
    applied = run.one(SECRET, "monitoring-grafana-admin")
    assert reveal(applied.inputs["stringData"]) == {
        "admin-user": "admin",
        "admin-password": FAKE_PASSWORD,
    }
    assert FAKE_PASSWORD not in dumps(snapshot_of(run)) + repr(run.exports)
    assert {"stringData", "data"} <= set(secret.options["additionalSecretOutputs"])


def test_a_given_password_is_secret_from_config_to_state() -> None:
    run = run_stack(
        dev_stack(**{"gpu-ci:observability": {"grafana": {"adminPassword": GIVEN_PASSWORD}}}),
        secret_keys={"gpu-ci:observability"},
        preview=False,
    )
    assert run.by_type(PASSWORD) == []
    secret = run.one(SECRET, "monitoring-grafana-admin")
    assert isinstance(secret.inputs["stringData"], Secret)
    assert reveal(secret.inputs["stringData"])["admin-password"] == GIVEN_PASSWORD
    text = dumps(snapshot_of(run)) + json.dumps(run.logs) + repr(run.exports)
    for registration in run.registrations:
        text += json.dumps(registration.inputs, default=repr)
        text += json.dumps(registration.outputs, default=repr)
    assert GIVEN_PASSWORD not in text


def test_observability_off_registers_none_of_it() -> None:
    run = run_stack(dev_stack(**{"gpu-ci:observability": {"enabled": False}}))
    assert run.by_type(MONITORING) == [] and run.by_type(PASSWORD) == []
    assert "dcgmExporter" not in operator_values(run)
    assert "observability" not in run.exports
    assert run.one(PLATFORM).dependencies == []
    assert not any(r.type.startswith("kubernetes:monitoring.coreos.com") for r in run.registrations)


def test_an_existing_prometheus_gets_monitors_and_dashboards_only(arc_run: ProgramRun) -> None:
    run = run_stack(
        arc(**{"gpu-ci:observability": {"prometheus": "existing", "namespace": "observe"}}),
        secret_keys={"gpu-ci:arc"},
    )
    monitoring = run.one(MONITORING)
    children = children_of(run, monitoring)
    # The queue-time exporter runs beside the App Secret it reads, in the runners' namespace.
    exporter = [r for r in children if r.inputs["metadata"]["namespace"] == "arc-runners"]
    assert sorted(r.type for r in exporter) == [DEPLOYMENT, CONFIG_MAP]
    kinds = sorted(r.type for r in children if r not in exporter)
    assert kinds == [CONFIG_MAP, POD_MONITOR, POD_MONITOR, POD_MONITOR, PROMETHEUS_RULE]
    assert all(
        r.inputs["metadata"]["namespace"] == "observe" for r in children if r not in exporter
    )
    assert run.exports["observability"]["prometheus"] == "existing"
    assert run.exports["observability"]["portForward"] == []
    # Monitoring still comes first: the platform's ServiceMonitor needs the existing CRDs only.
    assert waits_for(run.one(PLATFORM), monitoring)
    assert run.by_type(RELEASE) and all(r.name != "monitoring" for r in run.by_type(RELEASE))


def test_the_recipes_prometheus_is_used_and_watched_after_it(tmp_path: Path) -> None:
    catalog = tmp_path / "catalog"
    (catalog / "overlays").mkdir(parents=True)
    (catalog / "registry.yaml").write_text(
        "apiVersion: aicr.run/v1alpha2\nkind: ComponentRegistry\ncomponents:\n"
        "  - name: kube-prometheus-stack\n    displayName: kube-prometheus-stack\n"
        "    helm:\n      defaultRepository: https://prometheus-community.github.io/helm-charts\n"
        "      defaultChart: prometheus-community/kube-prometheus-stack\n"
        "      defaultVersion: 84.4.0\n      defaultNamespace: observe\n"
    )
    (catalog / "overlays" / "kind-monitoring.yaml").write_text(
        "kind: RecipeMetadata\napiVersion: aicr.run/v1alpha2\nmetadata: {name: kind-monitoring}\n"
        "spec:\n  criteria: {service: kind}\n  componentRefs:\n"
        "    - {name: kube-prometheus-stack, type: Helm, version: 84.4.0,\n"
        "       source: https://prometheus-community.github.io/helm-charts}\n"
    )
    run = run_stack(dev_stack(**{"gpu-ci:platform": {"catalogs": [str(catalog)]}}))
    releases = sorted(r.name for r in run.by_type(RELEASE))
    assert releases == [
        "platform-gpu-operator",
        "platform-kube-prometheus-stack",
        "platform-kubeflow-trainer",
    ]
    monitoring = run.one(MONITORING)
    assert waits_for(monitoring, run.one(PLATFORM))
    assert not waits_for(run.one(PLATFORM), monitoring)
    assert run.by_type(PASSWORD) == [] and run.by_type(SECRET) == []
    dashboard = run.one(CONFIG_MAP, "monitoring-dashboard-gpu-ci")
    assert dashboard.inputs["metadata"]["namespace"] == "observe"
    assert run.exports["observability"]["prometheus"] == "recipe"
    assert run.exports["observability"]["namespace"] == "observe"


def test_arc_scale_sets_and_controller_serve_metrics(arc_run: ProgramRun) -> None:
    scale_set = arc_run.one(RELEASE, "scale-set-gpu-a10-pod")
    assert scale_set.inputs["values"]["listenerMetrics"] == listener_metrics_values()
    assert arc_run.one(RELEASE, "arc-controller").inputs["values"]["metrics"] == {
        "controllerManagerAddr": ":8080",
        "listenerAddr": ":8080",
        "listenerEndpoint": "/metrics",
    }


def test_arc_without_observability_serves_no_metrics() -> None:
    run = run_stack(arc(**{"gpu-ci:observability": {"enabled": False}}), secret_keys={"gpu-ci:arc"})
    assert "listenerMetrics" not in run.one(RELEASE, "scale-set-gpu-a10-pod").inputs["values"]
    assert "metrics" not in run.one(RELEASE, "arc-controller").inputs["values"]


def _monitor(run: ProgramRun, name: str) -> Registration:
    return run.one(POD_MONITOR, f"monitoring-{name}")


def test_pod_monitors_select_arcs_pods_and_label_the_scale_set(arc_run: ProgramRun) -> None:
    listeners = _monitor(arc_run, "arc-listeners").inputs
    assert listeners["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    spec = listeners["spec"]
    assert spec["namespaceSelector"] == {"matchNames": ["arc-systems"]}
    assert spec["selector"] == {
        "matchLabels": {"app.kubernetes.io/component": "runner-scale-set-listener"}
    }
    (endpoint,) = spec["podMetricsEndpoints"]
    assert (endpoint["port"], endpoint["path"]) == ("metrics", "/metrics")
    assert endpoint["relabelings"] == [
        {
            "sourceLabels": ["__meta_kubernetes_pod_label_actions_github_com_scale_set_name"],
            "targetLabel": "scale_set",
            "action": "replace",
        }
    ]
    controller = _monitor(arc_run, "arc-controller").inputs["spec"]
    assert controller["selector"] == {
        "matchLabels": {"app.kubernetes.io/part-of": "gha-rs-controller"}
    }
    stack = arc_run.one(RELEASE, "monitoring").urn
    assert stack in _monitor(arc_run, "arc-listeners").dependencies


def test_on_oke_the_stack_runs_on_the_cpu_pool_and_the_operator_on_the_gpu_pool(
    arc_run: ProgramRun,
) -> None:
    cpu = arc_run.one("oci:ContainerEngine/nodePool:NodePool", "oke-cpu").urn
    gpu = arc_run.one("oci:ContainerEngine/nodePool:NodePool", "oke-gpu").urn
    # Prometheus needs the CPU pool only: a region short of A10s does not hold up the job
    # metrics; the operator's daemonsets need the GPU pool.
    assert cpu in arc_run.one(MONITORING).dependencies
    assert gpu not in arc_run.one(MONITORING).dependencies
    assert {cpu, gpu} <= set(arc_run.one(PLATFORM).dependencies)
    provider = arc_run.one("pulumi:providers:kubernetes", "oke-k8s").urn
    assert arc_run.one(RELEASE, "platform-gpu-operator").options["provider"].startswith(provider)
    assert operator_values(arc_run)["dcgmExporter"]["serviceMonitor"]["enabled"] is True


def test_the_platform_on_oke_checks_the_clusters_facts() -> None:
    run = run_stack(arc(), secret_keys={"gpu-ci:arc"}, preview=False)
    constraints = run.exports["platform"]["constraints"]
    assert {"K8s.server.version", "GPU.info.type"} <= set(constraints["passed"])
    assert not {"K8s.server.version", "GPU.info.type"} & set(constraints["unchecked"])


def test_the_dcgm_monitor_keys_are_the_gpu_operator_charts(
    dev_run: ProgramRun, upstream: Path
) -> None:
    chart = yaml.safe_load((upstream / "charts/gpu-operator/values.yaml").read_text())
    ours = operator_values(dev_run)["dcgmExporter"]["serviceMonitor"]
    assert set(ours) <= set(chart["dcgmExporter"]["serviceMonitor"])
    assert chart["dcgmExporter"]["enabled"] is True  # the exporter itself is on by default


def test_a_platform_on_another_cluster_than_arcs_is_not_watched_from_here() -> None:
    """ARC on OKE, the platform on another stack's cluster: the monitoring (and its job
    metrics) go on ARC's cluster; the other cluster's GPU operator gets no ServiceMonitor,
    whose CRD nobody here installs there, and the plan says why."""
    values = arc()
    values["gpu-ci:platform"] = {
        "clusterStack": "org/gpu-ci/gpu-dev",
        "service": "kind",
        "accelerator": "a10",
    }
    exports = StackExports(
        outputs={"cluster": CLUSTER_EXPORT, "kubeconfig": "apiVersion: v1\nkind: Config\n"},
        secret_names=frozenset({"kubeconfig"}),
    )
    run = run_program(
        main,
        project="gpu-ci",
        stack="test",
        config=flat(values),
        secret_keys={"gpu-ci:arc"},
        preview=False,
        cloud=FakeCloud(flat(values), {"org/gpu-ci/gpu-dev": exports}),
    )
    oke_provider = run.one("pulumi:providers:kubernetes", "oke-k8s").urn
    assert run.one(RELEASE, "monitoring").options["provider"].startswith(oke_provider)
    assert (
        not run.one(RELEASE, "platform-gpu-operator").options["provider"].startswith(oke_provider)
    )
    assert "dcgmExporter" not in operator_values(run)
    assert not waits_for(run.one(PLATFORM), run.one(MONITORING))
    assert any(
        "watches ARC's cluster" in message and "org/gpu-ci/gpu-dev" in message
        for _, message in run.logs
    )


def test_a_recipe_without_the_gpu_operator_plans_without_its_monitor(tmp_path: Path) -> None:
    """The DCGM monitor is added to the operator only where the recipe deploys it: an
    override of a component the recipe lacks is an error the user did not make."""
    catalog = tmp_path / "catalog"
    (catalog / "overlays").mkdir(parents=True)
    (catalog / "components" / "hello").mkdir(parents=True)
    (catalog / "registry.yaml").write_text(
        "apiVersion: aicr.run/v1alpha2\nkind: ComponentRegistry\ncomponents:\n"
        "  - name: hello\n    displayName: hello\n"
        "    helm: {defaultRepository: '', defaultNamespace: hello}\n"
    )
    (catalog / "components" / "hello" / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: hello, namespace: hello}\ndata: {a: b}\n"
    )
    (catalog / "overlays" / "plain.yaml").write_text(
        "kind: RecipeMetadata\napiVersion: aicr.run/v1alpha2\nmetadata: {name: plain}\n"
        "spec:\n  criteria: {service: plain}\n  componentRefs:\n"
        "    - {name: hello, type: Helm, manifestFiles: [components/hello/cm.yaml]}\n"
    )
    platform = {"catalogs": [str(catalog)], "service": "plain", "deploymentChecks": False}
    run = run_stack(dev_stack(**{"gpu-ci:platform": platform}))
    assert run.by_type(MONITORING)
    assert [r.name for r in run.by_type(RELEASE)] == ["monitoring"]
    assert run.one(CONFIG_MAP, "platform-hello-configmap-hello").inputs["data"] == {"a": "b"}


def test_arc_and_an_nvkind_cluster_in_one_stack_watch_arcs_cluster() -> None:
    """The platform goes onto the nvkind cluster, ARC has its own: ARC's PodMonitors, the
    CPU pool's placement and Prometheus all go to ARC's cluster, not the kind one."""
    values = arc(
        **{
            "gpu-ci:host": {"target": "local"},
            "gpu-ci:cluster": {"name": "gpu-ci"},
            "gpu-ci:platform": {"accelerator": "a10"},
        }
    )
    run = run_stack(values, secret_keys={"gpu-ci:arc"})
    oke_provider = run.one("pulumi:providers:kubernetes", "oke-k8s").urn
    assert run.one(RELEASE, "monitoring").options["provider"].startswith(oke_provider)
    assert _monitor(run, "arc-listeners").options["provider"].startswith(oke_provider)
    assert (
        not run.one(RELEASE, "platform-gpu-operator").options["provider"].startswith(oke_provider)
    )
    assert "dcgmExporter" not in operator_values(run)
    assert any("gpu-ci:cluster, this stack's nvkind cluster" in m for _, m in run.logs)
