"""The queue-time exporter where the stack registers VM runners and no ARC (the dev stack):
in a namespace of its own on the stack's cluster, with a Secret of its own holding the
runners' App (a Pulumi secret, never plain text), watching the labels the runners register
with and, for repository runners, their repository."""

from __future__ import annotations

import base64
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from components.observability.queue_deploy import APP_DIR, APP_KEYS, OWN_NAMESPACE, OWN_SECRET
from components.observability.queue_exporter.settings import parse
from stacks.offline.charts.validate import validate
from stacks.offline.engine.records import ProgramRun, Registration
from stacks.offline.engine.values import Secret, reveal
from stacks.offline.plan import plan_run
from stacks.offline.snapshot.recorded import dumps, snapshot_of
from tests.stacks.offline.charts.chart_helpers import KUBERNETES
from tests.stacks.stack_helpers import dev_stack, run_stack
from tests.upstream_tools import tool

MONITORING = "gpu-ci:observability:Monitoring"
NAMESPACE = "kubernetes:core/v1:Namespace"
SECRET = "kubernetes:core/v1:Secret"
CONFIG_MAP = "kubernetes:core/v1:ConfigMap"
DEPLOYMENT = "kubernetes:apps/v1:Deployment"
POD_MONITOR = "kubernetes:monitoring.coreos.com/v1:PodMonitor"
RELEASE = "kubernetes:helm.sh/v3:Release"
PROVIDER = "pulumi:providers:kubernetes"
EXPORTER = {
    "monitoring-queue-exporter-ns": NAMESPACE,
    "monitoring-queue-exporter-github-app": SECRET,
    "monitoring-queue-exporter-program": CONFIG_MAP,
    "monitoring-queue-exporter": DEPLOYMENT,
    "monitoring-queue-exporter-monitor": POD_MONITOR,
}
"""What the exporter adds to the dev plan, by name."""
APP_KEY_BODY = "MIIEowIBAAKCAQEAqueueEXPORTERtestKEYdoNotUseAnywhere0123456789"
APP_KEY = f"-----BEGIN RSA PRIVATE KEY-----\n{APP_KEY_BODY}\n-----END RSA PRIVATE KEY-----\n"
_LABELS = re.compile(r"^readonly -a RUNNER_LABELS=\((.*)\)$", re.MULTILINE)
PROMETHEUS_CRDS = "helm-charts/kube-prometheus-stack-84.4.0/charts/crds/crds"
"""The PodMonitor's CRD, as the kube-prometheus-stack gpu-ci deploys installs it."""


@cache
def dev() -> ProgramRun:
    return plan_run("dev")


def runner_stack(queue_time: dict[str, Any] | None = None, **runner: Any) -> dict[str, Any]:
    """The dev stack's layers with a runner of the kubeflow organization (overridable)."""
    values = dev_stack(
        **{
            "gpu-ci:runner": {
                "url": "https://github.com/kubeflow",
                "githubApp": {"appId": 1234567, "installationId": 7654321, "privateKey": APP_KEY},
                **runner,
            }
        }
    )
    if queue_time is not None:
        values["gpu-ci:observability"] = {"queueTime": queue_time}
    return values


def run(queue_time: dict[str, Any] | None = None, **runner: Any) -> ProgramRun:
    return run_stack(runner_stack(queue_time, **runner), secret_keys={"gpu-ci:runner"})


def settings_of(done: ProgramRun) -> Any:
    data = done.one(CONFIG_MAP, "monitoring-queue-exporter-program").inputs["data"]
    return parse(json.loads(data["config.json"]), "config.json")


def registered_labels(done: ProgramRun) -> tuple[str, ...]:
    """The labels the runner step registers the runner with (its rendered script)."""
    script = done.one("command:remote:Command", "host-0-runner-github-runner").inputs["stdin"]
    (labels,) = _LABELS.findall(script)
    return tuple(labels.split())


def exporter(done: ProgramRun) -> dict[str, Registration]:
    return {name: done.one(kind, name) for name, kind in EXPORTER.items()}


def test_the_dev_plan_registers_the_exporter_on_its_cluster_after_its_namespace() -> None:
    done = dev()
    parts = exporter(done)
    monitoring = done.one(MONITORING)
    provider = done.one(PROVIDER)
    assert provider.name == "cluster-k8s"  # the nvkind cluster's, from its kubeconfig
    for part in parts.values():
        assert part.parent == monitoring.urn
        assert part.options["provider"].startswith(provider.urn)
    ns, secret, program = (parts[name].urn for name in list(EXPORTER)[:3])
    release = done.one(RELEASE, "monitoring").urn
    assert set(parts["monitoring-queue-exporter-ns"].dependencies) == {release}
    assert set(parts["monitoring-queue-exporter-github-app"].dependencies) == {release, ns}
    assert set(parts["monitoring-queue-exporter-program"].dependencies) == {release, ns}
    assert set(parts["monitoring-queue-exporter"].dependencies) == {release, ns, secret, program}
    # The PodMonitor needs the release's CRDs, nothing of the exporter's.
    assert set(parts["monitoring-queue-exporter-monitor"].dependencies) == {release}
    assert done.exports["observability"]["monitors"] == ["gpu-ci-queue-exporter"]


