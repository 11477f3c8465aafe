"""`stacks.contracts`: both kinds of `capacity` and the `cost` export, read as consumers do.

The exports are the real program's, planned offline (`pulumi preview`: only `cost` is known
then) or run as a mock `pulumi up` (ids answered), and reach the reader as a
StackReference delivers them (`stacks.offline.references.reference_exports`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

import pulumi
import pytest
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from stacks.contracts.contract import CAPACITY, COST, Contract, ContractError
from stacks.contracts.reader import GpuCiStack, read_cost
from stacks.offline.engine.fakes import FakeCloud, StackExports
from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import ProgramRun
from stacks.offline.plan import REPO, plan_run
from stacks.offline.references import reference_exports
from stacks.offline.stack_file.read import read_stack_file
from stacks.outputs import ArcCapacityOutputs, CapacityOutputs, CostOutputs, VmCapacityOutputs
from stacks.program import main
from tests.components.arc.arc_helpers import arc_stack, gpu_pod, launcher, run_arc

STACK = "org/gpu-ci/arc"


def deployed(stack: str) -> StackExports:
    """`stack`'s exports after a mock `pulumi up`, as a StackReference to it reads them."""
    file = read_stack_file(REPO, stack)
    run = run_program(
        main,
        project=file.project,
        stack=stack,
        config=file.config,
        secret_keys=set(file.secret_keys),
        preview=False,
    )
    return reference_exports(stack, run)


@pytest.fixture(scope="module")
def arc() -> StackExports:
    return deployed("arc")


@pytest.fixture(scope="module")
def dev() -> StackExports:
    return deployed("dev")


def consume(program: Callable[[], None], exports: StackExports) -> ProgramRun:
    """Run `program` as a consumer stack whose reference to STACK reads `exports`."""
    cloud = FakeCloud({}, {STACK: exports})
    return run_program(
        program, project="consumer", stack="test", config={}, preview=False, cloud=cloud
    )


def failure(capacity: Any) -> str:
    with pytest.raises(ContractError) as raised:
        CAPACITY.parse(STACK, {"capacity": capacity})
    return str(raised.value)


def arc_export(arc: StackExports) -> dict[str, Any]:
    value: dict[str, Any] = arc.outputs["capacity"]
    return value


# --- the real exports, through the public reader ------------------------------------------


def test_the_arc_stacks_capacity_and_cost_read_through_a_stack_reference(
    arc: StackExports,
) -> None:
    """Fails on a reader whose capacity contract is the VM model alone (`kind: 'vm'`)."""

    def program() -> None:
        gpu = GpuCiStack.from_stack(STACK)
        capacity = gpu.capacity()
        pulumi.export("type", capacity.apply(lambda c: type(c).__name__))
        pulumi.export(
            "sets",
            capacity.apply(
                lambda c: [s.name for s in c.scaleSets] if isinstance(c, ArcCapacityOutputs) else []
            ),
        )
        pulumi.export("dump", capacity.apply(lambda c: c.model_dump(mode="json")))
        cost = gpu.cost()
        pulumi.export("costType", cost.apply(lambda c: type(c).__name__))
        pulumi.export("shapes", cost.apply(lambda c: [e.shape for e in c.estimates]))
        pulumi.export("lines", cost.lines)  # attribute access lifts

    run = consume(program, arc)
    assert run.exports["type"] == "ArcCapacityOutputs"
    assert run.exports["sets"] == ["oracle-vm-gpu-a10-1", "oracle-vm-gpu-a10-2", "oke-gpu-a10-pod"]
    assert run.exports["dump"] == arc_export(arc)  # read back field for field, as exported
    assert run.exports["costType"] == "CostOutputs"
    assert run.exports["shapes"] == ["VM.GPU.A10.1", "VM.GPU.A10.2"]
    assert run.exports["lines"] == arc.outputs["cost"]["lines"]


def test_parse_reads_the_arc_stacks_capacity(arc: StackExports) -> None:
    capacity = CAPACITY.parse(STACK, arc.outputs)
    assert isinstance(capacity, ArcCapacityOutputs)
    assert capacity.kind == "arc" and capacity.cluster == "oke"
    assert sorted(capacity.nodePoolIds) == ["cpu", "gpu"]
    assert capacity.scaleSets[0].maxRunners == 20 and capacity.scaleSets[2].kind == "gpu-pod"
    assert capacity.model_dump(mode="json") == arc_export(arc)


