"""OciGpuInstance: one GPU VM, with its user data, tags and network attachment."""

from __future__ import annotations

import pulumi
import pulumi_oci as oci

from components.base import ComponentArgs, PulumiInput, child
from components.names import generation_suffix
from components.oci.cloud_init import encode_user_data


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
    generation: int = 0


class OciGpuInstance(pulumi.ComponentResource):
    """A GPU VM. Its boot volume is deleted with it, so destroy leaves nothing behind.

    What OCI can only set by creating a new instance is read once, at creation, and
    then left as it is (`ignore_changes`), so that a routine change never replaces a
    running runner with its boot volume:
    - `metadata` (cloud-init user data and SSH keys: terraform-provider-oci forces a new
      instance when either changes). New VMs get the new values; on running ones the
      host layer's `authorized-keys` step keeps the SSH keys current.
    - `availabilityDomain`: the placement picks it when the VM is created; a changed
      fallback list or tenancy applies to VMs created later and moves no running VM.
    - the image, when it comes from a filter (newest Ubuntu for the shape): a newer image
      release must not replace a running runner.
    A replacement keeps them too: before it diffs, the engine sets every ignoreChanges
    path back to its old value, and the replacement is created from those inputs
    (pulumi/pulumi pkg/resource/deploy/step_generator.go `continueStepsFromImport`:
    `processIgnoreChanges(sg.deployment.Diag(), urn, inputs, old.Inputs, goal.IgnoreChanges)`),
    so `pulumi up --replace <urn>` boots the old image with the old user data. What takes
    them is a resource with no state: `vm.generation` above 0 names the instance
    `<name>-g<generation>`, a new URN without an alias, so the engine creates a new VM from
    the program's values and deletes the old one after (docs/day-2.md#replacing-on-purpose).

    A pinned image (`vm.image.id`) is the opposite case: a new pinned id is a request for
    that image, and it **replaces the instance** (`replace_on_changes`). terraform-provider-oci
    does not force a new instance for it (`source_details.source_id` is `Optional, Computed`,
    not `ForceNew`); its `updateOptionsViaWorkRequest` sends it in place:
    `if sourceDetails, ok := s.D.GetOkExists("source_details"); ok &&
    s.D.HasChange(fmt.Sprintf(sourceDetailsFieldKeyFormat, "source_id"))` ->
    `mapToUpdateInstanceSourceDetails` -> `oci_core.UpdateInstanceSourceViaImageDetails{}`
    in an `UpdateInstance` (internal/service/core/core_instance_resource.go). That swaps
    the boot volume under the same instance id: the driver, toolkit, runner and nvkind
    cluster are gone while their host steps, whose `triggers` are the instance id, stay in
    state and believe the host is set up; the runner's delete-first deregistration never
    runs; and what becomes of the old boot volume is up to `is_preserve_boot_volume_enabled`
    (unset here), not `preserve_boot_volume`. Replacing the instance runs the path a new
    machine runs: every host step, the runner registration (deleted first, deregistered)
    and the cluster are made again, and the old boot volume goes with the old instance
    (`preserve_boot_volume=False`).
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
            f"{name}{generation_suffix(args.generation)}",
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
                ignore_changes=[
                    "metadata",
                    "availabilityDomain",
                    *([] if args.image_pinned else ["sourceDetails.sourceId"]),
                ],
                replace_on_changes=["sourceDetails.sourceId"] if args.image_pinned else [],
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
