"""Typed stack outputs: what a stack exports, one object per layer.

Other stacks read these through StackReferences, so each object carries a contract
version that changes whenever a field changes meaning.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pulumi
from pydantic import BaseModel, ConfigDict, Field

from stacks.config.usage import Usage

Export = pulumi.Output[dict[str, Any]]
"""A layer's export: its contract model's dict, validated once every Output resolves."""


class VmCapacityOutputs(BaseModel):
    """Export `capacity` of a stack whose gpu-ci:capacity is `vm`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    contractVersion: Literal[1] = 1
    kind: Literal["vm"] = "vm"
    shape: str
    instanceIds: list[str]
    publicIps: list[str | None]
    privateIps: list[str]
    subnetId: str
    nsgId: str


def _typed(model: type[BaseModel], static: dict[str, Any], dynamic: dict[str, Any]) -> Export:
    """An Output of the model's dict once all dynamic fields resolve (validated then)."""
    keys = list(dynamic)

    def build(values: list[Any]) -> dict[str, Any]:
        return model.model_validate({**static, **dict(zip(keys, values, strict=True))}).model_dump()

    return pulumi.Output.all(*dynamic.values()).apply(build)


def vm_capacity_outputs(
    *,
    shape: str,
    instance_ids: list[Any],
    public_ips: list[Any],
    private_ips: list[Any],
    subnet_id: Any,
    nsg_id: Any,
) -> Export:
    return _typed(
        VmCapacityOutputs,
        {"shape": shape},
        {
            "instanceIds": pulumi.Output.all(*instance_ids),
            "publicIps": pulumi.Output.all(*public_ips),
            "privateIps": pulumi.Output.all(*private_ips),
            "subnetId": subnet_id,
            "nsgId": nsg_id,
        },
    )


