"""What the GPU capacity costs a month: always-on VMs versus scale-to-zero runners.

Kubeflow moved its GPU CI from a long-lived A10 VM to ARC runners that launch a VM per job
because a GPU that idles all month costs more than the jobs it runs. This model shows that
trade-off before a user picks a capacity: list prices per GPU-hour (typed, with their
source and the date they were read) times the hours each choice keeps a GPU VM alive.

Figures are OCI pay-as-you-go list prices in USD; Universal Credits and negotiated rates
are lower. Boot volumes are billed like block volumes (balanced performance). Network,
OKE control plane and the launcher pods' CPU nodes are left out: they are small next to
GPUs and depend on choices this model does not see.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

import pulumi
from pydantic import BaseModel, ConfigDict, Field

from components.oci.shapes import GPU_SHAPES
from stacks.config import StackConfig
from stacks.config.usage import Usage
from stacks.outputs import CapacityCost, CostOutputs

HOURS_PER_MONTH = 730.0
"""OCI (like the other clouds) bills a month as 730 hours."""
DAYS_PER_MONTH = HOURS_PER_MONTH / 24


class GpuPrice(BaseModel):
    """List price of one GPU-hour of a GPU model's shapes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    gpuModel: str
    usdPerGpuHour: float = Field(gt=0)
    source: str
    read: dt.date


_PRICE_SOURCE = (
    "OCI price list (oracle.com/cloud/price-list, Compute - GPU), as tabulated per shape in "
    "'Oracle Cloud GPU SKUs: Pricing, BYOL Rules and the Egress Trap' "
    "(oraclelicensingexperts.com, 2026-04-14): VM.GPU.A10.1 ~$1.27/h, VM.GPU.A10.2 ~$2.54/h, "
    "A100-v2.8 $32/h, H100.8 $80/h"
)

SHAPE_LIST_PRICES: dict[str, float] = {
    "VM.GPU.A10.1": 1.27,
    "VM.GPU.A10.2": 2.54,
    "BM.GPU.A100-v2.8": 32.00,
    "BM.GPU.H100.8": 80.00,
}
"""USD per hour of each shape as the source above quotes it: the per-GPU prices below times
the shape's GPU count must give these (tests/stacks/layers/test_costs.py)."""

GPU_PRICES: dict[str, GpuPrice] = {
    p.gpuModel: p
    for p in (
        GpuPrice(
            gpuModel="A10", usdPerGpuHour=1.27, source=_PRICE_SOURCE, read=dt.date(2026, 11, 29)
        ),
        GpuPrice(
            gpuModel="A100", usdPerGpuHour=4.00, source=_PRICE_SOURCE, read=dt.date(2026, 11, 29)
        ),
        GpuPrice(
            gpuModel="H100", usdPerGpuHour=10.00, source=_PRICE_SOURCE, read=dt.date(2026, 11, 29)
        ),
    )
}

BOOT_VOLUME_USD_PER_GB_MONTH = 0.0255 + 10 * 0.0017
"""Block volume storage ($0.0255/GB-month) plus balanced performance (10 VPUs x $0.0017),
OCI block volume price list (oracle.com/cloud/storage/block-volumes/pricing)."""


class UnpricedShapeError(ValueError):
    """No list price is known for the shape's GPU model."""


def estimate(
    *, shape: str, gpu_model: str, gpus: int, vms: int, boot_volume_gbs: int, usage: Usage
) -> CapacityCost:
    """Monthly cost of `vms` always-on VMs of `shape`, and of running the same work on
    VMs launched per job (one VM of the shape per concurrent job)."""
    price = GPU_PRICES.get(gpu_model)
    if price is None:
        raise UnpricedShapeError(
            f"no list price for {gpu_model} GPUs ({shape}); known: {', '.join(GPU_PRICES)}"
        )
    vm_hour = price.usdPerGpuHour * gpus
    boot_month = boot_volume_gbs * BOOT_VOLUME_USD_PER_GB_MONTH
    always_on = vms * (vm_hour * HOURS_PER_MONTH + boot_month)
    billed_hours = (
        usage.jobsPerDay * DAYS_PER_MONTH * (usage.minutesPerJob + usage.overheadMinutesPerJob) / 60
    )
    per_vm_hour = vm_hour + boot_month / HOURS_PER_MONTH
    scale_to_zero = billed_hours * per_vm_hour
    cost_per_job = per_vm_hour * (usage.minutesPerJob + usage.overheadMinutesPerJob) / 60
    break_even = always_on / (cost_per_job * DAYS_PER_MONTH)
    return CapacityCost(
        shape=shape,
        gpus=gpus,
        vms=vms,
        alwaysOnMonthly=round(always_on, 2),
        scaleToZeroMonthly=round(scale_to_zero, 2),
        breakEvenJobsPerDay=round(break_even, 1),
        usage=usage,
        priceSource=price.source,
    )


