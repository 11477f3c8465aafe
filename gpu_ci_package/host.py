"""GpuRunnerHost: a bootstrapped GPU host (OCI VMs, one SSH machine, or this one), and the
GitHub runner on it: the program's capacity and host layers, from any Pulumi language."""

from typing import Any, NotRequired, TypedDict

import pulumi

from gpu_ci_package.build import args_of, checked, context, register_layers, stack_inputs, top_level
from gpu_ci_package.inputs import HostInput, NetworkInput, RunnerInput, VmInput
from stacks.config import StackConfig
from stacks.config.views import stack_layers
from stacks.layers.host import machine_names

TYPE = "gpu-ci:index:GpuRunnerHost"


class GpuRunnerHostArgs(TypedDict):
    """The host, its runner and, for target `oci-vm`, the VMs: each a `gpu-ci:` stack key."""

    host: HostInput
    """Where the bootstrap steps run (target `oci-vm`, `ssh` or `local`) and what they
    install."""
    runner: NotRequired[RunnerInput]
    """Register each `oci-vm` or `ssh` host as a GitHub self-hosted runner."""
    vm: NotRequired[VmInput]
    """Target `oci-vm`: the GPU VMs this component creates."""
    network: NotRequired[NetworkInput]
    """Target `oci-vm`: the VMs' network."""
    compartmentId: NotRequired[str]
    """Target `oci-vm`: the compartment OCID of every OCI resource."""
    tenancyId: NotRequired[str]
    """Target `oci-vm`: the tenancy OCID, where the capacity reports that pick an
    availability domain are made (with several candidates)."""
    owner: NotRequired[str]
    """Target `oci-vm`: who pays, the `gpu-ci-owner` tag on every OCI resource."""


def runner_names(config: StackConfig) -> list[str]:
    """The runners' names, known at preview: the program's, from the project and stack."""
    hosts = stack_layers(config).host
    if hosts is None or config.runner is None:
        return []
    return [runner for _, runner in machine_names(hosts, context())]


def capacity_of(host: Any) -> str:
    """`vm` for a host of target `oci-vm` (the VMs come with it), else `none`."""
    return "vm" if isinstance(host, dict) and host.get("target") == "oci-vm" else "none"


class GpuRunnerHost(pulumi.ComponentResource):
    """A GPU container host bootstrapped step by step (driver, Docker, NVIDIA container
    toolkit, kind tools, verified), registered as a GitHub Actions runner when `runner` is
    given. Target `oci-vm` creates the VMs, their network and placement first."""

    host: pulumi.Output[dict[str, Any]]
    """The host export (contract v1): target, cdi, versions, each host's driver version
    and GPUs (as verified), each runner's name and labels."""
    runnerNames: pulumi.Output[list[str]]
    """The registered runners' names (none without `runner`)."""
    capacity: pulumi.Output[dict[str, Any] | None]
    """Target `oci-vm`: the VMs' export (shape, instance ids, IPs, subnet, NSG)."""
    cost: pulumi.Output[dict[str, Any] | None]
    """Target `oci-vm`: the monthly compute estimate, always-on against scale-to-zero."""

    def __init__(
        self, name: str, args: GpuRunnerHostArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        keys = args_of(TYPE, name, args, GpuRunnerHostArgs)
        inputs = stack_inputs(keys)
        inputs.values["capacity"] = capacity_of(inputs.values.get("host"))
        config = checked(TYPE, name, inputs, top_level)
        super().__init__(TYPE, name, None, opts)
        layers = register_layers(self, TYPE, name, config, inputs, top_level).layers
        self.host = pulumi.Output.from_input(layers["host"])
        self.runnerNames = pulumi.Output.from_input(runner_names(config))
        self.capacity = pulumi.Output.from_input(layers.get("capacity"))
        self.cost = pulumi.Output.from_input(layers.get("cost"))
        self.register_outputs(
            {
                "host": self.host,
                "runnerNames": self.runnerNames,
                "capacity": self.capacity,
                "cost": self.cost,
            }
        )
