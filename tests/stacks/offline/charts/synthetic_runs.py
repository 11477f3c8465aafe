"""Small recorded runs, as the offline plan records them, for the chart checks to read
without planning a whole stack."""

from __future__ import annotations

from typing import Any

from stacks.offline.charts.release import PLATFORM_PARENT, RELEASE
from stacks.offline.engine.records import ProgramRun, Registration


def registration(
    type_: str, name: str, inputs: dict[str, Any], *, parent: str = "", source: str = ""
) -> Registration:
    """A custom resource `name` of `type_` with `inputs`, registered under `parent`."""
    return Registration(
        urn=f"urn:pulumi:t::gpu-ci::{type_}::{name}",
        type=type_,
        name=name,
        parent=parent,
        custom=True,
        dependencies=[],
        property_dependencies={},
        inputs=inputs,
        options={},
        source=source,
    )


def release(
    name: str, chart: str, version: str, values: dict[str, Any], **more: Any
) -> Registration:
    """A `helm.v3.Release` of `chart` at `version` named `name` (more inputs in `more`,
    `parent`/`source`/`resource` as the registration's)."""
    parent = more.pop("parent", "")
    source = more.pop("source", f"stacks/layers/{name}.py:10")
    resource = more.pop("resource", name)
    inputs = {"name": name, "chart": chart, "version": version, "values": values, **more}
    return registration(RELEASE, resource, inputs, parent=parent, source=source)


def platform_parent() -> Registration:
    """The component whose children are the recipe's releases."""
    reg = registration(PLATFORM_PARENT, "platform", {})
    reg.custom = False
    return reg


def program_run(
    stack: str, registrations: list[Registration], exports: dict[str, Any] | None = None
) -> ProgramRun:
    return ProgramRun("gpu-ci", stack, registrations, [], [], exports or {})
