"""OciGpuInstance: one GPU VM, with its user data, tags and network attachment."""

from __future__ import annotations

import pulumi
import pulumi_oci as oci

from components.base import ComponentArgs, PulumiInput, child
from components.cloud_init import encode_user_data


class OciGpuInstanceArgs(ComponentArgs):
    compartment_id: str
    availability_domain: PulumiInput
    subnet_id: PulumiInput
    nsg_id: PulumiInput
    image_id: PulumiInput
    image_pinned: bool
    shape: str
    boot_volume_size_gbs: int
    assign_public_ip: bool
    ssh_authorized_keys: list[str]
    user_data: str
    display_name: str
    freeform_tags: dict[str, str]


class OciGpuInstance(pulumi.ComponentResource):
    """A GPU VM. Its boot volume is deleted with it, so destroy leaves nothing behind.

    When the image comes from a filter (newest Ubuntu for the shape), a newer image
    release must not replace a running runner on the next `pulumi up`, so the image is
    read once at creation (`ignore_changes` on the source); `pulumi up --replace` moves a
    VM to the newest image deliberately.
    """

    instance_id: pulumi.Output[str]
    public_ip: pulumi.Output[str]
    private_ip: pulumi.Output[str]

    def __init__(
        self, name: str, args: OciGpuInstanceArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-ci:capacity:OciGpuInstance", name, None, opts)
        metadata = {"user_data": encode_user_data(args.user_data)}
        if args.ssh_authorized_keys:
            metadata["ssh_authorized_keys"] = "\n".join(args.ssh_authorized_keys)
        instance = oci.core.Instance(
            name,
            compartment_id=args.compartment_id,
            availability_domain=args.availability_domain,
            shape=args.shape,
            display_name=args.display_name,
            freeform_tags=args.freeform_tags,
            create_vnic_details=oci.core.InstanceCreateVnicDetailsArgs(
                subnet_id=args.subnet_id,
                nsg_ids=[args.nsg_id],
                assign_public_ip="true" if args.assign_public_ip else "false",
                display_name=f"{args.display_name}-vnic",
                freeform_tags=args.freeform_tags,
            ),
            source_details=oci.core.InstanceSourceDetailsArgs(
                source_type="image",
                source_id=args.image_id,
                boot_volume_size_in_gbs=str(args.boot_volume_size_gbs),
            ),
            metadata=metadata,
            preserve_boot_volume=False,
            opts=child(
                self,
                ignore_changes=[] if args.image_pinned else ["sourceDetails.sourceId"],
                custom_timeouts=pulumi.CustomTimeouts(create="30m", delete="30m"),
            ),
        )
        self.instance_id = instance.id
        self.public_ip = instance.public_ip
        self.private_ip = instance.private_ip
        self.register_outputs(
            {
                "instanceId": instance.id,
                "publicIp": instance.public_ip,
                "privateIp": instance.private_ip,
            }
        )
