"""The ordered host steps of one target, rendered, with chained triggers.

Pure Python (no Pulumi): which steps a target runs, each step's script and the versions
it installs, and its trigger. A step's trigger digests its own script and versions AND
the previous step's trigger, so changing one pin changes exactly that step's trigger and
those of the steps after it: a preview then shows which steps re-run, and nothing earlier.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Literal

from components.host.params import (
    CloudInitParams,
    ContainerToolkitParams,
    DockerParams,
    InotifyParams,
    NvidiaDriverParams,
    Step,
    StepParams,
    ToolkitConfigParams,
    ToolsParams,
    VerifyParams,
)
from components.host.pins import PINS, Arch, Artifact, Pins
from components.host.render import render_script
from stacks.config.host import HostConfig, HostVersions, ToolPin

REBOOT_WAIT = "reboot-wait"
"""The deployer-side step that waits out the driver's reboot (not a host script)."""

RUN_STDIN_SCRIPT = (
    'f="$(mktemp)" && cat >"$f" && { bash "$f" </dev/null; rc=$?; rm -f "$f"; exit "$rc"; }'
)
"""How a step's script, fed on stdin, runs: from a file, so that no command inside it can
read the rest of the script from stdin (as `bash -s` would allow)."""

RUN_STDIN_PYTHON = (
    'f="$(mktemp)" && cat >"$f" && { python3 "$f" </dev/null; rc=$?; rm -f "$f"; exit "$rc"; }'
)

Where = Literal["host", "deployer"]


@dataclass(frozen=True)
class PlannedStep:
    """One step as it will be registered."""

    name: str
    where: Where
    script: str
    command: str
    versions: dict[str, str] = field(default_factory=dict)
    trigger: str = ""

    @property
    def script_sha256(self) -> str:
        return hashlib.sha256(self.script.encode()).hexdigest()


def chain_trigger(previous: str, name: str, script_sha256: str, versions: dict[str, str]) -> str:
    """The digest of a step that follows `previous` (empty for the first step)."""
    text = json.dumps(
        {"after": previous, "step": name, "script": script_sha256, "versions": versions},
        sort_keys=True,
    )
    return hashlib.sha256(text.encode()).hexdigest()


def chained(steps: list[PlannedStep], after: str = "") -> list[PlannedStep]:
    """`steps` with their triggers filled in, each chained to the one before."""
    out = []
    previous = after
    for step in steps:
        trigger = chain_trigger(previous, step.name, step.script_sha256, step.versions)
        out.append(
            PlannedStep(step.name, step.where, step.script, step.command, step.versions, trigger)
        )
        previous = trigger
    return out


@cache
def reboot_wait_source() -> str:
    return resources.files("components.host").joinpath("scripts", "reboot-wait.py").read_text()


def host_pins(versions: HostVersions, arch: Arch = "amd64") -> Pins:
    """The project's pins with the stack's overrides applied (digests for `arch`)."""

    def artifact(base: Artifact, pin: ToolPin | None) -> Artifact:
        if pin is None:
            return base
        return base.model_copy(
            update={"version": pin.version, "sha256": {arch: pin.sha256}, "source": "stack config"}
        )

    return PINS.model_copy(
        update={
            "driver_branch": versions.driverBranch,
            "toolkit_version": versions.toolkit,
            "nvkind": PINS.nvkind.model_copy(
                update={"commit": versions.nvkind.commit, "commit_date": versions.nvkind.commitDate}
            ),
            "kind": artifact(PINS.kind, versions.kind),
            "kubectl": artifact(PINS.kubectl, versions.kubectl),
            "helm": artifact(PINS.helm, versions.helm),
        }
    )


def _host_step(
    step: Step, params: StepParams, versions: dict[str, str], where: Where
) -> PlannedStep:
    return PlannedStep(str(step), where, render_script(step, params), RUN_STDIN_SCRIPT, versions)


def tools_params(host: HostConfig) -> ToolsParams:
    """The tools step's downloads for the host's architecture."""
    nvkind = host.versions.nvkind
    binary = (
        (nvkind.binaryUrl, nvkind.binarySha256)
        if nvkind.binaryUrl is not None and nvkind.binarySha256 is not None
        else None
    )
    return ToolsParams.from_pins(
        host_pins(host.versions, host.arch), host.arch, nvkind_binary=binary
    )


def bootstrap_steps(host: HostConfig, *, expected_gpus: int = 0) -> list[PlannedStep]:
    """Every bootstrap step `host` runs, in order, with chained triggers."""
    where: Where = "deployer" if host.target == "local" else "host"
    versions = host.versions
    pins = host_pins(versions, host.arch)
    reboot = host.target != "local" and host.reboot
    docker_user = host.dockerUser or ("" if host.target == "local" else host.user)
    tools = tools_params(host)
    steps: list[PlannedStep] = []
    if host.target == "oci-vm":
        steps.append(_host_step(Step.CLOUD_INIT, CloudInitParams(), {}, where))
    steps.append(
        _host_step(
            Step.NVIDIA_DRIVER,
            NvidiaDriverParams(driver_package=pins.driver_package, reboot=reboot),
            {"driver": pins.driver_package},
            where,
        )
    )
    if reboot:
        steps.append(PlannedStep(REBOOT_WAIT, "deployer", reboot_wait_source(), RUN_STDIN_PYTHON))
    steps += [
        _host_step(Step.DOCKER, DockerParams(docker_user=docker_user), {}, where),
        _host_step(
            Step.CONTAINER_TOOLKIT,
            ContainerToolkitParams(toolkit_version=versions.toolkit),
            {"nvidia-container-toolkit": versions.toolkit},
            where,
        ),
        _host_step(
            Step.TOOLKIT_CONFIG,
            ToolkitConfigParams(cdi_enabled=host.cdi),
            {"cdi": "enabled" if host.cdi else "disabled"},
            where,
        ),
        _host_step(Step.INOTIFY, InotifyParams(), {}, where),
        _host_step(
            Step.TOOLS,
            tools,
            {
                "kind": pins.kind.version,
                "kubectl": pins.kubectl.version,
                "helm": pins.helm.version,
                "nvkind": versions.nvkind.commit,
                **({"go": pins.go.version} if tools.nvkind_source == "go" else {}),
            },
            where,
        ),
        _host_step(Step.VERIFY, VerifyParams(expected_gpus=expected_gpus), {}, where),
    ]
    return chained(steps)
