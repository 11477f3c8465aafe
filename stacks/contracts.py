"""Typed readers of gpu-ci stacks, for other Pulumi Python programs.

A gpu-ci stack exports one object per layer (`stacks/outputs.py`): `capacity`, `host`,
`cluster` (plus the secret `kubeconfig`) and `platform`, and its monthly compute estimate
`cost` (`stacks/layers/cost.py`), each with a `contractVersion`. `capacity` is either kind:
`gpu.capacity()` gives a `VmCapacityOutputs` or an `ArcCapacityOutputs`, as its `kind`
("vm" or "arc") says. Another program reads them through one StackReference:

    from stacks.contracts import GpuCiStack

    gpu = GpuCiStack.from_stack("acme/gpu-ci/gpu-dev")
    cluster = gpu.cluster()               # Output[ClusterOutputs], validated
    provider = k8s.Provider("gpu", kubeconfig=gpu.kubeconfig())   # a secret Output[str]
    pulumi.export("gpus", cluster.gpuCount)                       # attribute access lifts

Each reader validates what the stack exports against this checkout's model and fails the
update with a `ContractError` (a `pulumi.RunError`: the message alone, no traceback) that
names the stack, the export and the field or version that does not match. An export the
referenced stack marks secret stays secret; `kubeconfig` is always secret.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Generic, TypeVar, get_args, get_origin

import pulumi
from pydantic import BaseModel, ValidationError

from core.errors import GpuCiError
from stacks.layers.cost import CostOutputs
from stacks.outputs import (
    ArcCapacityOutputs,
    CapacityOutputs,
    ClusterOutputs,
    HostOutputs,
    PlatformOutputs,
    VmCapacityOutputs,
)

M = TypeVar("M", bound=BaseModel)


class ContractError(GpuCiError, pulumi.RunError):
    """A referenced stack's export does not match the contract this program reads."""


@dataclass(frozen=True)
class Contract(Generic[M]):
    """One layer's export: its name, its model, and the config that makes a stack export it.

    `model` is a contract model, or a discriminated union of them such as
    `stacks.outputs.CapacityOutputs` (`Annotated[A | B, Field(discriminator="kind")]`):
    then the export's discriminator field picks the member it is read as, and each member
    keeps its own `contractVersion`.
    """

    export: str
    model: Any  # type[M], or an Annotated discriminated union whose members make up M
    config_key: str

    @property
    def discriminator(self) -> str | None:
        """The field that picks a union's member; None for a single model."""
        if get_origin(self.model) is not Annotated:
            return None
        for meta in get_args(self.model)[1:]:
            found = getattr(meta, "discriminator", None)
            if isinstance(found, str):
                return found
        raise TypeError(f"contract `{self.export}`: an Annotated model needs a discriminator")

    @property
    def members(self) -> dict[str, type[BaseModel]]:
        """A union's members by the discriminator value (tag) each is exported with; a
        single model under the export's name."""
        key = self.discriminator
        if key is None:
            return {self.export: self.model}
        members: dict[str, type[BaseModel]] = {}
        for member in get_args(get_args(self.model)[0]):
            for tag in get_args(member.model_fields[key].annotation):
                members[tag] = member
        return members

    @property
    def version(self) -> int:
        """The contract version this reader knows: every member's, for a union (whose
        members may move apart: then ask `version_of` a member's tag)."""
        versions = {_version(m) for m in self.members.values()}
        if len(versions) != 1:
            raise ValueError(
                f"contract `{self.export}`: its members have versions "
                f"{', '.join(f'{t}: {_version(m)}' for t, m in self.members.items())}; "
                "ask version_of(tag)"
            )
        return versions.pop()

    def version_of(self, tag: str) -> int:
        """The contract version of the member exported with discriminator value `tag`."""
        return _version(self.members[tag])

    def parse(self, stack: str, outputs: Mapping[str, Any] | None) -> M:
        """The export validated as `model`; a `ContractError` saying what differs if not."""
        outputs = outputs or {}
        where = f"stack {stack!r}: export `{self.export}`"
        if self.export not in outputs:
            names = ", ".join(f"`{n}`" for n in sorted(outputs)) or "nothing"
            raise ContractError(
                f"stack {stack!r} exports no `{self.export}` (it exports {names}); a gpu-ci "
                f"stack exports `{self.export}` when its config sets {self.config_key}"
            )
        raw = outputs[self.export]
        if not isinstance(raw, Mapping):
            raise ContractError(f"{where} is a {type(raw).__name__}, not a contract object")
        model, where = self._member(where, raw)
        version = _version(model)
        if "contractVersion" not in raw:
            raise ContractError(
                f"{where} lacks field `contractVersion`; this reader needs contract version "
                f"{version} (run `pulumi up` on that stack with a current gpu-ci)"
            )
        found = raw["contractVersion"]
        if isinstance(found, float) and found.is_integer():  # JSON numbers cross as floats
            found = int(found)
        if not isinstance(found, int) or isinstance(found, bool):
            raise ContractError(f"{where} has contractVersion {found!r}, not an integer")
        if found < version:
            raise ContractError(
                f"{where} has contractVersion {found}, older than the version {version} "
                f"this reader needs: run `pulumi up` on {stack!r} with this gpu-ci version"
            )
        if found > version:
            raise ContractError(
                f"{where} has contractVersion {found}, newer than the version {version} "
                "this reader knows: upgrade the gpu-ci this program imports"
            )
        try:
            parsed: M = model.model_validate(_with_nulls(model, raw))  # type: ignore[assignment]
        except ValidationError as err:
            raise ContractError(
                f"{where} does not match contract version {version}: "
                + "; ".join(_problem(e) for e in err.errors())
            ) from None
        return parsed

    def _member(self, where: str, raw: Mapping[str, Any]) -> tuple[type[BaseModel], str]:
        """The model `raw` is read as, and `where` naming its kind when it is a union's."""
        key = self.discriminator
        members = self.members
        if key is None:
            return members[self.export], where
        known = " or ".join(repr(t) for t in members)
        if key not in raw:
            raise ContractError(f"{where} lacks field `{key}` (this reader reads {key} {known})")
        tag = raw[key]
        if not isinstance(tag, str):
            raise ContractError(f"{where} has `{key}` of type {type(tag).__name__}, not {known}")
        if tag not in members:
            raise ContractError(
                f"{where} has {key} {tag!r}, which this reader does not know (it reads "
                f"{key} {known}): upgrade the gpu-ci this program imports"
            )
        return members[tag], f"{where} ({key} {tag!r})"


