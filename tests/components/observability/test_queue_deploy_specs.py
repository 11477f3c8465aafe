"""The queue-time exporter's objects as queue_deploy.py renders them, without a plan: the
config file the program accepts at the paths the pod mounts, the pod the Pod Security
Standards' `restricted` level admits, and a digest that restarts it on any change.
test_queue_deploy.py has the same objects in whole-stack plans."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import SecretStr

from components.arc.pod_spec import Placement
from components.host.config.runner import GithubAppConfig
from components.observability.metrics import QUEUE_BUCKETS
from components.observability.queue_deploy import (
    PROGRAM,
    QueueExporterArgs,
    app_secret_data,
    deployment_spec,
    monitor_spec,
    own_namespace_labels,
    program_data,
    settings,
)
from components.observability.queue_exporter.settings import parse
from components.observability.queue_time_config import QueueTimeConfig
from components.pins import QUEUE_EXPORTER_PINS

ARGS = QueueExporterArgs(
    namespace="arc-runners",
    secret="gpu-a10-github-app",
    labels=("gpu-a10", "gpu-h100"),
    config=QueueTimeConfig(repositories=["kubeflow/trainer"], interval="2m", rateLimitReserve=250),
)
PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n"


def pod(spec: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = spec["template"]["spec"]
    return found


def test_its_own_namespace_enforces_the_restricted_pod_security_level() -> None:
    assert own_namespace_labels() == {
        "app.kubernetes.io/managed-by": "gpu-ci",
        "pod-security.kubernetes.io/enforce": "restricted",
    }


def test_its_own_secret_has_the_scale_sets_keys() -> None:
    app = GithubAppConfig(appId=1234567, installationId=87654321, privateKey=SecretStr(PEM))
    assert app_secret_data(app) == {
        "github_app_id": "1234567",
        "github_app_installation_id": "87654321",
        "github_app_private_key": PEM,
    }


def test_the_config_file_is_what_the_program_accepts() -> None:
    raw = settings(ARGS)
    assert raw == {
        "apiUrl": "https://api.github.com",
        "repositories": ["kubeflow/trainer"],
        "labels": ["gpu-a10", "gpu-h100"],
        "intervalSeconds": 120.0,
        "buckets": list(QUEUE_BUCKETS),
        "rateLimitReserve": 250,
        "port": 9102,
        "stateFile": "/var/lib/queue/seen.json",
        "appIdFile": "/var/run/github-app/app_id",
        "installationIdFile": "/var/run/github-app/installation_id",
        "privateKeyFile": "/var/run/github-app/private_key",
    }
    assert parse(raw, "config.json").port == 9102


def test_the_config_map_holds_every_module_and_the_config() -> None:
    data = program_data(ARGS)
    modules = sorted(p.name for p in PROGRAM.glob("*.py"))
    assert "__main__.py" in modules and "poller.py" in modules
    assert sorted(data) == sorted([*modules, "config.json"])
    assert all(data[name] == (PROGRAM / name).read_text() for name in modules)
    assert data["config.json"] == json.dumps(settings(ARGS), indent=2, sort_keys=True) + "\n"


def test_the_files_the_program_reads_are_where_the_pod_mounts_them() -> None:
    """The config's file paths, the container's command and the volumes' items agree: a
    path of one that is not a mount and item of the other would be a file not found."""
    data = program_data(ARGS)
    spec = pod(deployment_spec(ARGS, "gpu-ci-queue-exporter", data, Placement()))
    (container,) = spec["containers"]
    volumes = {v["name"]: v for v in spec["volumes"]}
    files = set()
    for mount in container["volumeMounts"]:
        volume = volumes[mount["name"]]
        if "configMap" in volume:
            files |= {f"{mount['mountPath']}/{name}" for name in data}
        elif "secret" in volume:
            files |= {f"{mount['mountPath']}/{i['path']}" for i in volume["secret"]["items"]}
    raw = json.loads(data["config.json"])
    for key in ("appIdFile", "installationIdFile", "privateKeyFile"):
        assert raw[key] in files
    assert container["command"] == [
        "python",
        "-m",
        "queue_exporter",
        "/opt/queue_exporter/config.json",
    ]
    assert container["command"][-1] in files
    # `python -m queue_exporter` imports the package from the working directory
    assert f"{container['workingDir']}/queue_exporter/__main__.py" in files
    state = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}["state"]
    assert raw["stateFile"].startswith(state + "/")


def test_the_pod_is_restricted_and_writes_only_its_state() -> None:
    spec = deployment_spec(ARGS, "gpu-ci-queue-exporter", program_data(ARGS), Placement())
    assert spec["replicas"] == 1 and spec["strategy"] == {"type": "Recreate"}
    labels = {"app.kubernetes.io/name": "gpu-ci-queue-exporter"}
    assert spec["selector"] == {"matchLabels": labels}
    assert spec["template"]["metadata"]["labels"] == labels
    assert pod(spec) == {
        "automountServiceAccountToken": False,
        "enableServiceLinks": False,
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": 65534,
            "runAsGroup": 65534,
            "fsGroup": 65534,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "containers": [
            {
                "name": "exporter",
                "image": QUEUE_EXPORTER_PINS.python_image,
                "command": [
                    "python",
                    "-m",
                    "queue_exporter",
                    "/opt/queue_exporter/config.json",
                ],
                "workingDir": "/opt",
                "env": [
                    {"name": "PYTHONDONTWRITEBYTECODE", "value": "1"},
                    {"name": "PYTHONUNBUFFERED", "value": "1"},
                ],
                "ports": [{"name": "metrics", "containerPort": 9102}],
                "readinessProbe": {
                    "httpGet": {"path": "/metrics", "port": "metrics"},
                    "periodSeconds": 30,
                },
                "livenessProbe": {
                    "httpGet": {"path": "/metrics", "port": "metrics"},
                    "periodSeconds": 30,
                    "failureThreshold": 4,
                },
                "resources": {
                    "requests": {"cpu": "10m", "memory": "64Mi"},
                    "limits": {"memory": "256Mi"},
                },
                "securityContext": {
                    "allowPrivilegeEscalation": False,
                    "readOnlyRootFilesystem": True,
                    "runAsNonRoot": True,
                    "capabilities": {"drop": ["ALL"]},
                },
                "volumeMounts": [
                    {"name": "program", "mountPath": "/opt/queue_exporter", "readOnly": True},
                    {"name": "github-app", "mountPath": "/var/run/github-app", "readOnly": True},
                    {"name": "state", "mountPath": "/var/lib/queue"},
                ],
            }
        ],
        "volumes": [
            {
                "name": "program",
                "configMap": {"name": "gpu-ci-queue-exporter", "defaultMode": 0o444},
            },
            {
                "name": "github-app",
                "secret": {
                    "secretName": "gpu-a10-github-app",
                    "defaultMode": 0o440,
                    "items": [
                        {"key": "github_app_id", "path": "app_id"},
                        {"key": "github_app_installation_id", "path": "installation_id"},
                        {"key": "github_app_private_key", "path": "private_key"},
                    ],
                },
            },
            {"name": "state", "emptyDir": {"sizeLimit": "64Mi"}},
        ],
    }


def test_the_pod_goes_where_the_placement_says() -> None:
    placement = Placement(
        node_selector={"pool": "cpu"},
        tolerations=[{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}],
    )
    spec = pod(deployment_spec(ARGS, "cm", program_data(ARGS), placement))
    assert spec["nodeSelector"] == {"pool": "cpu"}
    assert spec["tolerations"] == placement.tolerations


def test_any_change_to_the_program_or_its_config_restarts_the_pod() -> None:
    """The ConfigMap keeps its name, so the pod template carries the data's digest: the
    same data in any order is the same digest, any changed byte another."""
    data = program_data(ARGS)

    def digest(given: dict[str, str]) -> str:
        spec = deployment_spec(ARGS, "cm", given, Placement())
        found: str = spec["template"]["metadata"]["annotations"]["gpu-ci/program-sha256"]
        return found

    canonical = json.dumps(dict(sorted(data.items()))).encode()
    assert digest(data) == hashlib.sha256(canonical).hexdigest()
    assert digest(dict(reversed(list(data.items())))) == digest(data)
    other = program_data(ARGS.model_copy(update={"labels": ("gpu-a10",)}))
    assert digest(other) != digest(data)


def test_the_pod_monitor_scrapes_the_exporter_in_its_namespace() -> None:
    assert monitor_spec(ARGS, "45s") == {
        "namespaceSelector": {"matchNames": ["arc-runners"]},
        "selector": {"matchLabels": {"app.kubernetes.io/name": "gpu-ci-queue-exporter"}},
        "jobLabel": "app.kubernetes.io/name",
        "podMetricsEndpoints": [{"port": "metrics", "path": "/metrics", "interval": "45s"}],
    }
