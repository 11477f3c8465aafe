"""Graph assembly of the cluster layer: an nvkind cluster on the stack's one host.

The cluster waits for the host's last bootstrap step (tools and the GPU check). Exports:
`cluster` (the typed contract another stack reads) and `kubeconfig` (a secret, apart,
so that the contract stays readable by consumers that only need facts).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from components.host.chain import PlannedStep
from components.host.params import Step
from components.nvkind_cluster import NvkindCluster, NvkindClusterArgs
from stacks.config import StackConfig
from stacks.facts import stack_facts
from stacks.host_layer import Machine
from stacks.outputs import ClusterOutputs


def cluster_tool_pins(steps: list[PlannedStep]) -> dict[str, str]:
    """The versions of the tools that make the cluster (kind, nvkind), from the host's
    tools step: bumping either replaces the cluster on purpose."""
    tools = next((s for s in steps if s.name == str(Step.TOOLS)), None)
    versions = tools.versions if tools is not None else {}
    return {k: versions[k] for k in ("kind", "nvkind") if k in versions}


@dataclass(frozen=True)
class ClusterLayer:
    cluster: NvkindCluster
    contract: ClusterOutputs
    exports: dict[str, Any]


def build_cluster_layer(cfg: StackConfig, machine: Machine) -> ClusterLayer:
    spec = cfg.cluster
    assert spec is not None
    cluster = NvkindCluster(
        "cluster",
        NvkindClusterArgs(
            spec=spec,
            gpu_count=machine.gpu_count,
            connection=machine.args.connection,
            api_address=machine.api_address,
            identity=machine.args.identity,
            after_digest=machine.args.steps[-1].digest,
            tool_pins=cluster_tool_pins(machine.args.steps),
            depends_on=[machine.host.last],
        ),
    )
    contract = ClusterOutputs(
        name=spec.name,
        nodeImage=spec.node_image,
        kubernetesVersion=spec.kubernetes_version,
        gpuCount=machine.gpu_count,
        apiServerPort=spec.apiServerPort,
        facts=stack_facts(cfg),
    )
    return ClusterLayer(
        cluster,
        contract,
        {"cluster": contract.model_dump(), "kubeconfig": cluster.kubeconfig},
    )
