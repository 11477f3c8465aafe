"""The queue-time exporter as planned: its program (stdlib only, exactly the package's
files), its config (what the program accepts), a pod with no write access anywhere, the App
key only from the scale sets' Secret, its PodMonitor; and `queueTime` refused when wrong."""

from __future__ import annotations

import ast
import json
import sys
from typing import Any

import pulumi
import pytest
from pydantic import ValidationError

from components.observability.queue_deploy import NAME, PROGRAM
from components.observability.queue_exporter.settings import KEYS, parse
from components.observability.queue_time_config import QueueTimeConfig
from components.pins import QUEUE_EXPORTER_PINS
from stacks.offline.engine.records import ProgramRun
from tests.components.arc.arc_helpers import arc_stack, gpu_pod, launcher
from tests.stacks.stack_helpers import dev_stack, run_stack

DEPLOYMENT = "kubernetes:apps/v1:Deployment"
CONFIG_MAP = "kubernetes:core/v1:ConfigMap"
POD_MONITOR = "kubernetes:monitoring.coreos.com/v1:PodMonitor"


def _run(queue: dict[str, Any] | None = None, **arc: Any) -> ProgramRun:
    values = arc_stack(launcher(), gpu_pod(), **arc)
    if queue is not None:
        values["gpu-ci:observability"] = {"queueTime": queue}
    return run_stack(values, secret_keys={"gpu-ci:arc"})


def test_the_program_imports_only_the_standard_library_and_itself() -> None:
    for module in PROGRAM.glob("*.py"):
        for node in ast.walk(ast.parse(module.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                continue
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            for name in names:
                top = name.split(".")[0]
                assert top in sys.stdlib_module_names or top == "__future__", (module, name)


def test_the_pod_reads_the_app_secret_and_writes_nothing() -> None:
    run = _run()
    deployment = run.one(DEPLOYMENT, "monitoring-queue-exporter").inputs
    assert deployment["metadata"]["namespace"] == "arc-runners"
    spec = deployment["spec"]
    assert spec["replicas"] == 1 and spec["strategy"] == {"type": "Recreate"}
    pod = spec["template"]["spec"]
    assert pod["automountServiceAccountToken"] is False
    assert "serviceAccountName" not in pod
    assert pod["securityContext"] == {
        "runAsNonRoot": True,
        "runAsUser": 65534,
        "runAsGroup": 65534,
        "fsGroup": 65534,
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    (container,) = pod["containers"]
    assert container["image"] == QUEUE_EXPORTER_PINS.python_image
    assert "@sha256:" in container["image"]
    assert container["securityContext"] == {
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": True,
        "runAsNonRoot": True,
        "capabilities": {"drop": ["ALL"]},
    }
    mounts = {m["name"]: m for m in container["volumeMounts"]}
    assert mounts["program"]["readOnly"] and mounts["github-app"]["readOnly"]
    assert "readOnly" not in mounts["state"]  # the emptyDir: the one writable place
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert volumes["state"] == {"name": "state", "emptyDir": {"sizeLimit": "64Mi"}}
    secret = volumes["github-app"]["secret"]
    # The first scale set's App Secret, as the scale set registers it; nothing copied.
    assert secret["secretName"] == "oracle-vm-gpu-a10-1-github-app"
    apps = [
        r.inputs["metadata"]
        for r in run.by_type("kubernetes:core/v1:Secret")
        if r.inputs["metadata"]["name"] == secret["secretName"]
    ]
    assert apps == [{**apps[0], "namespace": "arc-runners"}]
    assert [i["key"] for i in secret["items"]] == [
        "github_app_id",
        "github_app_installation_id",
        "github_app_private_key",
    ]
    assert not [r for r in run.registrations if "Role" in r.type or "ServiceAccount" in r.type]
    assert not any(
        r.type == "kubernetes:core/v1:Secret" and "queue" in r.name for r in run.registrations
    )


def test_the_config_map_holds_the_program_and_a_config_it_accepts() -> None:
    run = _run({"repositories": ["kubeflow/trainer"], "interval": "2m"})
    (program,) = [
        c for c in run.by_type(CONFIG_MAP) if c.name == "monitoring-queue-exporter-program"
    ]
    data = program.inputs["data"]
    assert {k for k in data if k.endswith(".py")} == {p.name for p in PROGRAM.glob("*.py")}
    assert all(data[p.name] == p.read_text() for p in PROGRAM.glob("*.py"))
    raw = json.loads(data["config.json"])
    assert set(raw) == set(KEYS)
    parsed = parse(raw, "config.json")
    assert parsed.repositories == ("kubeflow/trainer",)
    assert parsed.labels == ("oracle-vm-gpu-a10-1", "gpu-a10-pod")  # the scale sets' names
    assert parsed.interval_s == 120.0


def test_the_pod_monitor_scrapes_it_where_it_runs() -> None:
    run = _run()
    monitor = run.one(POD_MONITOR, "monitoring-queue-exporter-monitor").inputs
    assert monitor["metadata"]["name"] == NAME
    assert monitor["spec"] == {
        "namespaceSelector": {"matchNames": ["arc-runners"]},
        "selector": {"matchLabels": {"app.kubernetes.io/name": NAME}},
        "jobLabel": "app.kubernetes.io/name",
        "podMetricsEndpoints": [{"port": "metrics", "path": "/metrics", "interval": "30s"}],
    }


def test_off_plans_none_of_it() -> None:
    run = _run({"enabled": False})
    assert not [r for r in run.registrations if "queue-exporter" in r.name]


def test_enabled_without_arc_or_a_vm_runner_is_one_message() -> None:
    with pytest.raises(pulumi.RunError) as caught:
        run_stack(dev_stack(**{"gpu-ci:observability": {"queueTime": {"enabled": True}}}))
    assert str(caught.value).splitlines()[:2] == [
        "stack 'test': invalid gpu-ci config (1 problem):",
        "  - gpu-ci:observability: queueTime.enabled, but this stack runs no ARC (gpu-ci:arc) "
        "and registers no VM runner (gpu-ci:runner): the queue-time exporter reads GitHub "
        "with their GitHub App; remove queueTime.enabled or deploy it from the stack with "
        "the runners [given: [secret]]",
    ]


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (
            {"repositories": ["trainer"]},
            "not a repository as `owner/name` (e.g. kubeflow/trainer): ['trainer']",
        ),
        (
            {"labels": ["gpu a10"]},
            "runner labels hold letters, digits, '.', '_' and '-': ['gpu a10']",
        ),
        (
            {"labels": ["GPU-A10", "gpu-a10"]},
            "labels listed twice (case-insensitively): ['GPU-A10', 'gpu-a10']",
        ),
        ({"interval": "5s"}, "'5s' is outside 15s to 1h"),
        (
            {"interval": "1 minute"},
            "'1 minute' is not a Prometheus duration for queueTime.interval",
        ),
    ],
)
def test_wrong_queue_time_config_is_refused(given: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError) as caught:
        QueueTimeConfig(**given)
    (error,) = caught.value.errors()
    assert message in error["msg"]
