"""Deterministic stand-ins for what only a cloud account could answer.

The offline plan needs answers to invokes (which images exist, which availability domains a
region has) and ids for new resources. Each answer is derived from its arguments alone, so
the same config always plans to the same bytes. An invoke without a fake here fails loudly:
a silently empty answer would plan something that `pulumi up` would not create. A
StackReference reads the exports of a stack planned first (`StackExports`, made by
`stacks.offline.references`).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from core.errors import GpuCiError

_OCID_KIND = {
    "oci:Core/vcn:Vcn": "vcn",
    "oci:Core/subnet:Subnet": "subnet",
    "oci:Core/instance:Instance": "instance",
    "oci:Core/internetGateway:InternetGateway": "internetgateway",
    "oci:Core/routeTable:RouteTable": "routetable",
    "oci:Core/securityList:SecurityList": "securitylist",
    "oci:Core/networkSecurityGroup:NetworkSecurityGroup": "networksecuritygroup",
    "oci:Core/computeCapacityReport:ComputeCapacityReport": "computecapacityreport",
    "oci:ContainerEngine/cluster:Cluster": "cluster",
    "oci:ContainerEngine/nodePool:NodePool": "nodepool",
}


# Input properties whose output value the provider completes at create time: a preview
# cannot know them, so they must read as unknown rather than as the bare input.
_FILLED_AT_CREATE: dict[str, tuple[str, ...]] = {
    "oci:Core/computeCapacityReport:ComputeCapacityReport": ("shapeAvailabilities",),
}

INSTANCE = "oci:Core/instance:Instance"


def vm_addresses(name: str) -> dict[str, str]:
    """A VM's addresses as the offline plan stands in for them: TEST-NET-3 (never routable),
    derived from the resource's name, so the same VM has the same address in every plan
    and in a renamed stack.

    The plan knows them even in a preview, as `pulumi preview` of a deployed stack knows a
    running VM's address from its state: the SSH connection of every host step is built
    from it, and with it unknown the whole (secret) connection would be unknown, so a
    rotated `host.privateKey`, user or port could not show in a diff. A VM that is created
    or replaced makes them unknown again: the diff reads every input built from it as
    unknown (`stacks.offline.lifecycle.fate`)."""
    n = int(_digest(INSTANCE, name)[:4], 16)
    return {"publicIp": f"203.0.113.{n % 250 + 1}", "privateIp": f"10.0.1.{n % 250 + 2}"}


STACK_REFERENCE = "pulumi:pulumi:StackReference"
OKE_VERSIONS = ("1.32.1", "1.33.1", "1.34.1")
"""Kubernetes versions the fake OKE offers node images for."""


@dataclass(frozen=True)
class StackExports:
    """What a StackReference reads: outputs (unknowns as the engine's unknown marker) and
    the names of those that hold secrets."""

    outputs: dict[str, Any]
    secret_names: frozenset[str] = field(default_factory=frozenset)


FAKE_KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- name: offline
  cluster: {server: "https://203.0.113.10:6443", certificate-authority-data: T0ZGTElORQ==}
users:
- name: offline
  user: {token: offline-plan-fake-admin-token}
contexts:
- name: offline
  context: {cluster: offline, user: offline}
current-context: offline
"""
"""What an applied nvkind-cluster or cluster-kubeconfig step returns in tests (never a
real credential)."""

_COMMANDS = ("command:remote:Command", "command:local:Command")
RANDOM_PASSWORD = "random:index/randomPassword:RandomPassword"
FAKE_PASSWORD = "offline-plan-fake-password"
"""What an applied RandomPassword returns in tests (pulumi-random marks `result` secret)."""
_STEP_NAME = re.compile(r"^readonly GPU_CI_STEP='?([a-z0-9-]+)'?$", re.MULTILINE)


def _command_result(inputs: dict[str, Any]) -> str:
    """A host step's result line: the step named in its script, reporting a change."""
    script = str(inputs.get("stdin") or inputs.get("create") or "")
    match = _STEP_NAME.search(script)
    step = match.group(1) if match else "reboot-wait"
    result: dict[str, Any] = {"step": step, "changed": True}
    if step in ("nvkind-cluster", "cluster-kubeconfig"):  # results carrying the kubeconfig
        result["kubeconfig"] = base64.b64encode(FAKE_KUBECONFIG.encode()).decode()
    return json.dumps(result) + "\n"


def _digest(*parts: Any) -> str:
    text = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


class FakeCloud:
    """Invoke answers, resource ids and computed outputs for the offline plan."""

    def __init__(
        self,
        config: Mapping[str, str],
        stacks: Mapping[str, StackExports] | None = None,
    ) -> None:
        self.region = str(config.get("oci:region") or "us-ashburn-1")
        self.stacks = dict(stacks or {})
        self._invokes: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "oci:Identity/getAvailabilityDomains:getAvailabilityDomains": self._ads,
            "oci:Core/getImages:getImages": self._images,
            "oci:Core/getSubnet:getSubnet": self._subnet,
            "oci:ContainerEngine/getNodePoolOption:getNodePoolOption": self._node_pool_option,
            "oci:ContainerEngine/getClusterKubeConfig:getClusterKubeConfig": self._kubeconfig,
        }

    # -- invokes -------------------------------------------------------------------------
    def invoke(self, token: str, args: dict[str, Any]) -> dict[str, Any]:
        handler = self._invokes.get(token)
        if handler is None:
            raise NotImplementedError(
                f"the offline plan has no fake answer for invoke {token}; add one to "
                "stacks/offline/engine/fakes.py"
            )
        return handler(args)

    def ad_names(self) -> list[str]:
        key = self.region.split("-")[1].upper() if "-" in self.region else self.region.upper()
        return [f"Fake:{key}-AD-{i}" for i in (1, 2, 3)]

    def _ads(self, args: dict[str, Any]) -> dict[str, Any]:
        return {
            "compartmentId": args.get("compartmentId"),
            "availabilityDomains": [
                {"name": name, "id": f"ocid1.availabilitydomain.oc1..{_digest(name)}"}
                for name in self.ad_names()
            ],
        }

    def _images(self, args: dict[str, Any]) -> dict[str, Any]:
        os_name = args.get("operatingSystem", "")
        version = args.get("operatingSystemVersion", "")
        image_id = f"ocid1.image.oc1.{self.region}.{_digest('image', args)}"
        return {
            "compartmentId": args.get("compartmentId"),
            "images": [
                {
                    "id": image_id,
                    "displayName": f"{os_name}-{version}-{args.get('shape', '')}-offline-plan",
                    "operatingSystem": os_name,
                    "operatingSystemVersion": version,
                    "timeCreated": "2026-01-01T00:00:00Z",
                }
            ],
        }

    def _subnet(self, args: dict[str, Any]) -> dict[str, Any]:
        subnet_id = args.get("subnetId", "")
        return {
            "id": subnet_id,
            "subnetId": subnet_id,
            "vcnId": f"ocid1.vcn.oc1.{self.region}.{_digest('vcn-of', subnet_id)}",
            "cidrBlock": "10.0.1.0/24",
        }

    def _node_pool_option(self, args: dict[str, Any]) -> dict[str, Any]:
        """OKE node images: for each offered Kubernetes version, an Oracle Linux image, a
        GPU one and an aarch64 one, in two releases (the newer one must be picked)."""
        sources = []
        for version in OKE_VERSIONS:
            for date, build in (("2026.05.14", 0), ("2026.07.30", 1)):
                for flavour in ("", "Gpu-", "aarch64-"):
                    name = f"Oracle-Linux-8.10-{flavour}{date}-{build}-OKE-{version}-812"
                    sources.append(
                        {
                            "sourceType": "IMAGE",
                            "sourceName": name,
                            "imageId": f"ocid1.image.oc1.{self.region}.{_digest('oke', name)}",
                        }
                    )
        return {
            "id": args.get("nodePoolOptionId", "all"),
            "nodePoolOptionId": args.get("nodePoolOptionId", "all"),
            "kubernetesVersions": [f"v{v}" for v in OKE_VERSIONS],
            "sources": sources,
        }

    def _kubeconfig(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"clusterId": args.get("clusterId"), "content": FAKE_KUBECONFIG}

    # -- resources -----------------------------------------------------------------------
    def resource_id(self, type_: str, digest: str) -> str:
        kind = _OCID_KIND.get(type_)
        return f"ocid1.{kind}.oc1.{self.region}.{digest}" if kind else f"{digest}"

    def stack_reference(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """The state of a StackReference: the referenced stack's planned exports."""
        name = str(inputs.get("name"))
        if name not in self.stacks:
            known = ", ".join(sorted(self.stacks)) or "none"
            raise GpuCiError(
                f"the offline plan cannot read stack reference {name!r}: it plans only stacks "
                f"of this project that it planned first (planned: {known})"
            )
        exports = self.stacks[name]
        return {
            "name": name,
            "outputs": exports.outputs,
            "secretOutputNames": sorted(exports.secret_names),
        }

    def planned(self, type_: str, name: str, inputs: dict[str, Any]) -> dict[str, Any]:
        """Outputs as a preview knows them: inputs, less those the provider fills in, and
        a VM's addresses (`vm_addresses`)."""
        if type_ == STACK_REFERENCE:
            return self.stack_reference(inputs)
        unknown = _FILLED_AT_CREATE.get(type_, ())
        planned = {k: v for k, v in inputs.items() if k not in unknown}
        if type_ == INSTANCE:
            planned.update(vm_addresses(name))
        return planned

    def computed(self, type_: str, name: str, inputs: dict[str, Any]) -> dict[str, Any]:
        """Outputs a provider would compute at create time (used when preview=False)."""
        if type_ == STACK_REFERENCE:
            return self.stack_reference(inputs)
        state = dict(inputs)
        if type_ == INSTANCE:
            state.update(vm_addresses(name))
        if type_ in _COMMANDS:
            state["stdout"] = _command_result(inputs)
            state["stderr"] = ""
        if type_ == RANDOM_PASSWORD:  # the provider's secret result: never a real password
            state["result"] = FAKE_PASSWORD
        if type_ == "oci:Core/computeCapacityReport:ComputeCapacityReport":
            state["shapeAvailabilities"] = [
                {**s, "availabilityStatus": "AVAILABLE"}
                for s in inputs.get("shapeAvailabilities", [])
            ]
        return state
