"""The small catalog types every format shares: constraints and expected resources."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Constraint(BaseModel):
    """A measured fact the target must satisfy, e.g. ``K8s.server.version >= 1.30``.

    `severity` is free text, as in AICR (`error`, `warning`, ...)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    value: str
    severity: str | None = None
    remediation: str | None = None
    unit: str | None = None


class ExpectedResource(BaseModel):
    """A Kubernetes object that must exist once a component is deployed."""

    model_config = ConfigDict(extra="forbid")

    kind: str
    name: str
    namespace: str | None = None
