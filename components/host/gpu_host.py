"""GpuHost: the bootstrap steps of one host, each its own pulumi-command resource.

Steps run in order (each depends on the one before). A step's script travels on stdin,
ending with its chained digest (see `components/host/chain.py`), so a changed script or
pin re-runs that step and the ones after it in place (an update runs `create` again);
`triggers` hold only the machine's identity, so only a new machine replaces them. The
script is stored (and diffed) in state as an input.
Steps on the host go over SSH (`remote.Command`); on the `local` target, and for the
reboot wait, they run where `pulumi up` runs (`local.Command`).
"""

from __future__ import annotations

from typing import Any

import pulumi

from components.base import ComponentArgs, InputError, PulumiInput, child, upstream
from components.host.chain import REBOOT_WAIT, PlannedStep
from components.host.params.step import Step
from components.host.result import StepResult, StepResultError, parse_result
from components.host.step_command import step_command

REBOOT_DOWN_TIMEOUT = 300
REBOOT_UP_TIMEOUT = 900


class GpuHostArgs(ComponentArgs):
    connection: Any | None = None
    """`remote.ConnectionArgs`; None runs every step on the deployer (the `local` target)."""
    ssh_address: PulumiInput = None
    ssh_port: int = 22
    identity: PulumiInput
    """What names the machine (instance id, user@host:port): a new machine re-runs all."""
    steps: list[PlannedStep]
    access_step: PlannedStep | None = None
    """Runs after the first step, outside the chain (`authorized-keys`): what it changes
    re-runs only itself, never the driver and the steps after it."""


def _verify_result(stdout: str) -> StepResult:
    try:
        return parse_result(stdout, str(Step.VERIFY))
    except StepResultError as err:
        raise InputError(f"host step verify: {err}") from None


class GpuHost(pulumi.ComponentResource):
    """A GPU container host: driver, Docker, NVIDIA toolkit, kind tools, verified.

    `opts.depends_on` names what the first step waits for (the machine itself)."""

    host_name: str
    steps: dict[str, pulumi.CustomResource]
    last: pulumi.CustomResource
    driver_version: pulumi.Output[Any]
    gpus: pulumi.Output[Any]

    def __init__(
        self, name: str, args: GpuHostArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-ci:host:GpuHost", name, None, opts)
        self.host_name = name
        self.steps = {}
        previous: list[pulumi.Resource] = upstream(opts)
        for step in args.steps:
            resource = self._register(name, step, args, previous)
            self.steps[step.name] = resource
            if args.access_step is not None and len(self.steps) == 1:
                access = args.access_step
                self.steps[access.name] = self._register(name, access, args, [resource])
            previous = [resource]
        self.last = previous[0]  # type: ignore[assignment]
        verify = self.steps[str(Step.VERIFY)]
        result = verify.stdout.apply(_verify_result)  # type: ignore[attr-defined]
        self.driver_version = result.apply(lambda r: r.driverVersion)
        self.gpus = result.apply(lambda r: [g.model_dump() for g in r.gpus])
        self.register_outputs(
            {
                "driverVersion": self.driver_version,
                "gpus": self.gpus,
                "digests": {step.name: step.digest for step in args.steps},
            }
        )

    def _register(
        self,
        name: str,
        step: PlannedStep,
        args: GpuHostArgs,
        after: list[pulumi.Resource],
    ) -> pulumi.CustomResource:
        opts = child(self, depends_on=after)
        inputs: dict[str, Any] = {
            "create": step.command,
            "stdin": step.stdin,
            "triggers": [args.identity],
        }
        if step.name != REBOOT_WAIT:
            return step_command(f"{name}-{step.name}", args.connection, opts, **inputs)
        driver = self.steps[str(Step.NVIDIA_DRIVER)]
        environment = {
            "GPU_CI_HOST": args.ssh_address,
            "GPU_CI_PORT": str(args.ssh_port),
            "GPU_CI_DRIVER_RESULT": driver.stdout,  # type: ignore[attr-defined]
            "GPU_CI_DOWN_TIMEOUT": str(REBOOT_DOWN_TIMEOUT),
            "GPU_CI_UP_TIMEOUT": str(REBOOT_UP_TIMEOUT),
        }
        # Watches the host from the deployer: it reboots under an SSH session.
        return step_command(f"{name}-{step.name}", None, opts, environment=environment, **inputs)