def compare_shapes(
    shapes: list[str], usage: Usage, boot_volume_gbs: int = 512
) -> list[CapacityCost]:
    """One always-on VM of each shape next to the same jobs on VMs launched per job: what
    a second GPU costs (VM.GPU.A10.2 against VM.GPU.A10.1), at `usage`."""
    return [
        estimate(
            shape=name,
            gpu_model=GPU_SHAPES[name].gpuModel,
            gpus=GPU_SHAPES[name].gpuCount,
            vms=1,
            boot_volume_gbs=boot_volume_gbs,
            usage=usage,
        )
        for name in shapes
    ]


def comparison_table(shapes: list[str], usage: Usage, boot_volume_gbs: int = 512) -> str:
    """`compare_shapes` as a Markdown table, with what one job costs on a VM launched for
    it (docs/multi-gpu.md#what-a-second-gpu-costs shows it)."""
    rows = [
        "| shape | GPUs | always on | scale-to-zero | break-even | per job |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    job_hours = (usage.minutesPerJob + usage.overheadMinutesPerJob) / 60
    for cost in compare_shapes(shapes, usage, boot_volume_gbs):
        hourly = GPU_PRICES[GPU_SHAPES[cost.shape].gpuModel].usdPerGpuHour * cost.gpus
        boot_hourly = boot_volume_gbs * BOOT_VOLUME_USD_PER_GB_MONTH / HOURS_PER_MONTH
        rows.append(
            f"| {cost.shape} | {cost.gpus} | ${cost.alwaysOnMonthly:,.0f}/month "
            f"| ${cost.scaleToZeroMonthly:,.0f}/month | {cost.breakEvenJobsPerDay:.1f} jobs/day "
            f"| ${(hourly + boot_hourly) * job_hours:.2f} |"
        )
    return "\n".join(rows)


def capacity_costs(
    capacity: str, vm: Any, arc: Any, usage: Usage, shapes: dict[str, Any]
) -> tuple[CostOutputs, list[str]]:
    """Estimates for `vm` capacity (its VMs always on) or each `arc` vm-launcher scale set
    (VMs per job); and the shapes left unpriced."""
    estimates: list[tuple[CapacityCost, Literal["vm", "arc"]]] = []
    unpriced: list[str] = []

    def add(shape_name: str, vms: int, boot: int, chosen: Literal["vm", "arc"]) -> None:
        shape = shapes.get(shape_name)
        if shape is None or shape.gpuModel not in GPU_PRICES:
            unpriced.append(shape_name)
            return
        cost = estimate(
            shape=shape_name,
            gpu_model=shape.gpuModel,
            gpus=shape.gpuCount,
            vms=vms,
            boot_volume_gbs=boot,
            usage=usage,
        )
        estimates.append((cost, chosen))

    if capacity == "vm" and vm is not None:
        add(vm.shape, vm.count, vm.bootVolumeSizeGbs, "vm")
    if capacity == "arc" and arc is not None:
        for scale_set in arc.scaleSets:
            if getattr(scale_set, "kind", None) == "vm-launcher":
                add(scale_set.shapes[0], 1, scale_set.bootVolumeSizeGbs, "arc")
    return (
        CostOutputs(
            estimates=[c for c, _ in estimates],
            lines=[c.line(chosen) for c, chosen in estimates],
        ),
        unpriced,
    )


def cost_estimate(cfg: StackConfig) -> dict[str, Any]:
    """The monthly compute estimate: a known value, so a preview shows it."""
    costs, unpriced = capacity_costs(cfg.capacity, cfg.vm, cfg.arc, cfg.usage, GPU_SHAPES)
    for shape in unpriced:
        pulumi.log.warn(
            f"no cost estimate for {shape}: stacks/layers/cost.py has no price for its GPU"
        )
    return costs.model_dump(mode="json")
