"""`stacks.contracts`: typed readers of another gpu-ci stack, against mocked StackReferences."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pulumi
import pytest

from stacks.contracts.contract import CLUSTER, HOST, ContractError
from stacks.contracts.reader import GpuCiStack, read_cluster
from stacks.offline.engine.fakes import FakeCloud, StackExports
from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import ProgramRun
from stacks.offline.engine.values import Secret, reveal
from stacks.offline.plan import REPO
from stacks.offline.references import reference_exports
from stacks.offline.stack_file.read import read_stack_file
from stacks.outputs import ClusterOutputs
from stacks.program import main
from tests.stacks.stack_helpers import CLUSTER_EXPORT

STACK = "org/gpu-ci/dev"
KUBECONFIG = "apiVersion: v1\nkind: Config\nusers: [{name: a, user: {token: not-a-real-one}}]\n"


def consume(
    program: Callable[[], None],
    outputs: dict[str, Any],
    secret_names: frozenset[str] = frozenset({"kubeconfig"}),
) -> ProgramRun:
    """Run `program` as a consumer stack whose reference to STACK reads `outputs`."""
    cloud = FakeCloud({}, {STACK: StackExports(outputs=outputs, secret_names=secret_names)})
    return run_program(
        program, project="consumer", stack="test", config={}, preview=False, cloud=cloud
    )


def cluster_consumer() -> None:
    gpu = GpuCiStack.from_stack(STACK)
    cluster = gpu.cluster()
    pulumi.export("type", cluster.apply(lambda c: type(c).__name__))
    pulumi.export("name", cluster.name)  # attribute access lifts into an Output
    pulumi.export("gpus", cluster.apply(lambda c: (c.gpuCount or 0) + 0))
    pulumi.export("kubeconfig", gpu.kubeconfig())


def test_cluster_contract_reads_typed_and_kubeconfig_stays_secret() -> None:
    run = consume(cluster_consumer, {"cluster": CLUSTER_EXPORT, "kubeconfig": KUBECONFIG})
    assert run.exports["type"] == "ClusterOutputs"
    assert run.exports["name"] == "gpu-ci"
    assert run.exports["gpus"] == 1
    assert isinstance(run.exports["kubeconfig"], Secret)
    assert reveal(run.exports["kubeconfig"]) == KUBECONFIG
    reference = run.one("pulumi:pulumi:StackReference")
    assert reference.inputs["name"] == STACK


def test_kubeconfig_is_secret_even_when_the_producer_forgot_to_mark_it() -> None:
    run = consume(
        cluster_consumer, {"cluster": CLUSTER_EXPORT, "kubeconfig": KUBECONFIG}, frozenset()
    )
    assert isinstance(run.exports["kubeconfig"], Secret)
    assert not isinstance(run.exports["name"], Secret)


def test_an_export_the_producer_marks_secret_stays_secret() -> None:
    run = consume(cluster_consumer, {"cluster": CLUSTER_EXPORT, "kubeconfig": KUBECONFIG},
                  frozenset({"cluster", "kubeconfig"}))  # fmt: skip
    assert isinstance(run.exports["name"], Secret)
    assert reveal(run.exports["name"]) == "gpu-ci"


def test_the_cluster_contract_is_not_secret_beside_a_secret_kubeconfig() -> None:
    run = consume(cluster_consumer, {"cluster": CLUSTER_EXPORT, "kubeconfig": KUBECONFIG})
    assert not isinstance(run.exports["name"], Secret)
    assert not isinstance(run.exports["type"], Secret)


def cluster_only() -> None:
    pulumi.export("name", GpuCiStack.from_stack(STACK).cluster().name)


def failure(outputs: dict[str, Any], program: Callable[[], None] = cluster_only) -> str:
    with pytest.raises(pulumi.RunError) as raised:
        consume(program, outputs)
    assert isinstance(raised.value, ContractError)
    return str(raised.value)


def test_a_missing_field_names_the_stack_the_export_and_the_field() -> None:
    partial = {k: v for k, v in CLUSTER_EXPORT.items() if k != "nodeImage"}
    message = failure({"cluster": partial, "kubeconfig": KUBECONFIG})
    assert message == (
        "stack 'org/gpu-ci/dev': export `cluster` does not match contract version 1: "
        "lacks field `nodeImage`"
    )


def test_an_older_contract_version_is_rejected_with_what_to_do() -> None:
    message = failure({"cluster": {**CLUSTER_EXPORT, "contractVersion": 0}})
    assert message == (
        "stack 'org/gpu-ci/dev': export `cluster` has contractVersion 0, older than the "
        "version 1 this reader needs: run `pulumi up` on 'org/gpu-ci/dev' with this gpu-ci "
        "version"
    )


def test_a_newer_contract_version_asks_to_upgrade_the_reader() -> None:
    message = failure({"cluster": {**CLUSTER_EXPORT, "contractVersion": 2}})
    assert "has contractVersion 2, newer than the version 1" in message
    assert "upgrade the gpu-ci this program imports" in message


def test_an_export_without_contract_version_is_refused() -> None:
    legacy = {k: v for k, v in CLUSTER_EXPORT.items() if k != "contractVersion"}
    assert "lacks field `contractVersion`" in failure({"cluster": legacy})


def test_a_missing_export_lists_what_the_stack_exports() -> None:
    message = failure({"capacity": {"contractVersion": 1}, "host": {}})
    assert message == (
        "stack 'org/gpu-ci/dev' exports no `cluster` (it exports `capacity`, `host`); a "
        "gpu-ci stack exports `cluster` when its config sets gpu-ci:cluster"
    )


def test_a_missing_kubeconfig_is_named_without_a_value() -> None:
    def program() -> None:
        pulumi.export("k", GpuCiStack.from_stack(STACK).kubeconfig())

    assert failure({"cluster": CLUSTER_EXPORT}, program).startswith(
        "stack 'org/gpu-ci/dev' exports no `kubeconfig`"
    )


def test_wrong_types_and_unknown_fields_are_listed_without_their_values() -> None:
    bad = {**CLUSTER_EXPORT, "gpuCount": "SENSITIVE", "extraThing": "SENSITIVE"}
    message = failure({"cluster": bad})
    assert "field `gpuCount`: Input should be a valid integer" in message
    assert "has field `extraThing`, which the contract does not define" in message
    assert "SENSITIVE" not in message


def test_read_cluster_shorthand() -> None:
    def program() -> None:
        pulumi.export("port", read_cluster(STACK).apiServerPort)

    run = consume(program, {"cluster": CLUSTER_EXPORT})
    assert run.exports["port"] == 6443


def test_parse_is_usable_without_a_program() -> None:
    contract = CLUSTER.parse("s", {"cluster": CLUSTER_EXPORT})
    assert isinstance(contract, ClusterOutputs) and contract.gpuCount == 1
    with pytest.raises(ContractError, match=r"stack 's' exports no `host`"):
        HOST.parse("s", {})


def test_reads_what_the_real_program_exports() -> None:
    """Round trip: a deployed (mock `up`) dev stack's exports satisfy every reader."""
    file = read_stack_file(REPO, "dev")
    producer = run_program(
        main,
        project=file.project,
        stack="dev",
        config=file.config,
        secret_keys=set(file.secret_keys),
        preview=False,
    )
    exports = reference_exports("dev", producer)
    assert set(exports.outputs) >= {
        "capacity",
        "host",
        "cluster",
        "kubeconfig",
        "platform",
        "cost",
        "observability",
    }

    def program() -> None:
        gpu = GpuCiStack.from_stack(STACK)
        layers: dict[str, Any] = {"capacity": gpu.capacity(), "host": gpu.host()}
        layers.update(cluster=gpu.cluster(), platform=gpu.platform(), cost=gpu.cost())
        layers["observability"] = gpu.observability()
        for name, layer in layers.items():
            pulumi.export(
                name, layer.apply(lambda c: [type(c).__name__, c.model_dump()["contractVersion"]])
            )
        pulumi.export("hosts", gpu.host().apply(lambda h: [x.name for x in h.hosts]))

    cloud = FakeCloud({}, {STACK: exports})
    run = run_program(
        program, project="consumer", stack="test", config={}, preview=False, cloud=cloud
    )
    assert run.exports == {
        "capacity": ["VmCapacityOutputs", 1],
        "host": ["HostOutputs", 1],
        "cluster": ["ClusterOutputs", 1],
        "platform": ["PlatformOutputs", 1],
        "cost": ["CostOutputs", 1],
        "observability": ["ObservabilityOutputs", 1],
        "hosts": ["host-0"],
    }