def test_parse_reads_the_dev_stacks_capacity_and_cost(dev: StackExports) -> None:
    capacity = CAPACITY.parse("org/gpu-ci/dev", dev.outputs)
    assert isinstance(capacity, VmCapacityOutputs)
    assert capacity.shape == "VM.GPU.A10.1" and len(capacity.instanceIds) == 1
    assert capacity.model_dump(mode="json") == dev.outputs["capacity"]
    cost = COST.parse("org/gpu-ci/dev", dev.outputs)
    assert isinstance(cost, CostOutputs)
    assert [(e.shape, e.vms) for e in cost.estimates] == [("VM.GPU.A10.1", 1)]
    assert cost.lines[0].startswith("estimated compute: $949/month for 1 x VM.GPU.A10.1 always on")
    assert cost.model_dump(mode="json") == dev.outputs["cost"]


@pytest.mark.parametrize("stack", ["arc", "dev"])
def test_the_offline_plans_cost_reads_through_the_public_reader(stack: str) -> None:
    """`pulumi preview` knows `cost` (capacity ids come at deploy time)."""
    planned = reference_exports(stack, plan_run(stack))
    assert "capacity" not in planned.outputs  # unknown until deployed
    cost = COST.parse(stack, planned.outputs)
    assert cost.contractVersion == 1 and cost.estimates
    assert cost.model_dump(mode="json") == planned.outputs["cost"]


def test_read_cost_shorthand(arc: StackExports) -> None:
    def program() -> None:
        pulumi.export("vms", read_cost(STACK).apply(lambda c: [e.vms for e in c.estimates]))

    assert consume(program, arc).exports["vms"] == [1, 1]


def test_an_arc_capacity_on_an_existing_cluster_gets_its_nulls_back() -> None:
    """The SDK drops null outputs: clusterId and the launch network arrive absent."""
    values = arc_stack(launcher(), gpu_pod(), githubApp=None, existingSecret="org-github-app")
    exports = reference_exports("test", run_arc(values))
    assert exports.outputs["capacity"]["clusterId"] is None  # as exported

    def program() -> None:
        capacity = GpuCiStack.from_stack(STACK).capacity()
        pulumi.export(
            "nulls",
            capacity.apply(
                lambda c: (
                    [c.clusterId, c.launchSubnetId, c.launchNsgId, c.failedRunnerCleanup]
                    if isinstance(c, ArcCapacityOutputs)
                    else "not arc"
                )
            ),
        )

    assert consume(program, exports).exports["nulls"] == [None, None, None, None]
    absent = {k: v for k, v in exports.outputs["capacity"].items() if v is not None}
    assert "clusterId" not in absent
    parsed = CAPACITY.parse(STACK, {"capacity": absent})
    assert isinstance(parsed, ArcCapacityOutputs) and parsed.clusterId is None


def test_the_union_is_a_pydantic_discriminated_union(arc: StackExports) -> None:
    adapter: TypeAdapter[VmCapacityOutputs | ArcCapacityOutputs] = TypeAdapter(CapacityOutputs)
    assert isinstance(adapter.validate_python(arc_export(arc)), ArcCapacityOutputs)
    assert CAPACITY.discriminator == "kind"
    assert CAPACITY.members == {"vm": VmCapacityOutputs, "arc": ArcCapacityOutputs}
    assert (CAPACITY.version, CAPACITY.version_of("vm"), CAPACITY.version_of("arc")) == (1, 1, 1)
    assert (COST.version, COST.discriminator, COST.members) == (1, None, {"cost": CostOutputs})


# --- what a mismatch says -------------------------------------------------------------------


def test_an_unknown_kind_is_named_with_the_kinds_this_reader_reads(arc: StackExports) -> None:
    assert failure({**arc_export(arc), "kind": "slurm"}) == (
        "stack 'org/gpu-ci/arc': export `capacity` has kind 'slurm', which this reader does "
        "not know (it reads kind 'vm' or 'arc'): upgrade the gpu-ci this program imports"
    )


def test_a_capacity_without_kind_is_refused(arc: StackExports) -> None:
    legacy = {k: v for k, v in arc_export(arc).items() if k != "kind"}
    assert failure(legacy) == (
        "stack 'org/gpu-ci/arc': export `capacity` lacks field `kind` (this reader reads kind "
        "'vm' or 'arc')"
    )
    assert failure({**arc_export(arc), "kind": 3}) == (
        "stack 'org/gpu-ci/arc': export `capacity` has `kind` of type int, not 'vm' or 'arc'"
    )


def test_a_missing_field_of_the_arc_member_is_named(arc: StackExports) -> None:
    partial = {k: v for k, v in arc_export(arc).items() if k != "scaleSets"}
    assert failure(partial) == (
        "stack 'org/gpu-ci/arc': export `capacity` (kind 'arc') does not match contract "
        "version 1: lacks field `scaleSets`"
    )
    nested = arc_export(arc)
    first = {k: v for k, v in nested["scaleSets"][0].items() if k != "maxRunners"}
    nested = {**nested, "scaleSets": [first, *nested["scaleSets"][1:]]}
    assert failure(nested) == (
        "stack 'org/gpu-ci/arc': export `capacity` (kind 'arc') does not match contract "
        "version 1: lacks field `scaleSets.0.maxRunners`"
    )


