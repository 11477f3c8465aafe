"""Graph assembly of the `arc` capacity: ARC on a cluster, with GPU runner scale sets.

Order (each an explicit `depends_on`, so a destroy runs it backwards):
1. the network (gpu-ci:network), when OKE or VMs launched without a subnet of their own
   need it; the OKE cluster and its node pools in it, when `cluster.oke` is set;
2. the controller and its namespaces (after the CPU node pool);
3. per scale set, its secrets (after the controller), then its release (after its secrets
   and the node pool its pods run on: CPU for launchers, GPU for gpu-pod sets);
4. the failed-runner cleanup CronJob (after the controller).

Placement defaults: with OKE, the controller, listeners, launchers and the cleanup job go
to the CPU pool (its labels as node selector, tolerations for its taints) and gpu-pod sets
to the GPU pool; on other clusters nothing is selected, and gpu-pod sets tolerate the usual
`nvidia.com/gpu` taint. Explicit `nodeSelector`/`tolerations` in config win.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi

from components.arc.capacity_config import ArcConfig
from components.arc.cleanup import FailedRunnerCleanup, FailedRunnerCleanupArgs
from components.arc.controller import ArcController, ArcControllerArgs
from components.arc.kubeconfig_cluster import KubeconfigCluster, KubeconfigClusterArgs
from components.arc.oke import OkeCluster, OkeClusterArgs
from components.arc.oke_config import OkeConfig, OkePool
from components.arc.pod_config import Toleration
from components.arc.pod_spec import GPU, Placement, toleration_spec
from components.arc.scale_set import ArcRunnerScaleSet, ArcRunnerScaleSetArgs, LaunchNetwork
from components.arc.scale_set_config import GpuPodScaleSet
from components.oci.network import OciNetwork, OciNetworkArgs
from components.oci.shapes import GPU_SHAPES
from stacks.config.stack import ARC_CLUSTER_STACK
from stacks.config.views import ArcLayerConfig, OciTarget
from stacks.context import ClusterReferenceSource, StackContext, tags
from stacks.outputs import Export, arc_capacity_outputs

GPU_TOLERATION = {"key": GPU, "operator": "Exists", "effect": "NoSchedule"}


@dataclass(frozen=True)
class ArcCapacity:
    """The ARC layer, and the cluster it runs on for the layers deployed beside it."""

    exports: Export
    provider: pulumi.ProviderResource
    system: Placement
    """Where system pods go (the controller's placement: an OKE CPU pool)."""
    after: list[pulumi.Resource]
    """What pods on the cluster wait for: the OKE node pools."""
    system_after: list[pulumi.Resource]
    """What system pods wait for: the OKE CPU pool (not the GPU pool, short of A10s or not)."""
    facts: dict[str, str]
    """Recipe facts the config determines (an OKE cluster's version and GPU model)."""


def pool_placement(pool: OkePool) -> Placement:
    """Pods that run on `pool`: its labels as selector, a toleration per taint."""
    return Placement(
        node_selector=dict(pool.labels),
        tolerations=[toleration_spec(t.toleration()) for t in pool.taints],
    )


def _explicit(
    selector: dict[str, str] | None, tolerations: list[Toleration] | None, default: Placement
) -> Placement:
    return Placement(
        node_selector=dict(selector) if selector is not None else dict(default.node_selector),
        tolerations=(
            [toleration_spec(t) for t in tolerations]
            if tolerations is not None
            else [dict(t) for t in default.tolerations]
        ),
    )


def build_arc_capacity(
    layer: ArcLayerConfig, ctx: StackContext, references: ClusterReferenceSource
) -> ArcCapacity:
    arc = layer.arc
    network = oke = None
    cpu, gpu = Placement(), Placement(tolerations=[dict(GPU_TOLERATION)])
    cpu_after: list[pulumi.Resource] = []
    gpu_after: list[pulumi.Resource] = []
    if layer.oci is not None:  # OKE, or launched VMs without a subnet of their own
        network = OciNetwork(
            "network",
            OciNetworkArgs(
                compartment_id=layer.oci.compartment_id,
                config=layer.oci.network,
                freeform_tags={**tags(layer.oci, ctx), "gpu-ci-role": "network"},
            ),
        )
        if arc.cluster.oke is not None:  # in that network
            oke = _oke(ctx, layer.oci, arc.cluster.oke, network)
            cpu, cpu_after = pool_placement(arc.cluster.oke.cpuPool), [oke.cpu_pool]
            if arc.cluster.oke.gpuPool is not None and oke.gpu_pool is not None:
                gpu, gpu_after = pool_placement(arc.cluster.oke.gpuPool), [oke.gpu_pool]
    if oke is not None:
        provider = oke.provider
    elif arc.cluster.kubeconfig is not None:
        provider = KubeconfigCluster(
            "cluster", KubeconfigClusterArgs(kubeconfig=arc.cluster.kubeconfig)
        ).provider
    else:  # `clusterStack`, by validation: exactly one source
        provider = references.get(ARC_CLUSTER_STACK).provider  # the platform's, if one stack
    system = _explicit(arc.controller.nodeSelector, arc.controller.tolerations, cpu)

    controller = ArcController(
        "arc-controller",
        ArcControllerArgs(
            config=arc.controller.model_copy(update={"metrics": layer.metrics}),
            runners_namespace=arc.runnersNamespace,
            placement=system,
        ),
        pulumi.ResourceOptions(provider=provider, depends_on=cpu_after),
    )
    launch = (
        LaunchNetwork(subnet_id=network.subnet_id, nsg_id=network.nsg_id)
        if network is not None
        else None
    )
    for ss in arc.scaleSets:
        is_gpu = isinstance(ss, GpuPodScaleSet)
        ArcRunnerScaleSet(
            f"scale-set-{ss.name}",
            ArcRunnerScaleSetArgs(
                namespace=arc.runnersNamespace,
                scale_set=ss,
                chart_version=arc.controller.chartVersion,
                controller_service_account=controller.service_account,
                github_app=arc.githubApp,
                existing_secret=arc.existingSecret,
                placement=_explicit(ss.nodeSelector, ss.tolerations, gpu if is_gpu else cpu),
                listener=system,
                compartment_id=layer.compartment_id,
                network=launch,
                listener_metrics=layer.metrics,
            ),
            pulumi.ResourceOptions(
                provider=provider,
                depends_on=[controller, *(gpu_after if is_gpu else cpu_after)],
            ),
        )
    if arc.failedRunnerCleanup is not None:
        FailedRunnerCleanup(
            "failed-runner-cleanup",
            FailedRunnerCleanupArgs(
                namespace=arc.runnersNamespace,
                config=arc.failedRunnerCleanup,
                placement=system,
            ),
            pulumi.ResourceOptions(provider=provider, depends_on=[controller]),
        )
    return ArcCapacity(
        exports=_outputs(arc, controller, oke, network),
        provider=provider,
        system=system,
        after=[*cpu_after, *gpu_after],
        system_after=list(cpu_after),
        facts=_facts(arc),
    )


def _facts(arc: ArcConfig) -> dict[str, str]:
    oke = arc.cluster.oke
    if oke is None:
        return {}
    facts = {"K8s.server.version": oke.kubernetesVersion}
    shape = GPU_SHAPES.get(oke.gpuPool.shape) if oke.gpuPool is not None else None
    if shape is not None:
        facts["GPU.info.type"] = shape.gpuModel
    return facts


def _oke(ctx: StackContext, oci: OciTarget, oke: OkeConfig, network: OciNetwork) -> OkeCluster:
    return OkeCluster(
        "oke",
        OkeClusterArgs(
            compartment_id=oci.compartment_id,
            cluster_name=oke.name or f"{ctx.project}-{ctx.stack}",
            config=oke,
            vcn_id=network.vcn_id,
            subnet_id=network.subnet_id,
            network_nsg_id=network.nsg_id,
            freeform_tags={**tags(oci, ctx), "gpu-ci-role": "oke"},
        ),
        opts=pulumi.ResourceOptions(depends_on=[network]),
    )


def _outputs(
    arc: ArcConfig, controller: ArcController, oke: OkeCluster | None, network: OciNetwork | None
) -> Export:
    pools: dict[str, Any] = {}
    if oke is not None:
        pools["cpu"] = oke.cpu_pool.id
        if oke.gpu_pool is not None:
            pools["gpu"] = oke.gpu_pool.id
    return arc_capacity_outputs(
        static={
            "cluster": arc.cluster.source,
            "controller": {
                "namespace": arc.controller.namespace,
                "release": arc.controller.releaseName,
                "chartVersion": arc.controller.chartVersion,
                "serviceAccount": controller.service_account["name"],
            },
            "runnersNamespace": arc.runnersNamespace,
            "scaleSets": [
                {
                    "name": ss.name,
                    "kind": ss.kind,
                    "labels": [ss.name, *ss.labels],
                    "runnerGroup": ss.runnerGroup,
                    "githubConfigUrl": ss.githubConfigUrl,
                    "minRunners": ss.minRunners,
                    "maxRunners": ss.maxRunners,
                }
                for ss in arc.scaleSets
            ],
            "failedRunnerCleanup": (
                arc.failedRunnerCleanup.schedule if arc.failedRunnerCleanup is not None else None
            ),
        },
        cluster_id=oke.cluster.id if oke is not None else None,
        node_pool_ids=pools,
        subnet_id=network.subnet_id if network is not None else None,
        nsg_id=network.nsg_id if network is not None else None,
    )
