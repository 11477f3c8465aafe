"""The ordered host steps of one target, rendered, with chained digests.

Pure Python (no Pulumi): which steps a target runs, each step's script and the versions
it installs, and its digest. A step's digest covers its own script and versions AND the
previous step's digest, so changing one pin changes exactly that step's digest and those
of the steps after it.

The digest travels in the step's stdin (a comment line after the script), not in its
`triggers`: pulumi-command *replaces* a command whose triggers change (and runs its delete
first where it has one), but *updates* one whose stdin changes, which runs `update` if
given, else `create` again, in place. So a pin bump re-runs that step and the ones after it,
idempotently, and replaces nothing; `triggers` hold only what must replace a step: a new
machine (its identity), or for the cluster what defines the cluster.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Literal

from components.host.config.host import HostConfig
from components.host.config.versions import HostVersions, ToolPin
from components.host.params.bootstrap import (
    AuthorizedKeysParams,
    CloudInitParams,
    ContainerToolkitParams,
    DockerParams,
    InotifyParams,
    NvidiaDriverParams,
    ToolkitConfigParams,
    ToolsParams,
    VerifyParams,
)
from components.host.params.step import Step, StepParams
from components.host.render import render_script
from components.pins import PINS, Arch, Artifact, Pins

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


CHAIN_PREFIX = "# gpu-ci chain "
"""How a step's stdin ends: a comment (bash and Python alike) with the step's digest."""


@dataclass(frozen=True)
class PlannedStep:
    """One step as it will be registered."""

    name: str
    where: Where
    script: str
    command: str
    versions: dict[str, str] = field(default_factory=dict)
    digest: str = ""
    """This step's place in the chain: its script, its versions and everything before it."""

    @property
    def script_sha256(self) -> str:
        return hashlib.sha256(self.script.encode()).hexdigest()

    @property
    def stdin(self) -> str:
        """What the step is fed: its script, then its digest as a comment, so that a change
        before it in the chain changes its stdin (an in-place re-run), not its triggers."""
        if not self.digest:
            return self.script
        return f"{self.script.rstrip(chr(10))}\n{CHAIN_PREFIX}{self.digest}\n"


def chain_digest(previous: str, name: str, script_sha256: str, versions: dict[str, str]) -> str:
    """The digest of a step that follows `previous` (empty for the first step)."""
    text = json.dumps(
        {"after": previous, "step": name, "script": script_sha256, "versions": versions},
        sort_keys=True,
    )
    return hashlib.sha256(text.encode()).hexdigest()


def chained(steps: list[PlannedStep], after: str = "") -> list[PlannedStep]:
    """`steps` with their digests filled in, each chained to the one before."""
    out = []
    previous = after
    for step in steps:
        digest = chain_digest(previous, step.name, step.script_sha256, step.versions)
        out.append(
            PlannedStep(step.name, step.where, step.script, step.command, step.versions, digest)
        )
        previous = digest
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


def authorized_keys_step(user: str, keys: list[str]) -> PlannedStep | None:
    """The step that keeps a VM's SSH keys current (None without keys). Not chained: keys
    change without re-running the driver and the steps after it."""
    if not keys:
        return None
    params = AuthorizedKeysParams(user=user, keys=tuple(keys))
    return _host_step(Step.AUTHORIZED_KEYS, params, {}, "host")


def bootstrap_steps(host: HostConfig, *, expected_gpus: int = 0) -> list[PlannedStep]:
    """Every bootstrap step `host` runs, in order, with chained digests."""
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