def test_a_vm_field_in_an_arc_capacity_is_not_the_contract(
    arc: StackExports, dev: StackExports
) -> None:
    """`kind` picks the member: a VM export that says `arc` is checked as an ARC one."""
    message = failure({**dev.outputs["capacity"], "kind": "arc"})
    assert message.startswith(
        "stack 'org/gpu-ci/arc': export `capacity` (kind 'arc') does not match contract "
        "version 1: lacks field `cluster`; "
    )
    assert "has field `shape`, which the contract does not define" in message
    assert "203.0.113" not in message  # no values


def test_a_newer_arc_contract_version_asks_to_upgrade_the_reader(arc: StackExports) -> None:
    assert failure({**arc_export(arc), "contractVersion": 2}) == (
        "stack 'org/gpu-ci/arc': export `capacity` (kind 'arc') has contractVersion 2, newer "
        "than the version 1 this reader knows: upgrade the gpu-ci this program imports"
    )


def test_an_older_vm_contract_version_says_what_to_do(dev: StackExports) -> None:
    assert failure({**dev.outputs["capacity"], "contractVersion": 0.0}) == (
        "stack 'org/gpu-ci/arc': export `capacity` (kind 'vm') has contractVersion 0, older "
        "than the version 1 this reader needs: run `pulumi up` on 'org/gpu-ci/arc' with this "
        "gpu-ci version"
    )


def test_cost_mismatches_are_named(arc: StackExports) -> None:
    cost = arc.outputs["cost"]
    with pytest.raises(ContractError) as newer:
        COST.parse(STACK, {"cost": {**cost, "contractVersion": 2}})
    assert str(newer.value) == (
        "stack 'org/gpu-ci/arc': export `cost` has contractVersion 2, newer than the version "
        "1 this reader knows: upgrade the gpu-ci this program imports"
    )
    estimate = {k: v for k, v in cost["estimates"][0].items() if k != "alwaysOnMonthly"}
    with pytest.raises(ContractError) as missing:
        COST.parse(STACK, {"cost": {**cost, "estimates": [estimate]}})
    assert str(missing.value) == (
        "stack 'org/gpu-ci/arc': export `cost` does not match contract version 1: lacks "
        "field `estimates.0.alwaysOnMonthly`"
    )


def test_a_stack_without_capacity_exports_neither(arc: StackExports) -> None:
    with pytest.raises(ContractError) as capacity:
        CAPACITY.parse(STACK, {"host": {}})
    assert str(capacity.value) == (
        "stack 'org/gpu-ci/arc' exports no `capacity` (it exports `host`); a gpu-ci stack "
        "exports `capacity` when its config sets gpu-ci:capacity (vm or arc)"
    )
    with pytest.raises(ContractError) as cost:
        COST.parse(STACK, {"host": {}})
    assert str(cost.value) == (
        "stack 'org/gpu-ci/arc' exports no `cost` (it exports `host`); a gpu-ci stack "
        "exports `cost` when its config sets gpu-ci:capacity (vm or arc)"
    )


# --- a union whose members' versions move apart ---------------------------------------------


class _Old(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    contractVersion: Literal[1] = 1
    kind: Literal["old"] = "old"
    note: str | None


class _New(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    contractVersion: Literal[2] = 2
    kind: Literal["new"] = "new"


SPLIT: Contract[_Old | _New] = Contract(
    "thing", Annotated[_Old | _New, Field(discriminator="kind")], "x:thing"
)


def test_each_member_is_checked_against_its_own_contract_version() -> None:
    assert (SPLIT.version_of("old"), SPLIT.version_of("new")) == (1, 2)
    with pytest.raises(ValueError, match=r"its members have versions old: 1, new: 2"):
        _ = SPLIT.version
    assert isinstance(SPLIT.parse("s", {"thing": {"contractVersion": 2, "kind": "new"}}), _New)
    old = SPLIT.parse("s", {"thing": {"contractVersion": 1, "kind": "old"}})
    assert isinstance(old, _Old) and old.note is None  # nulls restored for the chosen member
    with pytest.raises(ContractError) as raised:
        SPLIT.parse("s", {"thing": {"contractVersion": 2, "kind": "old"}})
    assert str(raised.value) == (
        "stack 's': export `thing` (kind 'old') has contractVersion 2, newer than the version "
        "1 this reader knows: upgrade the gpu-ci this program imports"
    )
    with pytest.raises(ContractError) as legacy:
        SPLIT.parse("s", {"thing": {"kind": "new"}})
    assert str(legacy.value) == (
        "stack 's': export `thing` (kind 'new') lacks field `contractVersion`; this reader "
        "needs contract version 2 (run `pulumi up` on that stack with a current gpu-ci)"
    )
