"""The machine-readable result every step prints as its last stdout line.

Steps print progress on stderr and end stdout with one JSON object such as
`{"step":"verify","changed":false,"driverVersion":"570.172.08","gpus":[...]}`; the
caller (a pulumi-command resource) turns it into outputs with `parse_result`.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict

from core import read_json
from core.errors import GpuCiError
from core.read_limits import HOST_RESULT


class StepResultError(GpuCiError):
    """A step's stdout does not end with its result line."""


class Gpu(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    index: int
    name: str
    uuid: str


class StepResult(BaseModel):
    """Common members; step-specific ones (driverVersion, gpus, ...) are kept as extras."""

    model_config = ConfigDict(frozen=True, extra="allow")

    step: str
    changed: bool
    rebootRequired: bool = False
    rebootScheduled: bool = False
    driverVersion: str | None = None
    gpus: tuple[Gpu, ...] = ()


def parse_result(stdout: str, step: str | None = None) -> StepResult:
    """The result line at the end of `stdout`, checked to belong to `step` if given."""
    lines = [line for line in stdout.splitlines() if line.strip()]
    if not lines:
        raise StepResultError("step printed nothing on stdout; expected a JSON result line")
    try:  # the careful reader: a host's line nested thousands deep is one message too
        raw: Any = read_json.parse(lines[-1], name="the step's result line", limits=HOST_RESULT)
    except json.JSONDecodeError as err:
        raise StepResultError(f"last stdout line is not JSON: {lines[-1]!r}") from err
    except read_json.JsonRefusedError as err:
        raise StepResultError(str(err)) from None
    result = StepResult.model_validate(raw)
    if step is not None and result.step != step:
        raise StepResultError(f"result line belongs to step {result.step!r}, not {step!r}")
    return result
