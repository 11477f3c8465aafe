"""Run the real program for a config given as a dict, under the recording mocks."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import ProgramRun, Registration
from stacks.offline.engine.values import reveal
from stacks.offline.plan import REPO
from stacks.program import main

COMPARTMENT = "ocid1.compartment.oc1..aaaaaaaatestcompartment"
TENANCY = "ocid1.tenancy.oc1..aaaaaaaatesttenancy"
SSH_KEY = (
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILP8Dewg0gHHpsIioWZ2NUIbGuM/IMIfN3OLYDd73YIu t@example"
)


def vm_stack(**overrides: Any) -> dict[str, Any]:
    """A minimal valid VM-capacity config; `overrides` replace top-level keys."""
    values: dict[str, Any] = {
        "oci:region": "us-ashburn-1",
        "gpu-ci:capacity": "vm",
        "gpu-ci:compartmentId": COMPARTMENT,
        "gpu-ci:owner": "test-team",
        "gpu-ci:network": {"sshSourceCidrs": ["198.51.100.0/24"]},
        "gpu-ci:vm": {"sshAuthorizedKeys": [SSH_KEY]},
    }
    values.update(overrides)
    return {k: v for k, v in values.items() if v is not None}


def dev_stack(**overrides: Any) -> dict[str, Any]:
    """One VM, its nvkind cluster and the project's recipe (the dev stack's layers)."""
    values = vm_stack(
        **{
            "gpu-ci:network": {
                "sshSourceCidrs": ["198.51.100.0/24"],
                "apiSourceCidrs": ["198.51.100.0/24"],
            },
            "gpu-ci:host": {"target": "oci-vm"},
            "gpu-ci:cluster": {"name": "gpu-ci"},
            "gpu-ci:platform": {},
        }
    )
    values.update(overrides)
    return {k: v for k, v in values.items() if v is not None}


CLUSTER_EXPORT: dict[str, Any] = {
    "contractVersion": 1,
    "kind": "nvkind",
    "name": "gpu-ci",
    "nodeImage": "kindest/node:v1.35.0",
    "kubernetesVersion": "v1.35.0",
    "gpuCount": 1,
    "apiServerPort": 6443,
    "facts": {"K8s.server.version": "v1.35.0"},
}
"""The `cluster` export of an nvkind stack, as another stack's reference reads it."""


def flat(values: dict[str, Any]) -> dict[str, str]:
    """The flat string map the Pulumi CLI hands a program."""
    return {k: v if isinstance(v, str) else json.dumps(v) for k, v in values.items()}


def run_stack(
    values: dict[str, Any],
    *,
    preview: bool = True,
    secret_keys: Iterable[str] = (),
    stack: str = "test",
) -> ProgramRun:
    return run_program(
        main,
        project="gpu-ci",
        stack=stack,
        config=flat(values),
        secret_keys=set(secret_keys),
        preview=preview,
    )


def children_of(run: ProgramRun, parent: Registration) -> list[Registration]:
    return [r for r in run.registrations if r.parent == parent.urn]


DEV_QUEUE_EXPORTER = [
    "monitoring-queue-exporter",
    "monitoring-queue-exporter-github-app",
    "monitoring-queue-exporter-monitor",
    "monitoring-queue-exporter-ns",
    "monitoring-queue-exporter-program",
]
"""The queue-time exporter of a stack with VM runners (dev), sorted: its Deployment, its own
Secret with the runners' App, PodMonitor, Namespace and program's ConfigMap."""
DEV_MONITORING = sorted(
    [
        "monitoring",
        "monitoring",
        "monitoring-alerts",
        "monitoring-dashboard-gpu-ci",
        "monitoring-grafana-admin",
        "monitoring-grafana-password",
        "monitoring-ns",
        *DEV_QUEUE_EXPORTER,
    ]
)
"""What observability adds to the dev stack, by name, sorted (the component and its
kube-prometheus-stack Release share `monitoring`)."""
DEV_CHECK_JOBS = ["platform-checks-check-nvidia-smi", "platform-checks-operator-health"]
"""The dev platform's check Jobs before the Chainsaw checks (issue #31), sorted: each is
replaced whenever its check or what it checks changes."""
DEV_HEALTH_CHECKS = [
    ("platform-checks-health-gpu-operator", "kubernetes:batch/v1:Job"),
    ("platform-checks-health-gpu-operator", "kubernetes:core/v1:ConfigMap"),
    ("platform-checks-health-gpu-time-slicing", "kubernetes:batch/v1:Job"),
    ("platform-checks-health-gpu-time-slicing", "kubernetes:core/v1:ConfigMap"),
    ("platform-checks-health-kubeflow-trainer", "kubernetes:batch/v1:Job"),
    ("platform-checks-health-kubeflow-trainer", "kubernetes:core/v1:ConfigMap"),
    ("platform-checks-operator-health", "kubernetes:core/v1:ConfigMap"),
    ("platform-checks-robust-controller", "kubernetes:batch/v1:Job"),
    ("platform-checks-robust-controller", "kubernetes:core/v1:ConfigMap"),
    ("platform-checks-chainsaw-pods-start", "kubernetes:batch/v1:Job"),
]
"""(name, type) of the checks' Jobs and Tests the Chainsaw checks (issue #31) added to dev,
and the Job that starts their pod first (components/platform/checks/starts.py)."""


_PLACEHOLDER = re.compile(r"offline-placeholder:([a-z0-9-]+)\.kubeconfig:[0-9a-f]{16}")


def placeholder_of(provider: Registration) -> str:
    """The stack whose planned kubeconfig a Kubernetes provider reads (the offline
    placeholder carries that stack's name and the identity of its kubeconfig step)."""
    match = _PLACEHOLDER.fullmatch(str(reveal(provider.inputs["kubeconfig"])))
    assert match, reveal(provider.inputs["kubeconfig"])
    return match.group(1)


def cli(*args: str | Path, module: str = "stacks") -> subprocess.CompletedProcess[str]:
    """`python -m stacks ARGS` (or another module) as a user runs it, from the checkout."""
    return subprocess.run(
        [sys.executable, "-m", module, *map(str, args)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
