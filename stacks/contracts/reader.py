"""The one reader of a gpu-ci stack: a StackReference and a typed `Output` per layer.

Each layer's export is validated (`Contract.parse`) when the reference resolves; an export
the referenced stack marks secret stays secret, and `kubeconfig` is always secret.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi

from stacks.contracts.contract import (
    CAPACITY,
    CLUSTER,
    COST,
    HOST,
    KUBECONFIG,
    OBSERVABILITY,
    PLATFORM,
    Contract,
    ContractError,
    M,
)
from stacks.outputs import (
    ArcCapacityOutputs,
    ClusterOutputs,
    CostOutputs,
    HostOutputs,
    ObservabilityOutputs,
    PlatformOutputs,
    VmCapacityOutputs,
)


def read_contract(reference: pulumi.StackReference, stack: str, contract: Contract[M]) -> Any:
    """`Output[M]`: `contract`'s export of the referenced stack, validated.

    Secret exactly when the referenced stack marks that export secret (validation reads
    all outputs, which the SDK marks secret as a whole once any one is).
    """
    parsed = pulumi.Output.unsecret(reference.outputs.apply(lambda o: contract.parse(stack, o)))
    # get_output carries the export's own secretness; its value is not needed here.
    marker = reference.get_output(contract.export).apply(lambda _: None)
    return pulumi.Output.all(parsed, marker).apply(lambda pair: pair[0])


def read_secret(reference: pulumi.StackReference, stack: str, export: str, why: str) -> Any:
    """`Output[str]`: a secret export (a kubeconfig), always secret, never printed."""

    def check(outputs: Mapping[str, Any] | None) -> str:
        value = (outputs or {}).get(export)
        if not isinstance(value, str) or not value:
            raise ContractError(f"stack {stack!r} exports no `{export}` ({why})")
        return value

    return pulumi.Output.secret(reference.outputs.apply(check))


class GpuCiStack:
    """One StackReference to a gpu-ci stack, and a typed reader per layer it exports.

    `stack` is `ORGANIZATION/PROJECT/STACK` (Pulumi Cloud) or `STACK` (a self-managed
    backend, or a stack of the same organization). Each reader is created once.
    """

    def __init__(
        self,
        stack: str,
        *,
        name: str | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        self.stack = stack
        self.reference = pulumi.StackReference(name or stack, stack_name=stack, opts=opts)
        self._read: dict[str, Any] = {}

    @classmethod
    def from_stack(
        cls,
        stack: str,
        *,
        name: str | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ) -> GpuCiStack:
        return cls(stack, name=name, opts=opts)

    def read(self, contract: Contract[M]) -> Any:
        """`Output[M]` for any contract (the readers below are typed shorthands)."""
        if contract.export not in self._read:
            self._read[contract.export] = read_contract(self.reference, self.stack, contract)
        return self._read[contract.export]

    def capacity(self) -> pulumi.Output[VmCapacityOutputs | ArcCapacityOutputs]:
        """`capacity`, as the member its `kind` names: `VmCapacityOutputs` or
        `ArcCapacityOutputs`."""
        result: pulumi.Output[VmCapacityOutputs | ArcCapacityOutputs] = self.read(CAPACITY)
        return result

    def host(self) -> pulumi.Output[HostOutputs]:
        result: pulumi.Output[HostOutputs] = self.read(HOST)
        return result

    def cluster(self) -> pulumi.Output[ClusterOutputs]:
        result: pulumi.Output[ClusterOutputs] = self.read(CLUSTER)
        return result

    def platform(self) -> pulumi.Output[PlatformOutputs]:
        result: pulumi.Output[PlatformOutputs] = self.read(PLATFORM)
        return result

    def cost(self) -> pulumi.Output[CostOutputs]:
        """`cost`: the monthly compute estimates of the stack's GPU capacity."""
        result: pulumi.Output[CostOutputs] = self.read(COST)
        return result

    def observability(self) -> pulumi.Output[ObservabilityOutputs]:
        """`observability`: the stack's Prometheus, Grafana, dashboards and usage queries."""
        result: pulumi.Output[ObservabilityOutputs] = self.read(OBSERVABILITY)
        return result

    def kubeconfig(self) -> pulumi.Output[str]:
        """The cluster's admin kubeconfig: a secret, for a `kubernetes.Provider`."""
        if KUBECONFIG not in self._read:
            self._read[KUBECONFIG] = read_secret(
                self.reference,
                self.stack,
                KUBECONFIG,
                f"a gpu-ci stack exports it with `cluster`, when its config sets "
                f"{CLUSTER.config_key}",
            )
        result: pulumi.Output[str] = self._read[KUBECONFIG]
        return result


def read_capacity(stack: str) -> pulumi.Output[VmCapacityOutputs | ArcCapacityOutputs]:
    return GpuCiStack.from_stack(stack, name=f"{stack}-capacity").capacity()


def read_host(stack: str) -> pulumi.Output[HostOutputs]:
    return GpuCiStack.from_stack(stack, name=f"{stack}-host").host()


def read_cluster(stack: str) -> pulumi.Output[ClusterOutputs]:
    return GpuCiStack.from_stack(stack, name=f"{stack}-cluster").cluster()


def read_platform(stack: str) -> pulumi.Output[PlatformOutputs]:
    return GpuCiStack.from_stack(stack, name=f"{stack}-platform").platform()


def read_cost(stack: str) -> pulumi.Output[CostOutputs]:
    return GpuCiStack.from_stack(stack, name=f"{stack}-cost").cost()


def read_observability(stack: str) -> pulumi.Output[ObservabilityOutputs]:
    return GpuCiStack.from_stack(stack, name=f"{stack}-observability").observability()
