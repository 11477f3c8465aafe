"""Graph assembly of the VM capacity layer: the network and the GPU instances on OCI."""

from __future__ import annotations

from components.oci.vm_capacity import VmCapacity, VmCapacityArgs
from components.oci.vm_config import VmCapacityConfig
from stacks.config.views import VmLayerConfig
from stacks.context import StackContext, tags
from stacks.outputs import Export, vm_capacity_outputs


def build_vm_capacity(layer: VmLayerConfig, ctx: StackContext) -> VmCapacity:
    return VmCapacity(
        "capacity",
        VmCapacityArgs(
            project=ctx.project,
            stack=ctx.stack,
            compartment_id=layer.oci.compartment_id,
            tenancy_id=layer.tenancy_id,
            vm=layer.vm,
            network=layer.oci.network,
            tags=tags(layer.oci, ctx),
        ),
    )


def vm_capacity_exports(vm: VmCapacityConfig, capacity: VmCapacity) -> Export:
    return vm_capacity_outputs(
        shape=vm.shape,
        instance_ids=[i.instance_id for i in capacity.instances],
        public_ips=[i.public_ip for i in capacity.instances],
        private_ips=[i.private_ip for i in capacity.instances],
        subnet_id=capacity.network.subnet_id,
        nsg_id=capacity.network.nsg_id,
    )
