"""The cost model: always-on VMs versus scale-to-zero, from typed list prices."""

from __future__ import annotations

import pytest

from stacks.config.usage import Usage
from stacks.layers.cost import (
    BOOT_VOLUME_USD_PER_GB_MONTH,
    GPU_PRICES,
    UnpricedShapeError,
    estimate,
)
from stacks.outputs import CapacityCost


def a10(**usage: float) -> CapacityCost:
    return estimate(
        shape="VM.GPU.A10.1",
        gpu_model="A10",
        gpus=1,
        vms=1,
        boot_volume_gbs=512,
        usage=Usage(**usage),
    )


def test_always_on_is_730_gpu_hours_plus_the_boot_volume() -> None:
    cost = a10()
    assert pytest.approx(0.0425) == BOOT_VOLUME_USD_PER_GB_MONTH
    assert cost.alwaysOnMonthly == pytest.approx(1.27 * 730 + 512 * 0.0425, abs=0.01)  # 948.86


def test_scale_to_zero_bills_only_the_jobs_and_their_overhead() -> None:
    cost = a10(jobsPerDay=10, minutesPerJob=60, overheadMinutesPerJob=8)
    hours = 10 * (730 / 24) * 68 / 60
    assert cost.scaleToZeroMonthly == pytest.approx(hours * (1.27 + 512 * 0.0425 / 730), abs=0.01)
    assert cost.breakEvenJobsPerDay == pytest.approx(21.2, abs=0.05)
    assert a10(jobsPerDay=0).scaleToZeroMonthly == 0


def test_more_vms_cost_proportionally_more_when_always_on() -> None:
    two = estimate(
        shape="VM.GPU.A10.2", gpu_model="A10", gpus=2, vms=3, boot_volume_gbs=512, usage=Usage()
    )
    assert two.alwaysOnMonthly == pytest.approx(3 * (2 * 1.27 * 730 + 512 * 0.0425), abs=0.01)


def test_the_plan_line_names_both_choices() -> None:
    line = a10(jobsPerDay=10).line("vm")
    assert line == (
        "estimated compute: $949/month for 1 x VM.GPU.A10.1 always on (vs $448/month "
        "scale-to-zero at 10 jobs/day x 60 min; break-even 21.2 jobs/day)"
    )
    assert a10().line("arc").startswith("estimated compute: $448/month scale-to-zero")


def test_prices_carry_their_source_and_an_unpriced_gpu_is_an_error() -> None:
    assert all(p.source and p.read.year >= 2026 for p in GPU_PRICES.values())
    with pytest.raises(UnpricedShapeError, match=r"no list price for V100 GPUs \(VM.GPU3.1\)"):
        estimate(
            shape="VM.GPU3.1", gpu_model="V100", gpus=1, vms=1, boot_volume_gbs=100, usage=Usage()
        )


def test_the_dev_plan_exports_and_prints_its_cost_estimate() -> None:
    from stacks.offline.plan import plan_stack
    from stacks.offline.snapshot.tree import render_tree

    snap = plan_stack("dev")
    cost = snap["outputs"]["cost"]
    assert cost["contractVersion"] == 1
    assert [e["shape"] for e in cost["estimates"]] == ["VM.GPU.A10.1"]
    printed = render_tree(snap).splitlines()
    assert cost["lines"][0] in printed  # after the outputs, before observability's commands
    assert printed.index(cost["lines"][0]) == len(printed) - 3
    assert cost["lines"][0].startswith("estimated compute: $949/month for 1 x VM.GPU.A10.1")


def test_usage_is_stack_config_and_each_arc_launcher_set_is_priced() -> None:
    from stacks.offline.plan import plan_stack
    from tests.stacks.stack_helpers import run_stack, vm_stack

    run = run_stack(vm_stack(**{"gpu-ci:usage": {"jobsPerDay": 30, "minutesPerJob": 45}}))
    (line,) = run.exports["cost"]["lines"]
    assert "scale-to-zero at 30 jobs/day x 45 min" in line
    arc = plan_stack("arc")["outputs"]["cost"]
    assert [e["shape"] for e in arc["estimates"]] == ["VM.GPU.A10.1", "VM.GPU.A10.2"]
    assert all(line.startswith("estimated compute: $") for line in arc["lines"])


def test_bad_usage_names_the_key() -> None:
    import pulumi

    from tests.stacks.stack_helpers import run_stack, vm_stack

    with pytest.raises(
        pulumi.RunError, match=r"gpu-ci:usage.minutesPerJob: Input should be greater than 0"
    ):
        run_stack(vm_stack(**{"gpu-ci:usage": {"minutesPerJob": 0}}))


def test_each_quoted_shape_price_is_its_gpus_at_the_per_gpu_price() -> None:
    """The source quotes shapes (VM.GPU.A10.2 at ~$2.54/h); the model prices GPUs."""
    from components.oci.shapes import GPU_SHAPES
    from stacks.layers.cost import SHAPE_LIST_PRICES

    assert {"VM.GPU.A10.1", "VM.GPU.A10.2"} <= set(SHAPE_LIST_PRICES)
    for name, quoted in SHAPE_LIST_PRICES.items():
        shape = GPU_SHAPES[name]
        assert GPU_PRICES[shape.gpuModel].usdPerGpuHour * shape.gpuCount == pytest.approx(quoted)
        source = GPU_PRICES[shape.gpuModel].source
        short = name.removeprefix("BM.GPU.")  # the source's A100-v2.8, H100.8
        assert f"{short} ~${quoted:.2f}/h" in source or f"{short} ${quoted:.0f}/h" in source


def test_the_a10_2_costs_twice_the_a10_1_but_its_boot_volume() -> None:
    from stacks.layers.cost import compare_shapes

    one, two = compare_shapes(["VM.GPU.A10.1", "VM.GPU.A10.2"], Usage())
    boot = 512 * BOOT_VOLUME_USD_PER_GB_MONTH
    assert (one.gpus, two.gpus) == (1, 2)
    assert two.alwaysOnMonthly - boot == pytest.approx(2 * (one.alwaysOnMonthly - boot), abs=0.02)
    assert two.breakEvenJobsPerDay == one.breakEvenJobsPerDay


def test_the_multi_gpu_docs_show_the_models_comparison() -> None:
    from stacks.layers.cost import comparison_table
    from stacks.offline.plan import REPO

    page = (REPO / "docs" / "multi-gpu.md").read_text()
    start = page.index("<!-- cost table:")
    block = page[page.index("\n", start) + 1 : page.index("<!-- end cost table -->")]
    assert block.strip() == comparison_table(["VM.GPU.A10.1", "VM.GPU.A10.2"], Usage())


def test_the_multi_gpu_plan_prices_its_a10_2() -> None:
    from stacks.offline.plan import plan_stack

    cost = plan_stack("multi-gpu")["outputs"]["cost"]
    assert [(e["shape"], e["gpus"]) for e in cost["estimates"]] == [("VM.GPU.A10.2", 2)]
    assert cost["lines"][0].startswith("estimated compute: $1,876/month for 1 x VM.GPU.A10.2")
