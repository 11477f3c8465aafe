"""Which boot image a GPU VM gets: a pinned OCID, or the newest match of a filter."""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_oci as oci

from components.base import InputError
from components.oci.vm_config import ImageConfig


def _newest(images: list[Any], cfg: ImageConfig, shape: str) -> str:
    if not images:
        raise InputError(
            f"gpu-ci:vm.image: no {cfg.operatingSystem} {cfg.operatingSystemVersion} image is "
            f"compatible with {shape} in this region; change the filter or set "
            "gpu-ci:vm.image.id to an image OCID"
        )
    return str(images[0].id)


def select_image(
    cfg: ImageConfig, *, compartment_id: str, shape: str, parent: pulumi.Resource | None = None
) -> pulumi.Output[str]:
    """The image OCID: `cfg.id`, or the newest AVAILABLE platform image for the shape."""
    if cfg.id is not None:
        return pulumi.Output.from_input(cfg.id)
    found = oci.core.get_images_output(
        compartment_id=compartment_id,
        operating_system=cfg.operatingSystem,
        operating_system_version=cfg.operatingSystemVersion,
        shape=shape,
        state="AVAILABLE",
        sort_by="TIMECREATED",
        sort_order="DESC",
        opts=pulumi.InvokeOutputOptions(parent=parent),
    )
    image_id: pulumi.Output[str] = found.images.apply(lambda images: _newest(images, cfg, shape))
    return image_id
