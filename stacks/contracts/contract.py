"""A layer's export contract: its model, its version, and how an export is checked.

`Contract.parse` reads one export of a referenced stack against this checkout's model and
refuses, with a `ContractError` naming the stack, the export and the field or version, what
does not match. One `Contract` per layer export (`CAPACITY`, `HOST`, `CLUSTER`,
`PLATFORM`, `COST`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Generic, TypeVar, get_args, get_origin

import pulumi
from pydantic import BaseModel, ValidationError

from core.errors import GpuCiError
from stacks.outputs import (
    ArcCapacityOutputs,
    CapacityOutputs,
    ClusterOutputs,
    CostOutputs,
    HostOutputs,
    ObservabilityOutputs,
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
OBSERVABILITY: Contract[ObservabilityOutputs] = Contract(
    "observability", ObservabilityOutputs, "gpu-ci:observability"
)
KUBECONFIG = "kubeconfig"
