"""Helpers for ARC tests: minimal configs, runs under the mocks, the charts rendered by Helm."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from components.pins import ARC_PINS
from stacks.offline.charts.render import Rendered
from stacks.offline.engine.fakes import FakeCloud
from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import ProgramRun, Registration
from stacks.offline.engine.values import reveal
from stacks.offline.plan import REPO
from stacks.offline.stack_file.read import read_stack_file
from stacks.program import main
from tests.stacks.offline.charts.chart_helpers import render_chart
from tests.stacks.stack_helpers import COMPARTMENT, flat

RELEASE = "kubernetes:helm.sh/v3:Release"
SECRET = "kubernetes:core/v1:Secret"
CONFIG_MAP = "kubernetes:core/v1:ConfigMap"
CRON_JOB = "kubernetes:batch/v1:CronJob"
NODE_POOL = "oci:ContainerEngine/nodePool:NodePool"
CLUSTER = "oci:ContainerEngine/cluster:Cluster"
SCALE_SET = "gpu-ci:arc:ArcRunnerScaleSet"
CONTROLLER = "gpu-ci:arc:ArcController"
OKE = "gpu-ci:arc:OkeCluster"
CLEANUP = "gpu-ci:arc:FailedRunnerCleanup"

PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEtest-not-a-real-key\n-----END RSA PRIVATE KEY-----\n"
LAUNCHER_IMAGE = "ghcr.io/example/launcher@sha256:" + "ab" * 32
RUNNER_IMAGE = "ghcr.io/actions/actions-runner:2.328.0"
KUBECONFIG = "apiVersion: v1\nkind: Config\nusers: [{name: u, user: {token: not-a-real-token}}]\n"
OCI_CREDENTIALS = {
    "user": "ocid1.user.oc1..aaaaaaaatestuser",
    "tenancy": "ocid1.tenancy.oc1..aaaaaaaatesttenancy",
    "fingerprint": "12:34:56:78:9a:bc:de:f0:12:34:56:78:9a:bc:de:f0",
    "privateKey": PEM,
    "region": "us-ashburn-1",
}


def launcher(name: str = "oracle-vm-gpu-a10-1", **overrides: Any) -> dict[str, Any]:
    """A valid vm-launcher scale set with an explicit subnet."""
    ss: dict[str, Any] = {
        "name": name,
        "kind": "vm-launcher",
        "githubConfigUrl": "https://github.com/enterprises/example",
        "runnerGroup": "GPUs",
        "maxRunners": 20,
        "launcherImage": LAUNCHER_IMAGE,
        "shapes": ["VM.GPU.A10.1"],
        "placement": {
            "region": "us-sanjose-1",
            "availabilityDomain": "bzBe:US-SANJOSE-1-AD-1",
            "subnetId": "ocid1.subnet.oc1.us-sanjose-1.aaaaaaaatestsubnet",
        },
        "ociCredentials": dict(OCI_CREDENTIALS),
    }
    ss.update(overrides)
    return {k: v for k, v in ss.items() if v is not None}


def gpu_pod(name: str = "gpu-a10-pod", **overrides: Any) -> dict[str, Any]:
    ss: dict[str, Any] = {
        "name": name,
        "kind": "gpu-pod",
        "githubConfigUrl": "https://github.com/kubeflow",
        "maxRunners": 2,
        "runnerImage": RUNNER_IMAGE,
    }
    ss.update(overrides)
    return {k: v for k, v in ss.items() if v is not None}


def arc_stack(*scale_sets: dict[str, Any], **arc: Any) -> dict[str, Any]:
    """A valid arc config on an existing cluster (kubeconfig); `arc` replaces arc keys."""
    block: dict[str, Any] = {
        "cluster": {"kubeconfig": KUBECONFIG},
        "githubApp": {"appId": 1234567, "installationId": 7654321, "privateKey": PEM},
        "scaleSets": list(scale_sets) or [launcher(), gpu_pod()],
    }
    block.update(arc)
    return {
        "oci:region": "us-ashburn-1",
        "gpu-ci:capacity": "arc",
        "gpu-ci:compartmentId": COMPARTMENT,
        "gpu-ci:owner": "test-team",
        "gpu-ci:arc": {k: v for k, v in block.items() if v is not None},
    }


CREDENTIAL_KEYS = ("privateKey", "kubeconfig", "ociCredentials")
"""The keys of this project's test configs that hold credentials (every leaf under them)."""