def _version(model: type[BaseModel]) -> int:
    default = model.model_fields["contractVersion"].default
    assert isinstance(default, int)
    return default


def _admits_none(annotation: Any) -> bool:
    return annotation is None or type(None) in get_args(annotation)


def _with_nulls(model: type[BaseModel], raw: Mapping[str, Any]) -> dict[str, Any]:
    """`raw` with each absent field that may be None set to None, in nested models too.

    The SDK drops null-valued keys when it deserializes a StackReference's outputs, so an
    optional field that the producer exported as None arrives absent.
    """
    out = dict(raw)
    for name, info in model.model_fields.items():
        if name not in out:
            if _admits_none(info.annotation):
                out[name] = None
        else:
            out[name] = _nested(info.annotation, out[name])
    return out


def _nested(annotation: Any, value: Any) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _with_nulls(annotation, value) if isinstance(value, Mapping) else value
    args = get_args(annotation)
    origin = get_origin(annotation)
    if origin is list and args and isinstance(value, list):
        return [_nested(args[0], v) for v in value]
    if origin is dict and len(args) == 2 and isinstance(value, Mapping):
        return {k: _nested(args[1], v) for k, v in value.items()}
    return value


def _problem(error: Any) -> str:
    """One validation error, without the value (an export may hold something sensitive)."""
    path = ".".join(str(p) for p in error["loc"])
    if error["type"] == "missing":
        return f"lacks field `{path}`"
    if error["type"] == "extra_forbidden":
        return f"has field `{path}`, which the contract does not define"
    return f"field `{path}`: {error['msg']}"


CAPACITY: Contract[VmCapacityOutputs | ArcCapacityOutputs] = Contract(
    "capacity", CapacityOutputs, "gpu-ci:capacity (vm or arc)"
)
HOST: Contract[HostOutputs] = Contract("host", HostOutputs, "gpu-ci:host")
CLUSTER: Contract[ClusterOutputs] = Contract("cluster", ClusterOutputs, "gpu-ci:cluster")
PLATFORM: Contract[PlatformOutputs] = Contract("platform", PlatformOutputs, "gpu-ci:platform")
COST: Contract[CostOutputs] = Contract("cost", CostOutputs, "gpu-ci:capacity (vm or arc)")
KUBECONFIG = "kubeconfig"


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
