"""VmCapacity: the `vm` capacity layer, GPU VMs on their own network.

Composes OciNetwork, OciPlacement and one OciGpuInstance per VM. Instances depend on the
whole network component, not only on the subnet id they read, so that SSH rules exist
before anything tries to reach a VM.
"""

from __future__ import annotations

import pulumi

from components.base import ComponentArgs, child
from components.oci.cloud_init import render_vm_user_data
from components.oci.gpu_instance import OciGpuInstance, OciGpuInstanceArgs
from components.oci.image import select_image
from components.oci.network import OciNetwork, OciNetworkArgs
from components.oci.network_config import NetworkConfig
from components.oci.placement import OciPlacement, OciPlacementArgs
from components.oci.vm_config import VmCapacityConfig

ROLE = "gpu-runner"


class VmCapacityArgs(ComponentArgs):
    project: str
    stack: str
    compartment_id: str
    tenancy_id: str | None
    vm: VmCapacityConfig
    network: NetworkConfig
    tags: dict[str, str]


class VmCapacity(pulumi.ComponentResource):
    """GPU VMs registered (by the host layer) as self-hosted runners."""

    instances: list[OciGpuInstance]
    network: OciNetwork

    def __init__(
        self, name: str, args: VmCapacityArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-ci:capacity:VmCapacity", name, None, opts)
        vm = args.vm
        self.network = OciNetwork(
            "network",
            OciNetworkArgs(
                compartment_id=args.compartment_id,
                config=args.network,
                freeform_tags={**args.tags, "gpu-ci-role": "network"},
            ),
            opts=child(self),
        )
        placement = OciPlacement(
            "placement",
            OciPlacementArgs(
                compartment_id=args.compartment_id,
                tenancy_id=args.tenancy_id,
                shape=vm.shape,
                candidates=list(vm.availabilityDomains),
            ),
            opts=child(self),
        )
        image_id = select_image(
            vm.image, compartment_id=args.compartment_id, shape=vm.shape, parent=self
        )
        self.instances = [
            OciGpuInstance(
                f"gpu-vm-{index}",
                OciGpuInstanceArgs(
                    compartment_id=args.compartment_id,
                    availability_domain=placement.availability_domain,
                    subnet_id=self.network.subnet_id,
                    nsg_id=self.network.nsg_id,
                    image_id=image_id,
                    image_pinned=vm.image.id is not None,
                    shape=vm.shape,
                    boot_volume_size_gbs=vm.bootVolumeSizeGbs,
                    assign_public_ip=vm.assignPublicIp,
                    ssh_authorized_keys=list(vm.sshAuthorizedKeys),
                    user_data=render_vm_user_data(
                        project=args.project, stack=args.stack, role=ROLE, index=index
                    ),
                    display_name=f"{args.project}-{args.stack}-gpu-{index}",
                    freeform_tags={**args.tags, "gpu-ci-role": ROLE},
                    generation=vm.generation,
                ),
                opts=child(self, depends_on=[self.network, placement]),
            )
            for index in range(vm.count)
        ]
        self.register_outputs(
            {
                "instanceIds": [i.instance_id for i in self.instances],
                "publicIps": [i.public_ip for i in self.instances],
                "privateIps": [i.private_ip for i in self.instances],
            }
        )
