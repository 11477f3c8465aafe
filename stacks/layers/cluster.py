"""Graph assembly of the cluster layer: an nvkind cluster on the stack's one host.

The cluster waits for the host's last bootstrap step (tools and the GPU check). Exports:
`cluster` (the typed contract another stack reads) and `kubeconfig` (a secret, apart,
so that the contract stays readable by consumers that only need facts).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi

from components.cluster.nvkind import NvkindCluster, NvkindClusterArgs, cluster_params
from components.cluster.ready import ClusterReady, ClusterReadyArgs
from components.host.chain import PlannedStep
from components.host.params.cluster import (
    ClusterKubeconfigParams,
    ClusterReadyParams,
    NvkindClusterDeleteParams,
    NvkindClusterParams,
)
from components.host.params.step import Step
from components.host.render import render_script
from components.platform.checks.gpu_count import GpuExpectation
from stacks.config.param_keys import CLUSTER_KEYS
from stacks.config.param_problems import ParamCheck
from stacks.config.views import ClusterLayerConfig
from stacks.facts import stack_facts
from stacks.layers.host import Machine, host_gpus
from stacks.outputs import ClusterOutputs


def cluster_tool_pins(steps: list[PlannedStep]) -> dict[str, str]:
    """The versions of the tools that make the cluster (kind, nvkind), from the host's
    tools step: bumping either replaces the cluster on purpose."""
    tools = next((s for s in steps if s.name == str(Step.TOOLS)), None)
    versions = tools.versions if tools is not None else {}
    return {k: versions[k] for k in ("kind", "nvkind") if k in versions}


@dataclass(frozen=True)
class PreparedCluster:
    """The cluster's host-step parameters, built and rendered before anything registers."""

    config: ClusterLayerConfig
    params: NvkindClusterParams


def _cluster_steps(layer: ClusterLayerConfig, gpu_count: int | None) -> PreparedCluster:
    """What NvkindCluster registers with: the create, kubeconfig, ready and delete steps."""
    params = cluster_params(layer.spec, gpu_count)  # the kind config: GPU layout, mounts
    render_script(Step.NVKIND_CLUSTER, params)
    render_script(Step.NVKIND_CLUSTER_DELETE, NvkindClusterDeleteParams.for_cluster(params))
    render_script(Step.CLUSTER_KUBECONFIG, ClusterKubeconfigParams.for_cluster(params))
    ready = ClusterReadyParams.for_cluster(params, expected_gpus=layer.expected_gpus or 1)
    render_script(Step.CLUSTER_READY, ready)
    return PreparedCluster(layer, params)


def prepare_cluster(layer: ClusterLayerConfig, check: ParamCheck) -> PreparedCluster | None:
    """The cluster's steps for its host's GPUs; None (problems in `check`) if a parameter
    model refuses what the config gives."""
    return check.build(CLUSTER_KEYS, _cluster_steps, layer, host_gpus(layer.hosts))


@dataclass(frozen=True)
class ClusterLayer:
    cluster: NvkindCluster
    contract: ClusterOutputs
    exports: dict[str, Any]
    expected_gpus: int | None = None
    """The physical GPUs the cluster must advertise (`ClusterLayerConfig.expected_gpus`)."""
    gpu_checks: GpuExpectation | None = None
    """What the platform's GPU checks verify, when `expectGpus` asks for them."""

    def await_ready(self, after: list[pulumi.Resource]) -> ClusterReady:
        """The wait for Ready nodes and allocatable GPUs, after what installs the device
        plugin (`after`): the platform layer calls it once its releases exist."""
        return ClusterReady(
            self.cluster.pulumi_resource_name,
            ClusterReadyArgs(cluster=self.cluster, expected_gpus=self.expected_gpus),
            pulumi.ResourceOptions(depends_on=after),
        )


def build_cluster_layer(prepared: PreparedCluster, machine: Machine) -> ClusterLayer:
    spec = prepared.config.spec
    cluster = NvkindCluster(
        "cluster",
        NvkindClusterArgs(
            spec=spec,
            params=prepared.params,
            gpu_count=machine.gpu_count,
            connection=machine.args.connection,
            api_address=machine.api_address,
            identity=machine.args.identity,
            after_digest=machine.args.steps[-1].digest,
            tool_pins=cluster_tool_pins(machine.args.steps),
        ),
        pulumi.ResourceOptions(depends_on=[machine.host.last]),
    )
    contract = ClusterOutputs(
        name=spec.name,
        nodeImage=spec.node_image,
        kubernetesVersion=spec.kubernetes_version,
        gpuCount=machine.gpu_count,
        apiServerPort=spec.apiServerPort,
        facts=stack_facts(prepared.config),
    )
    return ClusterLayer(
        cluster,
        contract,
        {"cluster": contract.model_dump(), "kubeconfig": cluster.kubeconfig},
        prepared.config.expected_gpus,
        prepared.config.gpu_checks,
    )