class GpuRecord(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    index: int
    name: str
    uuid: str


class HostRecord(BaseModel):
    """One bootstrapped machine, as its verify step saw it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    driverVersion: str | None
    gpus: list[GpuRecord]


class RunnerRecord(BaseModel):
    """One self-hosted runner service (ephemeral ones add a suffix per job)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    labels: list[str]


class HostOutputs(BaseModel):
    """Export `host`: where the bootstrap ran and what it installed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    contractVersion: Literal[1] = 1
    target: Literal["oci-vm", "ssh", "local"]
    cdi: bool
    versions: dict[str, str]
    hosts: list[HostRecord]
    runners: list[RunnerRecord]


def _host_record(name: str) -> Any:
    """What verify reported for the host `name`, as a HostRecord's fields."""

    def record(found: list[Any]) -> dict[str, Any]:
        return {"name": name, "driverVersion": found[0], "gpus": found[1]}

    return record


def host_outputs(*, host: Any, hosts: list[Any], runners: list[Any]) -> Export:
    """`host` is the validated HostConfig; `hosts` the GpuHost components."""
    versions = host.versions
    return _typed(
        HostOutputs,
        {
            "target": host.target,
            "cdi": host.cdi,
            "runners": [{"name": r.runner_name, "labels": r.labels} for r in runners],
            "versions": {
                "driverBranch": versions.driverBranch,
                "toolkit": versions.toolkit,
                "nvkind": versions.nvkind.commit,
            },
        },
        {
            "hosts": pulumi.Output.all(
                *[
                    pulumi.Output.all(h.driver_version, h.gpus).apply(_host_record(h.host_name))
                    for h in hosts
                ]
            ),
        },
    )


class ClusterOutputs(BaseModel):
    """Export `cluster`: the nvkind cluster a platform stack deploys onto.

    Its kubeconfig is the separate secret export `kubeconfig`; `facts` are what the cluster's
    stack knows about its target (AICR fact names), for the platform's constraint checks.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    contractVersion: Literal[1] = 1
    kind: Literal["nvkind"] = "nvkind"
    name: str
    nodeImage: str
    kubernetesVersion: str
    gpuCount: int | None
    apiServerPort: int
    facts: dict[str, str]


class PlatformOutputs(BaseModel):
    """Export `platform`: the recipe deployed and how its releases and checks went."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    contractVersion: Literal[1] = 1
    criteria: dict[str, Any]
    appliedOverlays: list[str]
    deploymentOrder: list[str]
    releases: dict[str, dict[str, Any]]
    checks: dict[str, dict[str, Any]]
    constraints: dict[str, list[str]]


class ArcScaleSetRecord(BaseModel):
    """One runner scale set of the `arc` capacity: what jobs target and how it scales."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    kind: Literal["vm-launcher", "gpu-pod"]
    labels: list[str]
    runnerGroup: str
    githubConfigUrl: str
    minRunners: int
    maxRunners: int


class ArcCapacityOutputs(BaseModel):
    """Export `capacity` of a stack whose gpu-ci:capacity is `arc`.

    `cluster` says where ARC runs (an existing cluster's kubeconfig, another stack, or an
    OKE cluster of this stack, whose ids are given); `launchSubnetId`/`launchNsgId` are this
    stack's network when vm-launcher VMs or the OKE cluster use it.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    contractVersion: Literal[1] = 1
    kind: Literal["arc"] = "arc"
    cluster: Literal["kubeconfig", "clusterStack", "oke"]
    clusterId: str | None
    nodePoolIds: dict[str, str]
    controller: dict[str, str]
    runnersNamespace: str
    scaleSets: list[ArcScaleSetRecord]
    failedRunnerCleanup: str | None
    launchSubnetId: str | None
    launchNsgId: str | None


CapacityOutputs = Annotated[VmCapacityOutputs | ArcCapacityOutputs, Field(discriminator="kind")]
"""Export `capacity`, whichever gpu-ci:capacity made it: `kind` says which member it is."""


def arc_capacity_outputs(
    *,
    static: dict[str, Any],
    cluster_id: Any,
    node_pool_ids: dict[str, Any],
    subnet_id: Any,
    nsg_id: Any,
) -> Export:
    """`static`: the fields known from config (cluster, controller, scale sets, ...)."""
    names = list(node_pool_ids)
    return _typed(
        ArcCapacityOutputs,
        static,
        {
            "clusterId": cluster_id,
            "nodePoolIds": pulumi.Output.all(*node_pool_ids.values()).apply(
                lambda ids: dict(zip(names, ids, strict=True))
            ),
            "launchSubnetId": subnet_id,
            "launchNsgId": nsg_id,
        },
    )


class CapacityCost(BaseModel):
    """Estimated monthly compute cost of one capacity choice, and the alternative."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    contractVersion: Literal[1] = 1
    currency: Literal["USD"] = "USD"
    shape: str
    gpus: int
    vms: int
    alwaysOnMonthly: float
    scaleToZeroMonthly: float
    breakEvenJobsPerDay: float
    usage: Usage
    priceSource: str

    def line(self, chosen: Literal["vm", "arc"]) -> str:
        """One line for the plan: the chosen capacity first, then the other."""
        on = f"${self.alwaysOnMonthly:,.0f}/month for {self.vms} x {self.shape} always on"
        zero = (
            f"${self.scaleToZeroMonthly:,.0f}/month scale-to-zero at "
            f"{self.usage.jobsPerDay:g} jobs/day x {self.usage.minutesPerJob:g} min"
        )
        first, second = (on, zero) if chosen == "vm" else (zero, on)
        return (
            f"estimated compute: {first} (vs {second}; break-even "
            f"{self.breakEvenJobsPerDay:.1f} jobs/day)"
        )


class CostOutputs(BaseModel):
    """Export `cost`: the estimate for each priced piece of GPU capacity, as plan lines."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    contractVersion: Literal[1] = 1
    estimates: list[CapacityCost]
    lines: list[str]


class ObservabilityOutputs(BaseModel):
    """Export `observability`: where the GPU CI metrics and dashboards are, and how to open
    them and read the cost model's usage from them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    contractVersion: Literal[1] = 1
    namespace: str
    prometheus: Literal["deployed", "recipe", "existing"]
    """Who runs Prometheus: this stack's kube-prometheus-stack, the recipe's, or the cluster's."""
    grafanaService: str | None
    prometheusService: str | None
    portForward: list[str]
    """The `kubectl port-forward` commands that open Grafana and Prometheus locally."""
    dashboards: list[str]
    monitors: list[str]
    usageQueries: dict[str, str]
    """`gpu-ci:usage` key -> the PromQL that measures it (the cost model's inputs)."""