def test_its_namespace_holds_only_it_under_the_restricted_pod_security_level() -> None:
    parts = exporter(dev())
    namespace = parts["monitoring-queue-exporter-ns"].inputs["metadata"]
    assert namespace == {
        "name": OWN_NAMESPACE,
        "labels": {
            "app.kubernetes.io/managed-by": "gpu-ci",
            "pod-security.kubernetes.io/enforce": "restricted",
        },
    }
    for name in ("monitoring-queue-exporter-github-app", "monitoring-queue-exporter-program"):
        assert parts[name].inputs["metadata"]["namespace"] == OWN_NAMESPACE
    deployment = parts["monitoring-queue-exporter"].inputs
    assert deployment["metadata"]["namespace"] == OWN_NAMESPACE
    restricted_problems = _restricted_problems(deployment["spec"]["template"]["spec"])
    assert restricted_problems == []
    monitor = parts["monitoring-queue-exporter-monitor"].inputs
    assert monitor["metadata"]["namespace"] == "monitoring"  # where Prometheus selects it
    assert monitor["spec"]["namespaceSelector"] == {"matchNames": [OWN_NAMESPACE]}


def _restricted_problems(pod: dict[str, Any]) -> list[str]:
    """What Pod Security's `restricted` level refuses in `pod`, as its checks read a pod
    (kubernetes/kubernetes staging/src/k8s.io/pod-security-admission/policy/:
    check_restrictedVolumes.go, check_runAsNonRoot.go, check_runAsUser.go,
    check_allowPrivilegeEscalation.go, check_capabilities_restricted.go,
    check_seccompProfile_restricted.go, check_hostNamespaces.go, check_privileged.go,
    check_hostPorts.go)."""
    problems = []
    allowed = {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral"}
    allowed |= {"persistentVolumeClaim", "projected", "secret"}
    for volume in pod["volumes"]:
        if not set(volume) - {"name"} <= allowed:
            problems.append(f"volume {volume['name']}")
    if any(pod.get(key) for key in ("hostNetwork", "hostPID", "hostIPC")):
        problems.append("host namespaces")
    context = pod.get("securityContext", {})
    if context.get("seccompProfile", {}).get("type") not in ("RuntimeDefault", "Localhost"):
        problems.append("seccompProfile")
    for container in pod["containers"] + pod.get("initContainers", []):
        own = container.get("securityContext", {})
        if own.get("runAsNonRoot", context.get("runAsNonRoot")) is not True:
            problems.append("runAsNonRoot")
        if own.get("runAsUser", context.get("runAsUser")) == 0:
            problems.append("runAsUser 0")
        if own.get("allowPrivilegeEscalation") is not False:
            problems.append("allowPrivilegeEscalation")
        capabilities = own.get("capabilities", {})
        if "ALL" not in capabilities.get("drop", []):
            problems.append("capabilities.drop ALL")
        if set(capabilities.get("add", [])) - {"NET_BIND_SERVICE"}:
            problems.append("capabilities.add")
        if own.get("privileged"):
            problems.append("privileged")
        if any(port.get("hostPort") for port in container.get("ports", [])):
            problems.append("hostPort")
    return problems


def test_every_object_is_valid_as_the_api_server_of_the_dev_cluster_validates_it(
    upstream: Path,
) -> None:
    """kubectl-validate at the nvkind cluster's Kubernetes version; the PodMonitor against
    the CRD of the kube-prometheus-stack gpu-ci deploys."""
    validator = tool("kubectl-validate")
    done = run_stack(runner_stack(), secret_keys={"gpu-ci:runner"}, preview=False)
    objects = [("dev", reveal(r.inputs)) for r in exporter(done).values()]
    assert [o["kind"] for _, o in objects] == [
        "Namespace",
        "Secret",
        "ConfigMap",
        "Deployment",
        "PodMonitor",
    ]
    crds = [upstream / PROMETHEUS_CRDS]
    assert validate(validator, objects, KUBERNETES, crds) == []
    broken = [
        (w, {**o, "spec": {"replicas": "one"}}) for w, o in objects if o["kind"] == "Deployment"
    ]
    assert len(validate(validator, broken, KUBERNETES, crds)) == 1


def test_the_pod_mounts_its_own_secret_with_the_files_the_program_reads() -> None:
    parts = exporter(dev())
    secret = parts["monitoring-queue-exporter-github-app"]
    assert secret.inputs["metadata"]["name"] == OWN_SECRET
    assert secret.inputs["type"] == "Opaque"
    pod = parts["monitoring-queue-exporter"].inputs["spec"]["template"]["spec"]
    (volume,) = [v for v in pod["volumes"] if v["name"] == "github-app"]
    assert volume["secret"]["secretName"] == OWN_SECRET
    assert {i["key"]: i["path"] for i in volume["secret"]["items"]} == APP_KEYS
    assert pod["automountServiceAccountToken"] is False
    settings = settings_of(dev())
    assert (settings.app_id_file, settings.installation_id_file, settings.private_key_file) == (
        f"{APP_DIR}/app_id",
        f"{APP_DIR}/installation_id",
        f"{APP_DIR}/private_key",
    )


def test_the_app_key_is_a_pulumi_secret_from_config_to_state() -> None:
    done = run_stack(runner_stack(), secret_keys={"gpu-ci:runner"}, preview=False)
    secret = done.one(SECRET, "monitoring-queue-exporter-github-app")
    assert isinstance(secret.inputs["stringData"], Secret)
    assert reveal(secret.inputs["stringData"]) == {
        "github_app_id": "1234567",
        "github_app_installation_id": "7654321",
        "github_app_private_key": APP_KEY,
    }
    assert set(reveal(secret.inputs["stringData"])) == set(APP_KEYS)
    assert {"stringData", "data"} <= set(secret.options["additionalSecretOutputs"])
    snapshot = snapshot_of(done)
    (planned,) = [r for r in snapshot["resources"] if r["urn"] == secret.urn]
    assert planned["inputs"]["stringData"] == "[secret]"
    everything = dumps(snapshot) + json.dumps(done.logs) + repr(done.exports)
    for registration in done.registrations:
        everything += json.dumps(registration.inputs, default=repr)
    assert APP_KEY_BODY not in everything
    assert base64.b64encode(APP_KEY.encode()).decode()[:40] not in everything


def test_the_dev_plan_watches_the_label_its_runner_registers_with() -> None:
    done = dev()
    assert registered_labels(done) == ("oracle-vm-gpu-a10-1",)  # from VM.GPU.A10.1
    settings = settings_of(done)
    assert settings.labels == registered_labels(done)
    assert settings.repositories == ()  # an organization's runners: the installation's


@pytest.mark.parametrize(
    ("runner", "queue_time", "labels"),
    [
        ({"labels": ["gpu", "a10"]}, None, ("gpu", "a10")),
        ({"labels": ["gpu", "a10"]}, {"labels": ["GPU-A10"]}, ("GPU-A10",)),
        ({}, {"labels": ["big-gpu"]}, ("big-gpu",)),
    ],
    ids=["runner-labels", "queue-time-labels", "queue-time-labels-over-the-shape"],
)
def test_labels_are_the_runners_unless_queue_time_names_them(
    runner: dict[str, Any], queue_time: dict[str, Any] | None, labels: tuple[str, ...]
) -> None:
    done = run(queue_time, **runner)
    assert settings_of(done).labels == labels
    if queue_time is None:
        assert labels == registered_labels(done)


@pytest.mark.parametrize(
    ("url", "queue_time", "repositories"),
    [
        ("https://github.com/kubeflow/trainer", None, ("kubeflow/trainer",)),
        ("https://github.com/kubeflow", None, ()),
        ("https://github.com/kubeflow", {"repositories": ["kubeflow/sdk"]}, ("kubeflow/sdk",)),
    ],
    ids=["repository-runner", "organization", "organization-listed"],
)
def test_repositories_come_from_a_repository_runners_url(
    url: str, queue_time: dict[str, Any] | None, repositories: tuple[str, ...]
) -> None:
    group = {"group": "Default"}
    assert settings_of(run(queue_time, url=url, **group)).repositories == repositories


def test_enterprise_runners_get_no_exporter_their_installation_reads_no_repository() -> None:
    done = run(url="https://github.com/enterprises/acme", group="Default")
    assert not [r for r in done.registrations if "queue-exporter" in r.name]


def test_queue_time_off_plans_none_of_it_and_no_queue_alerts() -> None:
    done = run({"enabled": False})
    assert not [r for r in done.registrations if "queue-exporter" in r.name]
    rule = done.one("kubernetes:monitoring.coreos.com/v1:PrometheusRule", "monitoring-alerts")
    assert [g["name"] for g in rule.inputs["spec"]["groups"]] == ["gpu-ci.gpus"]


def test_the_dev_plan_alerts_on_the_whole_queue_time() -> None:
    rule = dev().one("kubernetes:monitoring.coreos.com/v1:PrometheusRule", "monitoring-alerts")
    groups = {g["name"]: [r["alert"] for r in g["rules"]] for g in rule.inputs["spec"]["groups"]}
    assert groups == {
        "gpu-ci.gpus": ["GpuXidError", "GpuMissing"],
        "gpu-ci.queue": ["GpuJobsWaiting", "GpuQueueExporterFailing"],
    }


def test_a_stack_without_runners_gets_no_exporter() -> None:
    done = run_stack(dev_stack())
    assert not [r for r in done.registrations if "queue-exporter" in r.name]
