"""The queue-time exporter's Kubernetes objects: its program, Deployment and PodMonitor.

The program is the stdlib-only package queue_exporter/, shipped as a ConfigMap (its files
and `config.json`) and run by the pinned python image (components/pins.py) as
`python -m queue_exporter`. It runs in the namespace of the GitHub App Secret it reads,
which it mounts read-only: beside ARC, the scale sets' (`arc.runnersNamespace`); for VM
runners, a Secret of its own with the runners' App, in a namespace of its own
(`OWN_NAMESPACE`), so that no role granted in the monitoring namespace (a dashboard
maintainer's `edit`) reads the App key. No ServiceAccount token, no RBAC, no write anywhere
but its emptyDir (the record of observed jobs, kept across container restarts). Non-root,
read-only root filesystem, every capability dropped, seccomp RuntimeDefault: the Pod
Security Standards' `restricted` profile. One replica, recreated on change: two exporters
would observe the same jobs.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from components.arc.pod_spec import Placement
from components.base import MANAGED_LABELS
from components.host.config.runner import GithubAppConfig
from components.observability.metrics import QUEUE_BUCKETS
from components.observability.queue_exporter.__main__ import DEFAULT_PORT
from components.observability.queue_time_config import QueueTimeConfig
from components.pins import QUEUE_EXPORTER_PINS

NAME = "gpu-ci-queue-exporter"
JOB = NAME
"""The `job` of its series (the PodMonitor's `jobLabel` is the pods' app.kubernetes.io/name)."""
PROGRAM = Path(__file__).parent / "queue_exporter"
PROGRAM_DIR, APP_DIR, STATE_DIR = "/opt/queue_exporter", "/var/run/github-app", "/var/lib/queue"
API_URL = "https://api.github.com"
USER = 65534
"""`nobody`: the image's user table has it; no file of the image is written."""
APP_KEYS = {
    "github_app_id": "app_id",
    "github_app_installation_id": "installation_id",
    "github_app_private_key": "private_key",
}
"""The scale sets' Secret's keys (components/arc/scale_set.py, ARC's githubConfigSecret) and
the files they are mounted as. The exporter's own Secret (VM runners) has the same keys."""
OWN_NAMESPACE, OWN_SECRET = NAME, f"{NAME}-github-app"
"""Where the exporter runs with a Secret of its own (VM runners), and that Secret: a
namespace holding only the exporter."""
PSA_ENFORCE = "pod-security.kubernetes.io/enforce"
"""Pod Security Admission's label (kubernetes/kubernetes
`staging/src/k8s.io/pod-security-admission/api/constants.go` `EnforceLevelLabel`): its
`restricted` level admits the exporter's pod and nothing looser."""


class QueueExporterArgs(BaseModel):
    """Where the App Secret is, and what to watch."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    namespace: str
    secret: str
    labels: tuple[str, ...]
    config: QueueTimeConfig
    api_url: str = API_URL
    github_app: GithubAppConfig | None = None
    """The VM runners' App: the exporter gets `secret` holding it, in `namespace`, both its
    own. None: `secret` is the scale sets' (ARC), which the exporter only reads."""


def own_namespace_labels() -> dict[str, str]:
    """The exporter's own namespace: Pod Security `restricted` enforced."""
    return {**MANAGED_LABELS, PSA_ENFORCE: "restricted"}


def app_secret_data(app: GithubAppConfig) -> dict[str, str]:
    """The exporter's own Secret, keyed as the scale sets' (APP_KEYS), so the program reads
    the same files whichever Secret it mounts."""
    return {
        "github_app_id": str(app.appId),
        "github_app_installation_id": str(app.installationId),
        "github_app_private_key": app.privateKey.get_secret_value(),
    }


def settings(args: QueueExporterArgs) -> dict[str, Any]:
    """The program's config file (queue_exporter/settings.py reads exactly these keys)."""
    return {
        "apiUrl": args.api_url,
        "repositories": list(args.config.repositories),
        "labels": list(args.labels),
        "intervalSeconds": args.config.interval_s,
        "buckets": list(QUEUE_BUCKETS),
        "rateLimitReserve": args.config.rateLimitReserve,
        "port": DEFAULT_PORT,
        "stateFile": f"{STATE_DIR}/seen.json",
        "appIdFile": f"{APP_DIR}/app_id",
        "installationIdFile": f"{APP_DIR}/installation_id",
        "privateKeyFile": f"{APP_DIR}/private_key",
    }


def program_data(args: QueueExporterArgs) -> dict[str, str]:
    """The ConfigMap's data: every module of the program, and its config."""
    files = {p.name: p.read_text() for p in sorted(PROGRAM.glob("*.py"))}
    files["config.json"] = json.dumps(settings(args), indent=2, sort_keys=True) + "\n"
    return files


def _digest(data: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def _container() -> dict[str, Any]:
    probe = {"httpGet": {"path": "/metrics", "port": "metrics"}, "periodSeconds": 30}
    return {
        "name": "exporter",
        "image": QUEUE_EXPORTER_PINS.python_image,
        "command": ["python", "-m", "queue_exporter", f"{PROGRAM_DIR}/config.json"],
        "workingDir": "/opt",
        "env": [
            {"name": "PYTHONDONTWRITEBYTECODE", "value": "1"},
            {"name": "PYTHONUNBUFFERED", "value": "1"},
        ],
        "ports": [{"name": "metrics", "containerPort": DEFAULT_PORT}],
        "readinessProbe": probe,
        "livenessProbe": {**probe, "failureThreshold": 4},
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
            {"name": "program", "mountPath": PROGRAM_DIR, "readOnly": True},
            {"name": "github-app", "mountPath": APP_DIR, "readOnly": True},
            {"name": "state", "mountPath": STATE_DIR},
        ],
    }


def deployment_spec(
    args: QueueExporterArgs, config_map: str, data: dict[str, str], placement: Placement
) -> dict[str, Any]:
    labels = {"app.kubernetes.io/name": NAME}
    pod: dict[str, Any] = {
        "automountServiceAccountToken": False,
        "enableServiceLinks": False,
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": USER,
            "runAsGroup": USER,
            "fsGroup": USER,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "containers": [_container()],
        "volumes": [
            {"name": "program", "configMap": {"name": config_map, "defaultMode": 0o444}},
            {
                "name": "github-app",
                "secret": {
                    "secretName": args.secret,
                    "defaultMode": 0o440,
                    "items": [{"key": k, "path": v} for k, v in APP_KEYS.items()],
                },
            },
            {"name": "state", "emptyDir": {"sizeLimit": "64Mi"}},
        ],
        **placement.pod_fields(),
    }
    return {
        "replicas": 1,
        "strategy": {"type": "Recreate"},
        "selector": {"matchLabels": labels},
        "template": {
            "metadata": {
                "labels": labels,
                # A new program or config restarts the pod (the ConfigMap keeps its name).
                "annotations": {"gpu-ci/program-sha256": _digest(data)},
            },
            "spec": pod,
        },
    }


def monitor_spec(args: QueueExporterArgs, interval: str) -> dict[str, Any]:
    """The PodMonitor: the exporter's pod in its namespace, job `gpu-ci-queue-exporter`."""
    return {
        "namespaceSelector": {"matchNames": [args.namespace]},
        "selector": {"matchLabels": {"app.kubernetes.io/name": NAME}},
        "jobLabel": "app.kubernetes.io/name",
        "podMetricsEndpoints": [{"port": "metrics", "path": "/metrics", "interval": interval}],
    }
