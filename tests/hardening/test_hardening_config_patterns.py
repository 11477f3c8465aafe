"""A trailing newline never passes a config pattern (hardening, round 2, class 4).

`re.match(r"^...$", value)` accepts `value + "\\n"`: Python's `$` also matches before a
final newline. Every config value checked by a regex is now checked with a full match
(`fullmatch`), so `gpu1.example.org\\n` is no host name, `gpu-a10\\n` no runner label.
pydantic's `Field(pattern=...)` runs Rust's regex, whose `$` is the end of the text (it has
no `\\Z`): those fields refused the newline already, and stay in the table so that they keep
doing so.

One row per regex-checked config key: a valid value that loads, and the same value with a
trailing newline, which must fail with exactly one problem at that key, through the real
program, before anything registers. The list of patterns is also guarded at the source: no
`match`/`search` call is left in the config layer.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args, get_origin

import pulumi
import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from core.errors import GpuCiError
from stacks.config import StackConfig, load_config, raw_from_flat
from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import Registration
from stacks.offline.plan import REPO, plan_run
from stacks.program import main
from tests.components.arc.arc_helpers import LAUNCHER_IMAGE, arc_stack, gpu_pod, launcher, oke
from tests.stacks.stack_helpers import COMPARTMENT, SSH_KEY, TENANCY, flat, vm_stack

PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEApatterns\n-----END RSA PRIVATE KEY-----\n"
HOST_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILP8Dewg0gHHpsIioWZ2NUIbGuM/IMIfN3OLYDd73YIu"
SHA = "ab" * 32
SUBNET = "ocid1.subnet.oc1.us-sanjose-1.aaaaaaaatestsubnet"
IMAGE_ID = "ocid1.image.oc1.iad.aaaaaaaatestimage"
AD = "Uocm:US-ASHBURN-AD-1"
CREDENTIAL_KEYS = ("gpu-ci:runner", "gpu-ci:arc")
"""The top-level keys of these configs that hold credentials: stored as secrets."""

# -- one base config per layer, each holding every key its rows replace ------------------

LOCAL = {
    "gpu-ci:capacity": "none",
    "gpu-ci:host": {
        "target": "local",
        "versions": {
            "driverBranch": "570-server",
            "toolkit": "1.17.8-1",
            "nvkind": {
                "commit": "9a3061c",
                "commitDate": "2026-04-20",
                "binaryUrl": "https://example.org/nvkind",
                "binarySha256": SHA,
            },
            "kind": {"version": "0.31.0", "sha256": SHA},
            "kubectl": {"version": "1.35.0", "sha256": SHA},
            "helm": {"version": "3.19.0", "sha256": SHA},
        },
    },
}
SSH = {
    "gpu-ci:capacity": "none",
    "gpu-ci:host": {
        "target": "ssh",
        "address": "gpu1.example.org",
        "user": "ci",
        "hostKey": HOST_KEY,
        "dockerUser": "ci",
        "reboot": False,
        "proxy": {"address": "bastion.example.org", "user": "jump", "hostKey": HOST_KEY},
    },
}
VM = vm_stack(
    **{
        "gpu-ci:tenancyId": TENANCY,
        "gpu-ci:host": {"target": "oci-vm", "user": "ubuntu"},
        "gpu-ci:network": {"sshSourceCidrs": ["198.51.100.0/24"], "dnsLabel": "gpuci"},
        "gpu-ci:vm": {
            "allowUnlistedShape": True,
            "shape": "VM.GPU.A10.1",
            "availabilityDomains": [AD],
            "image": {"id": IMAGE_ID},
            "sshAuthorizedKeys": [SSH_KEY],
        },
    }
)
VM_SUBNET = vm_stack(**{"gpu-ci:network": {"existingSubnetId": SUBNET}})
RUNNER = {
    **VM,
    "gpu-ci:runner": {
        "url": "https://github.com/kubeflow",
        "labels": ["gpu-a10"],
        "githubApp": {"appId": 1, "installationId": 2, "privateKey": PEM},
    },
}
ARC = arc_stack(
    launcher(
        labels=["a10"],
        compartmentId=COMPARTMENT,
        fallback={
            "region": "us-phoenix-1",
            "availabilityDomain": "Uocm:PHX-AD-1",
            "subnetId": SUBNET,
        },
    ),
    gpu_pod(runtimeClassName="nvidia", workVolume={"size": "20Gi"}),
    controller={
        "namespace": "arc-systems",
        "releaseName": "arc",
        "chartVersion": "0.14.2",
        "nodeSelector": {"gpu-ci/pool": "cpu"},
        "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
    },
    runnersNamespace="arc-runners",
    failedRunnerCleanup={"schedule": "*/10 * * * *", "image": "docker.io/alpine/k8s:1.33.3"},
)
ARC_EXISTING = arc_stack(
    gpu_pod(), githubApp=None, existingSecret="github-app", cluster={"clusterStack": "gpu-dev"}
)
ARC_OKE = arc_stack(
    gpu_pod(),
    cluster=oke(
        name="gpu-ci-arc",
        cpuPool={"shape": "VM.Standard.E5.Flex", "availabilityDomains": ["Uocm:PHX-AD-1"]},
        gpuPool={
            "size": 1,
            "imageId": IMAGE_ID,
            "taints": [{"key": "nvidia.com/gpu", "value": "present"}],
        },
    ),
)
CLUSTER = {
    "gpu-ci:capacity": "none",
    "gpu-ci:host": {"target": "local"},
    "gpu-ci:cluster": {
        "name": "gpu-ci",
        "nodeImage": "kindest/node:v1.35.0",
        "kindVersion": "0.31.0",
        "workerLabels": {"gpu-ci.io/pool": "gpu"},
        "certSANs": ["gpu.example.org"],
    },
    "gpu-ci:platform": {
        "service": "kind",
        "accelerator": "a10",
        "intent": "training",
        "platform": "kubeflow",
    },
}
PLATFORM_STACK = {"gpu-ci:platform": {"clusterStack": "gpu-dev", "accelerator": "a10"}}

_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def put(values: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    """A copy of `values` with `value` at the full key (`gpu-ci:arc.scaleSets[0].name`)."""
    out = copy.deepcopy(values)
    top, _, rest = key.partition(".")
    if not rest:
        out[top] = value
        return out
    parts: list[str | int] = [int(i) if i else name for name, i in _PART.findall(rest)]
    node = out[top]
    for part in parts[:-1]:
        node = node[part]
    node[parts[-1]] = value
    return out


def secret_keys(values: dict[str, Any]) -> set[str]:
    return {key for key in CREDENTIAL_KEYS if key in values}


@dataclass(frozen=True)
class Row:
    """A regex-checked key, a valid value there, and the one problem of that value plus a
    trailing newline (`bad`, when the newline goes elsewhere than at the value's end)."""

    key: str
    base: dict[str, Any]
    valid: Any
    problem: str
    bad: Any = None
    variant: str = ""

    @property
    def id(self) -> str:
        return self.key.removeprefix("gpu-ci:") + (f"-{self.variant}" if self.variant else "")

    @property
    def newline(self) -> Any:
        return self.valid + "\n" if self.bad is None else self.bad


ROWS = [
    # -- components/config_base.py: GitHub URLs, stack references, OCIDs
    Row(
        "gpu-ci:runner.url",
        RUNNER,
        "https://github.com/kubeflow",
        "gpu-ci:runner.url: not a GitHub URL of a repository, organization or enterprise "
        "(https://github.com/ORG/REPO, https://github.com/ORG, "
        "https://github.com/enterprises/NAME) [given: 'https://github.com/kubeflow\\n']",
    ),
    Row(
        "gpu-ci:arc.scaleSets[1].githubConfigUrl",
        ARC,
        "https://github.com/kubeflow",
        "gpu-ci:arc.scaleSets[1].githubConfigUrl: not a GitHub URL of a repository, "
        "organization or enterprise (https://github.com/ORG/REPO, https://github.com/ORG, "
        "https://github.com/enterprises/NAME) [given: 'https://github.com/kubeflow\\n']",
    ),
    Row(
        "gpu-ci:platform.clusterStack",
        PLATFORM_STACK,
        "gpu-dev",
        "gpu-ci:platform.clusterStack: not a stack reference: STACK or "
        "ORGANIZATION/PROJECT/STACK [given: 'gpu-dev\\n']",
    ),
    Row(
        "gpu-ci:arc.cluster.clusterStack",
        ARC_EXISTING,
        "gpu-dev",
        "gpu-ci:arc.cluster.clusterStack: not a stack reference: STACK or "
        "ORGANIZATION/PROJECT/STACK [given: 'gpu-dev\\n']",
    ),
    Row(
        "gpu-ci:compartmentId",
        VM,
        COMPARTMENT,
        "gpu-ci:compartmentId: 'ocid1.compartment.oc1..aaaaaaaatestcompartment\\n' is not an "
        "OCI OCID: ocid1.<type>.<realm>.[region][.future].<unique id>, each part lowercase "
        "letters and digits (a region may hold '-'); copy it from the OCI console (Identity > "
        "Compartments, or Tenancy) [given: 'ocid1.compartment.oc1..aaaaaaaatestcompartment\\n']",
    ),
    Row(
        "gpu-ci:tenancyId",
        VM,
        TENANCY,
        "gpu-ci:tenancyId: 'ocid1.tenancy.oc1..aaaaaaaatesttenancy\\n' is not an OCI OCID: "
        "ocid1.<type>.<realm>.[region][.future].<unique id>, each part lowercase letters and "
        "digits (a region may hold '-'); copy it from the OCI console (Identity > Compartments, "
        "or Tenancy) [given: 'ocid1.tenancy.oc1..aaaaaaaatesttenancy\\n']",
    ),
    Row(
        "gpu-ci:network.existingSubnetId",
        VM_SUBNET,
        SUBNET,
        "gpu-ci:network.existingSubnetId: 'ocid1.subnet.oc1.us-sanjose-1.aaaaaaaatestsubnet\\n' "
        "is not an OCI OCID (ocid1.<type>.<realm>.[region].<unique id>) [given: "
        "'ocid1.subnet.oc1.us-sanjose-1.aaaaaaaatestsubnet\\n']",
    ),
    Row(
        "gpu-ci:vm.image.id",
        VM,
        IMAGE_ID,
        "gpu-ci:vm.image.id: 'ocid1.image.oc1.iad.aaaaaaaatestimage\\n' is not an OCI OCID "
        "(ocid1.<type>.<realm>.[region].<unique id>) [given: "
        "'ocid1.image.oc1.iad.aaaaaaaatestimage\\n']",
    ),
    Row(
        "gpu-ci:arc.scaleSets[0].placement.subnetId",
        ARC,
        SUBNET,
        "gpu-ci:arc.scaleSets[0].placement.subnetId: "
        "'ocid1.subnet.oc1.us-sanjose-1.aaaaaaaatestsubnet\\n' is not an OCI OCID "
        "(ocid1.<type>.<realm>.[region].<unique id>) [given: "
        "'ocid1.subnet.oc1.us-sanjose-1.aaaaaaaatestsubnet\\n']",
    ),
    Row(
        "gpu-ci:arc.scaleSets[0].compartmentId",
        ARC,
        COMPARTMENT,
        "gpu-ci:arc.scaleSets[0].compartmentId: "
        "'ocid1.compartment.oc1..aaaaaaaatestcompartment\\n' is not an OCI OCID "
        "(ocid1.<type>.<realm>.[region].<unique id>) [given: "
        "'ocid1.compartment.oc1..aaaaaaaatestcompartment\\n']",
    ),
    Row(
        "gpu-ci:arc.cluster.oke.gpuPool.imageId",
        ARC_OKE,
        IMAGE_ID,
        "gpu-ci:arc.cluster.oke.gpuPool.imageId: 'ocid1.image.oc1.iad.aaaaaaaatestimage\\n' is "
        "not an OCI OCID (ocid1.<type>.<realm>.[region].<unique id>) [given: "
        "'ocid1.image.oc1.iad.aaaaaaaatestimage\\n']",
    ),
    # -- components/host/config/host.py, config/versions.py: addresses, host keys, versions
    Row(
        "gpu-ci:host.address",
        SSH,
        "gpu1.example.org",
        "gpu-ci:host.address: 'gpu1.example.org\\n' is not a host name or IP address [given: "
        "'gpu1.example.org\\n']",
    ),
    Row(
        "gpu-ci:host.proxy.address",
        SSH,
        "bastion.example.org",
        "gpu-ci:host.proxy.address: 'bastion.example.org\\n' is not a host name or IP address "
        "[given: 'bastion.example.org\\n']",
    ),
    Row(
        "gpu-ci:host.hostKey",
        SSH,
        HOST_KEY,
        "gpu-ci:host.hostKey: not an SSH host public key ('ssh-ed25519 AAAA...'); read it on "
        "the host with `cat /etc/ssh/ssh_host_ed25519_key.pub`, or with `ssh-keyscan -t ed25519 "
        "HOST` over a network you trust [given: 'ssh-ed25519 "
        "AAAAC3NzaC1lZDI1NTE5AAAAILP8D...N3OLYDd73YIu\\n']",
    ),
    Row(
        "gpu-ci:host.hostKey",
        SSH,
        HOST_KEY,
        "gpu-ci:host.hostKey: not an SSH host public key ('ssh-ed25519 AAAA...'); read it on "
        "the host with `cat /etc/ssh/ssh_host_ed25519_key.pub`, or with `ssh-keyscan -t ed25519 "
        "HOST` over a network you trust [given: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILP8D...Iu "
        "root@gpu1\\n']",
        bad=HOST_KEY + " root@gpu1\n",
        variant="comment",
    ),
    Row(
        "gpu-ci:host.proxy.hostKey",
        SSH,
        HOST_KEY,
        "gpu-ci:host.proxy.hostKey: not an SSH host public key ('ssh-ed25519 AAAA...'); read it "
        "on the host with `cat /etc/ssh/ssh_host_ed25519_key.pub`, or with `ssh-keyscan -t "
        "ed25519 HOST` over a network you trust [given: 'ssh-ed25519 "
        "AAAAC3NzaC1lZDI1NTE5AAAAILP8D...N3OLYDd73YIu\\n']",
    ),
    Row(
        "gpu-ci:host.user",
        SSH,
        "ci",
        "gpu-ci:host.user: String should match pattern '^[a-z_][a-z0-9_-]{0,31}$' [given: 'ci\\n']",
    ),
    Row(
        "gpu-ci:host.user",
        VM,
        "ubuntu",
        "gpu-ci:host.user: String should match pattern '^[a-z_][a-z0-9_-]{0,31}$' [given: "
        "'ubuntu\\n']",
        variant="oci-vm",
    ),
    Row(
        "gpu-ci:host.proxy.user",
        SSH,
        "jump",
        "gpu-ci:host.proxy.user: String should match pattern '^[a-z_][a-z0-9_-]{0,31}$' [given: "
        "'jump\\n']",
    ),
    Row(
        "gpu-ci:host.dockerUser",
        SSH,
        "ci",
        "gpu-ci:host.dockerUser: String should match pattern '^[a-z_][a-z0-9_-]{0,31}$' [given: "
        "'ci\\n']",
    ),
    Row(
        "gpu-ci:host.versions.driverBranch",
        LOCAL,
        "570-server",
        "gpu-ci:host.versions.driverBranch: '570-server\\n' is not an NVIDIA driver branch "
        "(BRANCH, BRANCH-server, BRANCH-open or BRANCH-server-open, as Ubuntu's "
        "nvidia-driver-BRANCH packages are named): remove the spaces or line break around it "
        "(apt-cache search --names-only '^nvidia-driver-[0-9]' lists them) "
        "[given: '570-server\\n']",
    ),
    Row(
        "gpu-ci:host.versions.toolkit",
        LOCAL,
        "1.17.8-1",
        "gpu-ci:host.versions.toolkit: '1.17.8-1\\n' is not an apt version of "
        "nvidia-container-toolkit: remove the spaces or line break around it (apt-cache "
        "madison nvidia-container-toolkit lists them) [given: '1.17.8-1\\n']",
    ),
    Row(
        "gpu-ci:host.versions.nvkind.commit",
        LOCAL,
        "9a3061c",
        "gpu-ci:host.versions.nvkind.commit: '9a3061c\\n' is not a git commit hash: remove "
        "the spaces or line break around it [given: '9a3061c\\n']",
    ),
    Row(
        "gpu-ci:host.versions.nvkind.binaryUrl",
        LOCAL,
        "https://example.org/nvkind",
        "gpu-ci:host.versions.nvkind.binaryUrl: String should match pattern '^https://\\S+$' "
        "[given: 'https://example.org/nvkind\\n']",
    ),
    Row(
        "gpu-ci:host.versions.nvkind.binarySha256",
        LOCAL,
        SHA,
        "gpu-ci:host.versions.nvkind.binarySha256: String should match pattern '^[0-9a-f]{64}$' "
        "[given: 'ababababababababababababababababababababa...abababababab\\n']",
    ),
    Row(
        "gpu-ci:host.versions.kind.version",
        LOCAL,
        "0.31.0",
        "gpu-ci:host.versions.kind.version: '0.31.0\\n' is not a release version "
        "MAJOR.MINOR.PATCH: remove the spaces or line break around it [given: '0.31.0\\n']",
    ),
    Row(
        "gpu-ci:host.versions.kind.sha256",
        LOCAL,
        SHA,
        "gpu-ci:host.versions.kind.sha256: String should match pattern '^[0-9a-f]{64}$' [given: "
        "'ababababababababababababababababababababa...abababababab\\n']",
    ),
    Row(
        "gpu-ci:host.versions.kubectl.version",
        LOCAL,
        "1.35.0",
        "gpu-ci:host.versions.kubectl.version: '1.35.0\\n' is not a release version "
        "MAJOR.MINOR.PATCH: remove the spaces or line break around it [given: '1.35.0\\n']",
    ),
    Row(
        "gpu-ci:host.versions.kubectl.sha256",
        LOCAL,
        SHA,
        "gpu-ci:host.versions.kubectl.sha256: String should match pattern '^[0-9a-f]{64}$' "
        "[given: 'ababababababababababababababababababababa...abababababab\\n']",
    ),
    Row(
        "gpu-ci:host.versions.helm.version",
        LOCAL,
        "3.19.0",
        "gpu-ci:host.versions.helm.version: '3.19.0\\n' is not a release version "
        "MAJOR.MINOR.PATCH: remove the spaces or line break around it [given: '3.19.0\\n']",
    ),
    Row(
        "gpu-ci:host.versions.helm.sha256",
        LOCAL,
        SHA,
        "gpu-ci:host.versions.helm.sha256: String should match pattern '^[0-9a-f]{64}$' [given: "
        "'ababababababababababababababababababababa...abababababab\\n']",
    ),
    # -- components/host/config/runner.py: runner labels (also ARC scale-set names)
    Row(
        "gpu-ci:runner.labels[0]",
        RUNNER,
        "gpu-a10",
        "gpu-ci:runner.labels: label 0 ('gpu-a10\\n') may hold only letters, digits, '.', '_' "
        "and '-'; remove the line break, space or other character [given: [\"gpu-a10\\n\"]]",
    ),
    Row(
        "gpu-ci:arc.scaleSets[1].name",
        ARC,
        "gpu-a10-pod",
        "gpu-ci:arc.scaleSets[1].name: not a valid runner label for a scale set: the name is "
        "the label jobs use (runs-on), the Helm release and the AutoscalingRunnerSet, so it "
        "takes lowercase letters, digits and '-', starts and ends with a letter or digit, and "
        "has at most 45 characters (e.g. oracle-vm-gpu-a10-1) [given: 'gpu-a10-pod\\n']",
    ),
    Row(
        "gpu-ci:arc.scaleSets[0].labels[0]",
        ARC,
        "a10",
        "gpu-ci:arc.scaleSets[0].labels: labels may hold letters, digits, '.', '_' and '-': "
        "['a10\\n'] [given: [\"a10\\n\"]]",
    ),
    # -- components/oci/vm_config.py: availability domains, shapes, SSH public keys
    Row(
        "gpu-ci:vm.availabilityDomains[0]",
        VM,
        AD,
        "gpu-ci:vm.availabilityDomains[0]: 'Uocm:US-ASHBURN-AD-1\\n' is neither an index (0, 1, "
        "2) nor an availability domain name like 'Uocm:PHX-AD-1' [given: "
        "'Uocm:US-ASHBURN-AD-1\\n']",
    ),
    Row(
        "gpu-ci:vm.shape",
        VM,
        "VM.GPU.A10.1",
        # Neither a listed shape nor, with allowUnlistedShape, an OCI shape name.
        "gpu-ci:vm.shape: unknown GPU shape (did you mean 'VM.GPU.A10.1'?); known shapes: "
        "VM.GPU.A10.1, ...",
    ),
    Row(
        "gpu-ci:vm.sshAuthorizedKeys[0]",
        VM,
        SSH_KEY,
        "gpu-ci:vm.sshAuthorizedKeys[0]: not an OpenSSH public key ('ssh-ed25519 AAAA... "
        "comment') [given: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILP8D...Iu t@example\\n']",
    ),
    Row(
        "gpu-ci:arc.scaleSets[0].placement.availabilityDomain",
        ARC,
        "bzBe:US-SANJOSE-1-AD-1",
        "gpu-ci:arc.scaleSets[0].placement.availabilityDomain: String should match pattern "
        "'^[A-Za-z0-9]+:[A-Z0-9]+(-[A-Z0-9]+)*-AD-\\d+$' [given: 'bzBe:US-SANJOSE-1-AD-1\\n']",
    ),
    Row(
        "gpu-ci:arc.scaleSets[0].fallback.availabilityDomain",
        ARC,
        "Uocm:PHX-AD-1",
        "gpu-ci:arc.scaleSets[0].fallback.availabilityDomain: String should match pattern "
        "'^[A-Za-z0-9]+:[A-Z0-9]+(-[A-Z0-9]+)*-AD-\\d+$' [given: 'Uocm:PHX-AD-1\\n']",
    ),
    Row(
        "gpu-ci:arc.cluster.oke.cpuPool.availabilityDomains[0]",
        ARC_OKE,
        "Uocm:PHX-AD-1",
        "gpu-ci:arc.cluster.oke.cpuPool.availabilityDomains[0]: 'Uocm:PHX-AD-1\\n' is neither "
        "an index (0, 1, 2) nor an availability domain name like 'Uocm:PHX-AD-1' [given: "
        "'Uocm:PHX-AD-1\\n']",
    ),
    Row(
        "gpu-ci:arc.cluster.oke.cpuPool.shape",
        ARC_OKE,
        "VM.Standard.E5.Flex",
        "gpu-ci:arc.cluster.oke.cpuPool.shape: String should match pattern "
        "'^(VM|BM)\\.[A-Za-z0-9]+(\\.[A-Za-z0-9-]+)+$' [given: 'VM.Standard.E5.Flex\\n']",
    ),
    Row(
        "gpu-ci:arc.scaleSets[0].shapes[0]",
        ARC,
        "VM.GPU.A10.1",
        "gpu-ci:arc.scaleSets[0].shapes: not OCI shape names (like VM.GPU.A10.1): "
        "['VM.GPU.A10.1\\n'] [given: [\"VM.GPU.A10.1\\n\"]]",
    ),
    # -- components/oci/network_config.py, platform.py, stack.py
    Row(
        "gpu-ci:network.dnsLabel",
        VM,
        "gpuci",
        "gpu-ci:network.dnsLabel: String should match pattern '^[a-z][a-z0-9]{0,14}$' [given: "
        "'gpuci\\n']",
    ),
    Row(
        "gpu-ci:observability.grafana.dashboardLabel",
        {**CLUSTER, "gpu-ci:observability": {"grafana": {}}},
        "grafana_dashboard",
        "gpu-ci:observability.grafana.dashboardLabel: String should match pattern "
        "'^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$' [given: 'grafana_dashboard\\n']",
    ),
    Row(
        "gpu-ci:platform.service",
        CLUSTER,
        "kind",
        "gpu-ci:platform.service: String should match pattern '^[a-z0-9][a-z0-9._-]*$' [given: "
        "'kind\\n']",
    ),
    Row(
        "gpu-ci:platform.accelerator",
        CLUSTER,
        "a10",
        "gpu-ci:platform.accelerator: String should match pattern '^[a-z0-9][a-z0-9._-]*$' "
        "[given: 'a10\\n']",
    ),
    Row(
        "gpu-ci:platform.os",
        CLUSTER,
        "ubuntu",
        "gpu-ci:platform.os: String should match pattern '^[a-z0-9][a-z0-9._-]*$' [given: "
        "'ubuntu\\n']",
    ),
    Row(
        "gpu-ci:platform.intent",
        CLUSTER,
        "training",
        "gpu-ci:platform.intent: String should match pattern '^[a-z0-9][a-z0-9._-]*$' [given: "
        "'training\\n']",
    ),
    Row(
        "gpu-ci:platform.platform",
        CLUSTER,
        "kubeflow",
        "gpu-ci:platform.platform: String should match pattern '^[a-z0-9][a-z0-9._-]*$' [given: "
        "'kubeflow\\n']",
    ),
    Row(
        "gpu-ci:owner",
        VM,
        "test-team",
        "gpu-ci:owner: String should match pattern '^[A-Za-z0-9][A-Za-z0-9._@-]{0,62}$' [given: "
        "'test-team\\n']",
    ),
    # -- components/arc/*_config.py, k8s_types.py: Kubernetes names, labels, taints, images, cron
    Row(
        "gpu-ci:arc.controller.namespace",
        ARC,
        "arc-systems",
        "gpu-ci:arc.controller.namespace: not a Kubernetes name: lowercase letters, digits and "
        "'-', starting and ending with a letter or digit, at most 63 characters [given: "
        "'arc-systems\\n']",
    ),
    Row(
        "gpu-ci:arc.controller.releaseName",
        ARC,
        "arc",
        "gpu-ci:arc.controller.releaseName: not a Kubernetes name: lowercase letters, digits "
        "and '-', starting and ending with a letter or digit, at most 63 characters [given: "
        "'arc\\n']",
    ),
    Row(
        "gpu-ci:arc.runnersNamespace",
        ARC,
        "arc-runners",
        "gpu-ci:arc.runnersNamespace: not a Kubernetes name: lowercase letters, digits and '-', "
        "starting and ending with a letter or digit, at most 63 characters [given: "
        "'arc-runners\\n']",
    ),
    Row(
        "gpu-ci:arc.existingSecret",
        ARC_EXISTING,
        "github-app",
        "gpu-ci:arc.existingSecret: not a Kubernetes name: lowercase letters, digits and '-', "
        "starting and ending with a letter or digit, at most 63 characters [given: "
        "'github-app\\n']",
    ),
    Row(
        "gpu-ci:arc.scaleSets[1].runtimeClassName",
        ARC,
        "nvidia",
        "gpu-ci:arc.scaleSets[1].runtimeClassName: not a Kubernetes name: lowercase letters, "
        "digits and '-', starting and ending with a letter or digit, at most 63 characters "
        "[given: 'nvidia\\n']",
    ),
    Row(
        "gpu-ci:arc.controller.nodeSelector",
        ARC,
        {"gpu-ci/pool": "cpu"},
        "gpu-ci:arc.controller.nodeSelector: 'gpu-ci/pool\\n' is not a Kubernetes label key "
        '([prefix/]name) [given: {"gpu-ci/pool\\n": "cpu"}]',
        bad={"gpu-ci/pool\n": "cpu"},
        variant="key",
    ),
    Row(
        "gpu-ci:arc.controller.nodeSelector",
        ARC,
        {"gpu-ci/pool": "cpu"},
        "gpu-ci:arc.controller.nodeSelector: 'cpu\\n' (for gpu-ci/pool) is not a Kubernetes "
        'label value [given: {"gpu-ci/pool": "cpu\\n"}]',
        bad={"gpu-ci/pool": "cpu\n"},
        variant="value",
    ),
    Row(
        "gpu-ci:arc.cluster.oke.gpuPool.taints[0].key",
        ARC_OKE,
        "nvidia.com/gpu",
        "gpu-ci:arc.cluster.oke.gpuPool.taints[0].key: 'nvidia.com/gpu\\n' is not a Kubernetes "
        "taint key: an optional DNS-subdomain prefix and '/' (like nvidia.com/), then a name of "
        "1-63 letters, digits, '-', '_' or '.' that starts and ends with a letter or digit "
        "[given: 'nvidia.com/gpu\\n']",
    ),
    Row(
        "gpu-ci:arc.cluster.oke.gpuPool.taints[0].value",
        ARC_OKE,
        "present",
        "gpu-ci:arc.cluster.oke.gpuPool.taints[0].value: 'present\\n' is not a Kubernetes taint "
        "value: empty, or 1-63 letters, digits, '-', '_' or '.' that start and end with a "
        "letter or digit [given: 'present\\n']",
    ),
    Row(
        "gpu-ci:arc.controller.chartVersion",
        ARC,
        "0.14.2",
        "gpu-ci:arc.controller.chartVersion: String should match pattern "
        "'^[0-9]+\\.[0-9]+\\.[0-9]+$' [given: '0.14.2\\n']",
    ),
    Row(
        "gpu-ci:arc.controller.resources.requests.cpu",
        ARC,
        "100m",
        "gpu-ci:arc.controller.resources.requests.cpu: '100m\\n' is not a Kubernetes quantity "
        "like 500m, 2 or 4Gi [given: '100m\\n']",
    ),
    Row(
        "gpu-ci:arc.scaleSets[1].workVolume.size",
        ARC,
        "20Gi",
        "gpu-ci:arc.scaleSets[1].workVolume.size: '20Gi\\n' is not a Kubernetes quantity like "
        "500m, 2 or 4Gi [given: '20Gi\\n']",
    ),
    Row(
        "gpu-ci:arc.scaleSets[0].launcherImage",
        ARC,
        LAUNCHER_IMAGE,
        "gpu-ci:arc.scaleSets[0].launcherImage: pin the image by digest "
        "(REGISTRY/REPO@sha256:<64 hex>): the launcher holds OCI credentials, so a moved tag "
        "must not change what runs [given: "
        "'ghcr.io/example/launcher@sha256:ababababa...abababababab\\n']",
    ),
    Row(
        "gpu-ci:arc.scaleSets[1].runnerImage",
        ARC,
        "ghcr.io/actions/actions-runner:2.328.0",
        "gpu-ci:arc.scaleSets[1].runnerImage: pin the image by a version tag or a digest (not "
        ":latest, not untagged) [given: 'ghcr.io/actions/actions-runner:2.328.0\\n']",
    ),
    Row(
        "gpu-ci:arc.scaleSets[1].runnerImage",
        ARC,
        "ghcr.io/actions/actions-runner:2.328.0",
        "gpu-ci:arc.scaleSets[1].runnerImage: pin the image by a version tag or a digest (not "
        ":latest, not untagged) [given: 'ghcr.io/actions/actions\\nrunner:2.328.0']",
        bad="ghcr.io/actions/actions\nrunner:2.328.0",
        variant="inside",
    ),
    Row(
        "gpu-ci:arc.failedRunnerCleanup.image",
        ARC,
        "docker.io/alpine/k8s:1.33.3",
        "gpu-ci:arc.failedRunnerCleanup.image: pin the image by a version tag or a digest (not "
        ":latest, not untagged) [given: 'docker.io/alpine/k8s:1.33.3\\n']",
    ),
    Row(
        "gpu-ci:arc.failedRunnerCleanup.schedule",
        ARC,
        "*/10 * * * *",
        "gpu-ci:arc.failedRunnerCleanup.schedule: not a five-field cron schedule like '*/10 * * "
        "* *' [given: '*/10 * * * *\\n']",
    ),
    Row(
        "gpu-ci:arc.scaleSets[0].placement.region",
        ARC,
        "us-sanjose-1",
        "gpu-ci:arc.scaleSets[0].placement.region: String should match pattern "
        "'^[a-z]{2,}(-[a-z0-9]+)+-[0-9]+$' [given: 'us-sanjose-1\\n']",
    ),
    Row(
        "gpu-ci:arc.scaleSets[0].fallback.region",
        ARC,
        "us-phoenix-1",
        "gpu-ci:arc.scaleSets[0].fallback.region: String should match pattern "
        "'^[a-z]{2,}(-[a-z0-9]+)+-[0-9]+$' [given: 'us-phoenix-1\\n']",
    ),
    Row(
        "gpu-ci:arc.cluster.oke.name",
        ARC_OKE,
        "gpu-ci-arc",
        "gpu-ci:arc.cluster.oke.name: String should match pattern "
        "'^[A-Za-z0-9][A-Za-z0-9_-]{0,254}$' [given: 'gpu-ci-arc\\n']",
    ),
    Row(
        "gpu-ci:arc.cluster.oke.kubernetesVersion",
        ARC_OKE,
        "v1.33.1",
        "gpu-ci:arc.cluster.oke.kubernetesVersion: String should match pattern "
        "'^v1\\.[0-9]+\\.[0-9]+$' [given: 'v1.33.1\\n']",
    ),
    Row(
        "gpu-ci:arc.scaleSets[0].ociCredentials.user",
        ARC,
        "ocid1.user.oc1..aaaaaaaatestuser",
        "gpu-ci:arc.scaleSets[0].ociCredentials.user: not a user OCID (ocid1.user...) [given: "
        "[secret]]",
    ),
    Row(
        "gpu-ci:arc.scaleSets[0].ociCredentials.tenancy",
        ARC,
        "ocid1.tenancy.oc1..aaaaaaaatesttenancy",
        "gpu-ci:arc.scaleSets[0].ociCredentials.tenancy: not a tenancy OCID (ocid1.tenancy...) "
        "[given: [secret]]",
    ),
    Row(
        "gpu-ci:arc.scaleSets[0].ociCredentials.fingerprint",
        ARC,
        "12:34:56:78:9a:bc:de:f0:12:34:56:78:9a:bc:de:f0",
        "gpu-ci:arc.scaleSets[0].ociCredentials.fingerprint: not an API key fingerprint "
        "(aa:bb:...:ff) [given: [secret]]",
    ),
    Row(
        "gpu-ci:arc.scaleSets[0].ociCredentials.region",
        ARC,
        "us-ashburn-1",
        "gpu-ci:arc.scaleSets[0].ociCredentials.region: not an OCI region like us-ashburn-1 "
        "[given: [secret]]",
    ),
    # -- components/cluster/cluster_config.py: the nvkind cluster (gpu-ci:cluster)
    Row(
        "gpu-ci:cluster.name",
        CLUSTER,
        "gpu-ci",
        "gpu-ci:cluster.name: name 'gpu-ci\\n' is not a kind cluster name: use up to 49 of "
        "[a-z0-9.-], starting and ending alphanumeric (node names append -control-plane) "
        "[given: 'gpu-ci\\n']",
    ),
    Row(
        "gpu-ci:cluster.nodeImage",
        CLUSTER,
        "kindest/node:v1.35.0",
        # A rule across fields (image and kind release): named at gpu-ci:cluster.
        "gpu-ci:cluster: nodeImage 'kindest/node:v1.35.0\\n' is not "
        "kindest/node:vX.Y.Z[@sha256:<64 hex>]; use e.g. 'kindest/node:v1.35.0@sha256:"
        "452d707d4862f52530247495d180205e029056831160e22870e37e3f6c1ac31f' "
        '(kind v0.31.0\'s default) [given: {"name": "gpu-ci", "nodeImage": '
        '"kindest/n....example.org"]}]',
    ),
    Row(
        "gpu-ci:cluster.kindVersion",
        CLUSTER,
        "0.31.0",
        "gpu-ci:cluster: kindVersion '0.31.0\\n': no node images are recorded for this kind "
        "release (known: 0.29.0, 0.30.0, 0.31.0); add its release notes' 'Images pre-built for "
        'this release\' to KIND_RELEASES in components/cluster/node_images.py [given: {"name": '
        '"gpu-ci", "nodeImage": "kindest/n....example.org"]}]',
    ),
    Row(
        "gpu-ci:cluster.workerLabels",
        CLUSTER,
        {"gpu-ci.io/pool": "gpu"},
        "gpu-ci:cluster.workerLabels: workerLabels: 'gpu-ci.io/pool\\n' is not a Kubernetes "
        "label key ([prefix/]name, name up to 63 of [A-Za-z0-9._-] starting and ending "
        'alphanumeric, prefix a DNS subdomain) [given: {"gpu-ci.io/pool\\n": "gpu"}]',
        bad={"gpu-ci.io/pool\n": "gpu"},
        variant="key",
    ),
    Row(
        "gpu-ci:cluster.workerLabels",
        CLUSTER,
        {"gpu-ci.io/pool": "gpu"},
        "gpu-ci:cluster.workerLabels: workerLabels: gpu-ci.io/pool='gpu\\n' is not a label "
        "value (up to 63 of [A-Za-z0-9._-], starting and ending alphanumeric, or empty) [given: "
        '{"gpu-ci.io/pool": "gpu\\n"}]',
        bad={"gpu-ci.io/pool": "gpu\n"},
        variant="value",
    ),
    Row(
        "gpu-ci:cluster.certSANs[0]",
        CLUSTER,
        "gpu.example.org",
        "gpu-ci:cluster.certSANs: certSANs: 'gpu.example.org\\n' is neither an IP address nor a "
        'DNS name [given: ["gpu.example.org\\n"]]',
    ),
]

HEADER = "stack 'broken': invalid gpu-ci config (1 problem):\n  - "
FOOTER = (
    "\nNothing was created. Fix each key in Pulumi.broken.yaml (or with `pulumi config set "
    "--path`) and run again."
)
CONFIG_LAYER = (
    *sorted((REPO / "stacks" / "config").glob("*.py")),
    *sorted((REPO / "components" / "cluster").glob("*.py")),
    *sorted((REPO / "components" / "observability").glob("*.py")),
)
_PARTIAL_MATCH = re.compile(r"\.(match|search)\(")
_INDEX = re.compile(r"\[\d+\]")


def _refused(values: dict[str, Any]) -> tuple[str, list[Registration]]:
    """The message the program fails with for `values`, and what registered before."""
    registered: list[Registration] = []
    with pytest.raises((GpuCiError, pulumi.RunError)) as failure:
        run_program(
            main,
            project="gpu-ci",
            stack="broken",
            config=flat(values),
            secret_keys=secret_keys(values),
            registrations=registered,
        )
    return str(failure.value), registered


def _pattern_fields(model: type[BaseModel], path: str) -> list[str]:
    """The keys (`host.versions.kind.version`, lists as `[]`) with a pydantic `pattern=`."""
    found = []
    for name, field in model.model_fields.items():
        here = f"{path}.{name}" if path else name
        if any(getattr(meta, "pattern", None) for meta in field.metadata):
            found.append(here)
        found += _nested(field.annotation, here)
    return found


def _nested(annotation: Any, path: str) -> list[str]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _pattern_fields(annotation, path)
    inner = f"{path}[]" if get_origin(annotation) in (list, tuple) else path
    return [key for arg in get_args(annotation) for key in _nested(arg, inner)]


def test_the_table_has_a_row_per_key_and_unique_ids() -> None:
    assert len(ROWS) >= 75
    assert len({row.id for row in ROWS}) == len(ROWS)


def test_every_pydantic_pattern_of_the_config_has_a_row() -> None:
    """A new `Field(pattern=...)` anywhere under StackConfig needs its newline row here."""
    covered = {_INDEX.sub("[]", row.key.removeprefix("gpu-ci:")) for row in ROWS}
    missing = sorted(set(_pattern_fields(StackConfig, "")) - covered)
    assert missing == []


def test_no_partial_regex_match_is_left_in_the_config_layer() -> None:
    """`.match`/`.search` with a `$` anchor accept a trailing newline; use `.fullmatch`."""
    found = [
        f"{path.relative_to(REPO)}:{number}: {line.strip()}"
        for path in CONFIG_LAYER
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if _PARTIAL_MATCH.search(line) or "regex_engine" in line
    ]
    assert found == []


def test_pydantic_patterns_end_at_the_end_of_the_text() -> None:
    """The experiment behind keeping `Field(pattern="^...$")`: pydantic-core's default Rust
    engine has `$` match only at the very end (and has no `\\Z`); Python's `re`, which
    `regex_engine="python-re"` would switch to, lets a trailing newline through."""

    class Rust(BaseModel):
        value: str = Field(pattern=r"^[a-z]+$")

    class PythonRe(BaseModel):
        model_config = ConfigDict(regex_engine="python-re")
        value: str = Field(pattern=r"^[a-z]+$")

    assert Rust(value="abc").value == "abc"
    with pytest.raises(ValidationError, match="String should match pattern"):
        Rust(value="abc\n")
    assert PythonRe(value="abc\n").value == "abc\n"
    assert re.match(r"^[a-z]+$", "abc\n") and not re.fullmatch(r"^[a-z]+$", "abc\n")


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_the_valid_value_loads(row: Row) -> None:
    values = put(row.base, row.key, row.valid)
    load_config(raw_from_flat(flat(values), secret_keys(values)), "valid")


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_a_trailing_newline_is_refused_at_its_key_before_anything_registers(row: Row) -> None:
    message, registered = _refused(put(row.base, row.key, row.newline))
    assert message.startswith(HEADER) and message.endswith(FOOTER), message
    problem = message.removeprefix(HEADER).removesuffix(FOOTER)
    if row.problem.endswith("..."):  # a long list of choices follows
        assert problem.startswith(row.problem.removesuffix("...")), problem
    else:
        assert problem == row.problem
    assert _INDEX.sub("", row.key).rsplit(".", 1)[-1] in problem  # the key is named

    assert registered == [], [r.urn for r in registered]


def test_a_block_scalar_in_a_stack_file_is_refused_by_the_offline_plan(tmp_path: Path) -> None:
    """YAML's `|` keeps the final newline: the way one reaches a config value unseen."""
    (tmp_path / "Pulumi.yaml").write_text((REPO / "Pulumi.yaml").read_text())
    (tmp_path / "Pulumi.broken.yaml").write_text(
        "config:\n"
        "  gpu-ci:capacity: none\n"
        "  gpu-ci:host:\n"
        "    target: ssh\n"
        "    user: ci\n"
        "    address: |\n"
        "      gpu1.example.org\n"
    )
    registered: list[Registration] = []
    with pytest.raises(pulumi.RunError) as failure:
        plan_run("broken", tmp_path, registrations=registered)
    assert str(failure.value) == (
        f"{HEADER}gpu-ci:host.address: 'gpu1.example.org\\n' is not a host name or IP "
        f"address [given: 'gpu1.example.org\\n']{FOOTER}"
    )
    assert registered == []
