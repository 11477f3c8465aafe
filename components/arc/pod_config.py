"""What config says about where ARC's pods run and what they get: tolerations, node taints,
container resources.

Config only: the pod specs that carry them are rendered by `components.arc.pod_spec`.
"""

from __future__ import annotations

from typing import Literal, Self

from pydantic import Field, field_validator, model_validator

from components.arc.k8s_types import Quantity, is_label_value, is_qualified_name
from components.config_base import ConfigModel


class Toleration(ConfigModel):
    """A pod toleration, as in a PodSpec."""

    key: str | None = Field(None, description="the taint key (required with `Equal`)")
    operator: Literal["Exists", "Equal"] = Field(
        "Equal", description="`Equal`: the taint has `value`; `Exists`: any value"
    )
    value: str | None = Field(None, description="the taint value, with `Equal`")
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] | None = Field(
        None, description="default: every effect; the effect tolerated"
    )
    tolerationSeconds: int | None = Field(
        default=None, ge=0, description="`NoExecute`: how long the pod stays after the taint"
    )

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.operator == "Exists" and self.value is not None:
            raise ValueError("operator 'Exists' matches any value; remove value")
        if self.operator == "Equal" and self.key is None:
            raise ValueError("operator 'Equal' needs a key (or use operator 'Exists')")
        return self


def _taint_key(key: str) -> str:
    if not is_qualified_name(key):
        raise ValueError(
            f"{key!r} is not a Kubernetes taint key: an optional DNS-subdomain prefix and '/' "
            "(like nvidia.com/), then a name of 1-63 letters, digits, '-', '_' or '.' that "
            "starts and ends with a letter or digit"
        )
    return key


def _taint_value(value: str) -> str:
    if not is_label_value(value):
        raise ValueError(
            f"{value!r} is not a Kubernetes taint value: empty, or 1-63 letters, digits, "
            "'-', '_' or '.' that start and end with a letter or digit"
        )
    return value


class Taint(ConfigModel):
    """A node taint; pods need a matching toleration to run on the pool.

    Key, value and effect are checked exactly as Kubernetes checks a node's taints, so the
    GPU pool's init script (`--register-with-taints`) only ever carries such characters.
    """

    key: str = Field(description="the taint key, e.g. `nvidia.com/gpu`")
    value: str = Field("", description="the taint value")
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] = Field(
        "NoSchedule", description="what the taint does to pods without a toleration"
    )

    @field_validator("key")
    @classmethod
    def _key(cls, key: str) -> str:
        return _taint_key(key)

    @field_validator("value")
    @classmethod
    def _value(cls, value: str) -> str:
        return _taint_value(value)

    def toleration(self) -> Toleration:
        return Toleration(key=self.key, operator="Exists", effect=self.effect)


class ResourceList(ConfigModel):
    cpu: Quantity | None = Field(None, description="CPU, e.g. `500m` or `2`")
    memory: Quantity | None = Field(None, description="memory, e.g. `512Mi`")


class Resources(ConfigModel):
    """Container requests and limits."""

    requests: ResourceList | None = Field(None, description="what the container is given")
    limits: ResourceList | None = Field(None, description="the most it may use")