def secured(value: Any) -> Any:
    """`value` as a stack file holds it once each credential was set with
    `pulumi config set --secret --path`: `{secure: CIPHERTEXT}` in place of the text."""
    if isinstance(value, dict):
        return {k: _secure(v) if k in CREDENTIAL_KEYS else secured(v) for k, v in value.items()}
    if isinstance(value, list):
        return [secured(v) for v in value]
    return value


def _secure(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _secure(v) for k, v in value.items()}
    return {"secure": "v1:" + base64.b64encode(str(value).encode()).decode()}


def oke(**overrides: Any) -> dict[str, Any]:
    cluster: dict[str, Any] = {"kubernetesVersion": "v1.33.1", "gpuPool": {"size": 1}}
    cluster.update(overrides)
    return {"oke": {k: v for k, v in cluster.items() if v is not None}}


def run_arc(values: dict[str, Any], *, preview: bool = False) -> ProgramRun:
    """Run the program for `values`; the arc config is stored as a secret key, as a stack
    file with nested `secure:` values would mark it."""
    return run_program(
        main,
        project="gpu-ci",
        stack="test",
        config=flat(values),
        secret_keys={"gpu-ci:arc"},
        preview=preview,
    )


def run_example(*, preview: bool, own_network_for: str | None = None) -> ProgramRun:
    """The Pulumi.arc.yaml example stack, planned (preview) or applied (ids known).

    `own_network_for` drops that scale set's `placement.subnetId`, so its VMs go in this
    stack's subnet and NSG.
    """
    stack_file = read_stack_file(REPO, "arc")
    config = dict(stack_file.config)
    if own_network_for is not None:
        arc = json.loads(config["gpu-ci:arc"])
        for scale_set in arc["scaleSets"]:
            if scale_set["name"] == own_network_for:
                scale_set["placement"].pop("subnetId")
        config["gpu-ci:arc"] = json.dumps(arc)
    return run_program(
        main,
        project=stack_file.project,
        stack="arc",
        config=config,
        secret_keys=set(stack_file.secret_keys),
        preview=preview,
        cloud=FakeCloud(config),
    )


def release(run: ProgramRun, name: str) -> Registration:
    return next(r for r in run.by_type(RELEASE) if r.inputs["name"] == name)


def arc_releases(run: ProgramRun) -> list[Registration]:
    """The releases of ARC's charts (a stack also deploys its platform and monitoring)."""
    return [r for r in run.by_type(RELEASE) if str(r.inputs["chart"]).startswith(ARC_PINS.charts)]


def scale_set_releases(run: ProgramRun) -> list[Registration]:
    return [r for r in arc_releases(run) if r.inputs["chart"] == ARC_PINS.scale_set_chart]


def chart_of(reg: Registration, upstream: Path) -> Path:
    """The vendored chart a release deploys (`helm-charts/<chart>-<version>/`)."""
    chart = str(reg.inputs["chart"]).rsplit("/", 1)[-1]
    return upstream / "helm-charts" / f"{chart}-{reg.inputs['version']}"


def helm_render(
    reg: Registration, upstream: Path, values: dict[str, Any] | None = None
) -> Rendered:
    """`helm template` of the release's chart with its recorded values (or `values`)."""
    inputs = reg.inputs
    given = reveal(inputs["values"]) if values is None else values
    return render_chart(
        chart_of(reg, upstream), given, name=inputs["name"], namespace=inputs["namespace"]
    )


def runner_set(reg: Registration, upstream: Path, values: dict[str, Any] | None = None) -> Any:
    """The AutoscalingRunnerSet the scale-set chart renders for the release."""
    (found,) = helm_render(reg, upstream, values).find("AutoscalingRunnerSet")
    return found
