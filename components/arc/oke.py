"""OkeCluster: an enhanced OKE cluster with a CPU node pool and an optional A10 node pool.

- Network: the VCN and subnet of `OciNetwork` (gpu-ci:network); the API endpoint, the nodes
  and service load balancers share the subnet. An NSG of the cluster's own admits all
  traffic among its members (endpoint and nodes) and lets nodes dial out; the endpoint also
  carries the network's NSG, which opens the API port to gpu-ci:network.apiSourceCidrs.
- Pods: flannel overlay (no pod subnet to size).
- Node images: the newest OKE image for the Kubernetes version (a GPU image for the GPU
  pool: OKE's GPU images ship the NVIDIA driver, so the recipe engine's `oke-a10` overlay
  runs the GPU operator without its driver), unless the pool pins `imageId`.
- Taints: OKE node pools have no taint field; each tainted pool's nodes run OKE's init
  script with `--register-with-taints` from cloud-init (OKE's documented way).
- Kubeconfig: `getClusterKubeConfig`, kept a secret; it authenticates with
  `oci ce cluster generate-token`, so the deployer needs the OCI CLI.
"""

from __future__ import annotations

import base64
import re
import shlex
from collections.abc import Sequence
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pulumi_oci as oci

from components.arc.oke_config import OkeConfig, OkePool
from components.base import ComponentArgs, InputError, PulumiInput, child

ENHANCED = "ENHANCED_CLUSTER"


_INERT = re.compile(r"[A-Za-z0-9_@%+=:,./-]+")
"""Characters that mean nothing to bash, inside double quotes or out."""


def shell_word(arg: str) -> str:
    """`arg` as one bash word that bash never expands: in double quotes when it holds only
    inert characters (as every valid taint does, so the bytes nodes boot with stay the
    same), otherwise single-quoted by shlex. The config validates taints; this keeps any
    value that got past it data, never code, in a script that runs as root."""
    return f'"{arg}"' if _INERT.fullmatch(arg) else shlex.quote(arg)


def taint_user_data(pool: OkePool) -> str | None:
    """cloud-init for a pool's nodes that registers them with the pool's taints."""
    if not pool.taints:
        return None
    taints = ",".join(f"{t.key}={t.value}:{t.effect}" for t in pool.taints)
    return (
        "#!/bin/bash\n"
        "set -euo pipefail\n"
        'curl --fail -H "Authorization: Bearer Oracle" -L0 '
        "http://169.254.169.254/opc/v2/instance/metadata/oke_init_script "
        "| base64 --decode >/var/run/oke-init.sh\n"
        "bash /var/run/oke-init.sh --kubelet-extra-args "
        f"{shell_word(f'--register-with-taints={taints}')}\n"
    )


def pick_node_image(sources: Sequence[Any], kubernetes_version: str, *, gpu: bool) -> str:
    """The newest x86 OKE node image for the version: a GPU image or a plain one."""
    version = kubernetes_version.removeprefix("v")
    found = []
    for source in sources:
        name = str(_get(source, "source_name") or "")
        if f"-OKE-{version}-" not in name or "aarch64" in name:
            continue
        if ("-Gpu-" in name) == gpu:
            found.append((name, str(_get(source, "image_id"))))
    if not found:
        kind = "GPU" if gpu else "CPU"
        raise InputError(
            f"gpu-ci:arc.cluster.oke: no {kind} node image for Kubernetes {kubernetes_version} "
            "in this region; pick a version OKE offers or set the pool's imageId"
        )
    return max(found, key=lambda item: _release_key(item[0]))[1]


def _release_key(name: str) -> tuple[str, int]:
    # "Oracle-Linux-8.10-Gpu-2026.07.30-0-OKE-1.33.1-812": date, then build number
    match = re.search(r"-(\d{4}\.\d{2}\.\d{2})-(\d+)-OKE-", name)
    return (match.group(1), int(match.group(2))) if match else ("", 0)


def _get(source: Any, key: str) -> Any:
    if isinstance(source, dict):
        camel = re.sub(r"_([a-z])", lambda m: m.group(1).upper(), key)
        return source.get(key, source.get(camel))
    return getattr(source, key, None)


class OkeClusterArgs(ComponentArgs):
    compartment_id: str
    cluster_name: str
    config: OkeConfig
    vcn_id: PulumiInput
    subnet_id: PulumiInput
    network_nsg_id: PulumiInput
    freeform_tags: dict[str, str]


