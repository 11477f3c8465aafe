"""OciPlacement: which availability domain the GPU VMs go in.

GPU capacity runs out per availability domain. With one candidate the AD is fixed; with
an ordered list, one compute capacity report per candidate asks OCI where the shape has
room at creation time, and the first AD with room wins (the first one if none has). The
reports are resources, so the choice is made once and kept in state: a later `pulumi up`
does not move running VMs when capacity changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pulumi
import pulumi_oci as oci

from components.base import ComponentArgs, InputError, child


class OciPlacementArgs(ComponentArgs):
    compartment_id: str
    tenancy_id: str | None
    shape: str
    candidates: list[int | str]


def _name_of(candidate: int | str, names: Sequence[str]) -> str:
    if isinstance(candidate, str):
        return candidate
    if candidate >= len(names):
        raise InputError(
            f"gpu-ci:vm.availabilityDomains: index {candidate} is out of range; this region "
            f"has {len(names)} availability domains: {', '.join(names)}"
        )
    return names[candidate]


def _first_available(names: list[str], reports: list[Any]) -> str:
    for name, report in zip(names, reports, strict=True):
        statuses = [s.get("availability_status") or s.get("availabilityStatus") for s in report]
        if statuses and all(s == "AVAILABLE" for s in statuses):
            return name
    return names[0]


class OciPlacement(pulumi.ComponentResource):
    """Resolves `gpu-ci:vm.availabilityDomains` (indexes or names) to one AD name."""

    availability_domain: pulumi.Output[str]

    def __init__(
        self, name: str, args: OciPlacementArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-ci:capacity:OciPlacement", name, None, opts)
        if any(isinstance(c, int) for c in args.candidates):
            listed = oci.identity.get_availability_domains_output(
                compartment_id=args.tenancy_id or args.compartment_id,
                opts=pulumi.InvokeOutputOptions(parent=self),
            )

            def resolve(ads: list[Any]) -> list[str]:
                return [_name_of(c, [ad.name for ad in ads]) for c in args.candidates]

            names: pulumi.Output[list[str]] = listed.availability_domains.apply(resolve)
        else:
            names = pulumi.Output.from_input([str(c) for c in args.candidates])

        if len(args.candidates) == 1:
            self.availability_domain = names[0]
        else:
            reports = [
                oci.core.ComputeCapacityReport(
                    f"{name}-capacity-{i}",
                    compartment_id=args.tenancy_id,
                    availability_domain=names[i],
                    shape_availabilities=[
                        oci.core.ComputeCapacityReportShapeAvailabilityArgs(
                            instance_shape=args.shape
                        )
                    ],
                    opts=child(self),
                )
                for i in range(len(args.candidates))
            ]
            self.availability_domain = pulumi.Output.all(
                names, *[r.shape_availabilities for r in reports]
            ).apply(lambda found: _first_available(found[0], [r or [] for r in found[1:]]))
        self.register_outputs({"availabilityDomain": self.availability_domain})
