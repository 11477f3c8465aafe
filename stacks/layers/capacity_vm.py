"""Graph assembly of the VM capacity layer: the network and the GPU instances on OCI."""

from __future__ import annotations

from components.oci.vm_capacity import VmCapacity, VmCapacityArgs
from stacks.config import StackConfig
from stacks.context import StackContext, tags
from stacks.outputs import Export, vm_capacity_outputs


def build_vm_capacity(cfg: StackConfig, ctx: StackContext) -> VmCapacity:
    assert cfg.vm is not None and cfg.compartmentId is not None  # guaranteed by validation
    return VmCapacity(
        "capacity",
        VmCapacityArgs(
            project=ctx.project,
            stack=ctx.stack,
            compartment_id=cfg.compartmentId,
            tenancy_id=cfg.tenancyId,
            vm=cfg.vm,
            network=cfg.network,
            tags=tags(cfg, ctx),
        ),
    )


def vm_capacity_exports(cfg: StackConfig, capacity: VmCapacity) -> Export:
    assert cfg.vm is not None
    return vm_capacity_outputs(
        shape=cfg.vm.shape,
        instance_ids=[i.instance_id for i in capacity.instances],
        public_ips=[i.public_ip for i in capacity.instances],
        private_ips=[i.private_ip for i in capacity.instances],
        subnet_id=capacity.network.subnet_id,
        nsg_id=capacity.network.nsg_id,
    )