class OkeCluster(pulumi.ComponentResource):
    cluster: oci.containerengine.Cluster
    cpu_pool: oci.containerengine.NodePool
    gpu_pool: oci.containerengine.NodePool | None
    kubeconfig: pulumi.Output[str]
    provider: k8s.Provider

    def __init__(
        self, name: str, args: OkeClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-ci:arc:OkeCluster", name, None, opts)
        cfg = args.config
        self._args = args
        common: dict[str, Any] = {
            "compartment_id": args.compartment_id,
            "freeform_tags": args.freeform_tags,
        }
        nsg = oci.core.NetworkSecurityGroup(
            f"{name}-nsg",
            vcn_id=args.vcn_id,
            display_name=f"{name}-nsg",
            **common,
            opts=child(self),
        )
        rules = [
            oci.core.NetworkSecurityGroupSecurityRule(
                f"{name}-nsg-members",
                network_security_group_id=nsg.id,
                direction="INGRESS",
                protocol="all",
                source=nsg.id,
                source_type="NETWORK_SECURITY_GROUP",
                description="all traffic among the cluster's endpoint and nodes",
                opts=child(self),
            ),
            oci.core.NetworkSecurityGroupSecurityRule(
                f"{name}-nsg-egress",
                network_security_group_id=nsg.id,
                direction="EGRESS",
                protocol="all",
                destination="0.0.0.0/0",
                destination_type="CIDR_BLOCK",
                description="nodes pull images and reach GitHub and OCI",
                opts=child(self),
            ),
        ]
        self.cluster = oci.containerengine.Cluster(
            name,
            name=args.cluster_name,
            type=ENHANCED,
            kubernetes_version=cfg.kubernetesVersion,
            vcn_id=args.vcn_id,
            endpoint_config=oci.containerengine.ClusterEndpointConfigArgs(
                subnet_id=args.subnet_id,
                is_public_ip_enabled=cfg.publicEndpoint,
                nsg_ids=[args.network_nsg_id, nsg.id],
            ),
            cluster_pod_network_options=[
                oci.containerengine.ClusterClusterPodNetworkOptionArgs(cni_type="FLANNEL_OVERLAY")
            ],
            options=oci.containerengine.ClusterOptionsArgs(
                service_lb_subnet_ids=[args.subnet_id],
                kubernetes_network_config=oci.containerengine.ClusterOptionsKubernetesNetworkConfigArgs(
                    pods_cidr=cfg.podsCidr, services_cidr=cfg.servicesCidr
                ),
            ),
            **common,
            opts=child(self, depends_on=rules),
        )
        invoke = pulumi.InvokeOutputOptions(parent=self)
        self._ads = oci.identity.get_availability_domains_output(
            compartment_id=args.compartment_id, opts=invoke
        ).availability_domains.apply(lambda ads: [str(_get(ad, "name")) for ad in ads])
        self._sources = oci.containerengine.get_node_pool_option_output(
            node_pool_option_id="all", compartment_id=args.compartment_id, opts=invoke
        ).sources
        self.cpu_pool = self._pool(f"{name}-cpu", "cpu", cfg.cpuPool, nsg, gpu=False)
        self.gpu_pool = (
            self._pool(f"{name}-gpu", "gpu", cfg.gpuPool, nsg, gpu=True)
            if cfg.gpuPool is not None
            else None
        )
        content = oci.containerengine.get_cluster_kube_config_output(
            cluster_id=self.cluster.id, token_version="2.0.0", opts=invoke
        ).content
        self.kubeconfig = pulumi.Output.secret(content)
        self.provider = k8s.Provider(
            f"{name}-k8s",
            kubeconfig=self.kubeconfig,
            # No delete_unreachable: an unreachable OKE API is not a gone cluster; keep ARC state.
            opts=child(self, depends_on=[self.cluster]),
        )
        self.register_outputs(
            {
                "clusterId": self.cluster.id,
                "cpuPoolId": self.cpu_pool.id,
                "gpuPoolId": self.gpu_pool.id if self.gpu_pool is not None else None,
            }
        )

    def _pool(
        self,
        name: str,
        role: str,
        pool: OkePool,
        nsg: oci.core.NetworkSecurityGroup,
        *,
        gpu: bool,
    ) -> oci.containerengine.NodePool:
        args = self._args
        version = args.config.kubernetesVersion
        image_id: PulumiInput = pool.imageId or self._sources.apply(
            lambda sources: pick_node_image(sources or [], version, gpu=gpu)
        )
        candidates = list(pool.availabilityDomains)

        def ad_names(names: list[str]) -> list[str]:
            out = []
            for c in candidates:
                if isinstance(c, str):
                    out.append(c)
                elif c < len(names):
                    out.append(names[c])
                else:
                    raise InputError(
                        f"gpu-ci:arc.cluster.oke.{role}Pool.availabilityDomains: index {c} is "
                        f"out of range; this region has {len(names)}: {', '.join(names)}"
                    )
            return out

        ads = self._ads.apply(ad_names)
        placements = [
            oci.containerengine.NodePoolNodeConfigDetailsPlacementConfigArgs(
                availability_domain=ads[i], subnet_id=args.subnet_id
            )
            for i in range(len(candidates))
        ]
        shape_config = (
            oci.containerengine.NodePoolNodeShapeConfigArgs(
                ocpus=pool.ocpus, memory_in_gbs=pool.memoryGbs
            )
            if pool.ocpus is not None
            else None
        )
        user_data = taint_user_data(pool)
        tags = {**args.freeform_tags, "gpu-ci-role": f"oke-{role}"}
        return oci.containerengine.NodePool(
            name,
            cluster_id=self.cluster.id,
            compartment_id=args.compartment_id,
            name=f"{args.cluster_name}-{role}",
            kubernetes_version=version,
            node_shape=pool.shape,
            node_shape_config=shape_config,
            node_source_details=oci.containerengine.NodePoolNodeSourceDetailsArgs(
                source_type="IMAGE",
                image_id=image_id,
                boot_volume_size_in_gbs=str(pool.bootVolumeSizeGbs),
            ),
            node_config_details=oci.containerengine.NodePoolNodeConfigDetailsArgs(
                size=pool.size,
                placement_configs=placements,
                nsg_ids=[nsg.id],
                freeform_tags=tags,
            ),
            initial_node_labels=[
                oci.containerengine.NodePoolInitialNodeLabelArgs(key=k, value=v)
                for k, v in pool.labels.items()
            ],
            node_metadata=(
                {"user_data": base64.b64encode(user_data.encode()).decode()}
                if user_data is not None
                else None
            ),
            freeform_tags=tags,
            opts=child(self, depends_on=[self.cluster]),
        )
