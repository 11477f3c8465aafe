"""Graph assembly of the host layer: one GpuHost per machine, then its runner.

`oci-vm` bootstraps every VM of the capacity layer (each host depends on its VM); `ssh`
and `local` bootstrap one machine. Compatibility warnings (combinations the model has no
data about) are logged here; known-bad combinations already failed config validation.
`prepare_hosts` builds every step and runner beforehand (`stacks.compose.prepare`); the layer
registers exactly those.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pulumi

from components.host.chain import PlannedStep, authorized_keys_step, bootstrap_steps, host_pins
from components.host.config.compat import Report, check
from components.host.config.host import HostConfig, SshHost
from components.host.config.runner import RunnerConfig
from components.host.config.versions import combination
from components.host.connection import ssh_connection, ssh_proxy
from components.host.github_runner import GithubRunner, GithubRunnerArgs, runner_steps
from components.host.gpu_host import GpuHost, GpuHostArgs
from components.host.params.runner import (
    RUNNER_NAME_MAX,
    GithubAppKeyParams,
    GithubRunnerParams,
    GithubRunnerRemoveParams,
    shape_runner_label,
)
from components.host.params.step import Step
from components.host.render import render_script
from components.oci.shapes import GPU_SHAPES
from stacks.config.param_keys import AUTHORIZED_KEYS, HOST_KEYS, RUNNER_KEYS
from stacks.config.param_problems import ParamCheck, ParamKeys
from stacks.config.stack import NAMESPACE
from stacks.config.views import HostLayerConfig, VmHosts
from stacks.context import StackContext
from stacks.outputs import Export, host_outputs

if TYPE_CHECKING:  # pulumi-oci loads only when the stack has VMs
    from components.oci.gpu_instance import OciGpuInstance


@dataclass(frozen=True)
class Machine:
    """A bootstrapped host, as later layers (the cluster) reach it."""

    host: GpuHost
    args: GpuHostArgs
    api_address: Any
    """Where the deployer reaches services on it (public or private IP, or 127.0.0.1)."""
    gpu_count: int | None
    """GPUs on the host: from the VM shape, or `gpu-ci:host.gpus`; None when unknown."""


@dataclass(frozen=True)
class HostLayer:
    outputs: Export
    machines: list[Machine]


@dataclass(frozen=True)
class PreparedHosts:
    """Every host's steps and runner, built from the config before anything registers."""

    config: HostLayerConfig
    steps: list[PlannedStep]
    access_step: PlannedStep | None
    names: list[tuple[str, str]]
    """Per machine: its resource name (`host-0`) and its runner's name."""
    runners: list[GithubRunnerParams]
    """Per machine, when the stack registers runners; else empty."""
    key: GithubAppKeyParams
    gpus: int | None


def host_gpus(layer: HostLayerConfig) -> int | None:
    """GPUs on each host: from the VM shape, or `gpu-ci:host.gpus`; None when unknown."""
    target = layer.target
    if isinstance(target, VmHosts):
        shape = GPU_SHAPES.get(target.vm.shape)
        return shape.gpuCount if shape else None
    return target.gpus


def machine_names(layer: HostLayerConfig, ctx: StackContext) -> list[tuple[str, str]]:
    """(resource name, runner name) of each machine the host layer bootstraps."""
    target = layer.target
    if isinstance(target, VmHosts):
        base = f"{ctx.project}-{ctx.stack}-gpu-"
        return [(f"host-{index}", f"{base}{index}") for index in range(target.vm.count)]
    if isinstance(target, SshHost):
        return [("host", f"{ctx.project}-{ctx.stack}-host")]
    return [("host", "")]


def prepare_hosts(
    layer: HostLayerConfig, ctx: StackContext, check: ParamCheck
) -> PreparedHosts | None:
    """Each host step's and runner's parameters, rendered; None if any was refused (the
    problems are in `check`, at the keys they came from)."""
    host, target = layer.host, layer.target
    before = len(check.problems)
    steps = check.build(HOST_KEYS, bootstrap_steps, host, expected_gpus=host_gpus(layer) or 0)
    access = None
    if isinstance(target, VmHosts):
        keys = list(target.vm.sshAuthorizedKeys)
        access = check.build(AUTHORIZED_KEYS, authorized_keys_step, target.host.user, keys)
    names = machine_names(layer, ctx)
    key = GithubAppKeyParams()
    runners: list[GithubRunnerParams] = []
    if layer.runner is not None:
        keys_of = _runner_keys(layer, layer.runner, ctx)
        for _, runner_name in names:
            params = check.build(keys_of, _runner_params, layer, layer.runner, runner_name)
            if params is None:
                break  # the next names are longer still: one problem says it
            runners.append(params)
    if steps is None or len(check.problems) > before:
        return None
    return PreparedHosts(layer, steps, access, names, runners, key, host_gpus(layer))


def _runner_keys(layer: HostLayerConfig, runner: RunnerConfig, ctx: StackContext) -> ParamKeys:
    """RUNNER_KEYS, with how to fix a runner name (it is made of the project and stack)."""
    longest = max(len(runner_name) for _, runner_name in machine_names(layer, ctx))
    room = max(RUNNER_NAME_MAX - (longest - len(ctx.stack)), 1)
    suffix = "-gpu-N" if isinstance(layer.target, VmHosts) else "-host"
    labels = RUNNER_KEYS.fields["runner_labels"]
    if runner.labels is None:
        labels = f"{NAMESPACE}:vm.shape"  # the default label derives from it
    return ParamKeys(
        RUNNER_KEYS.default,
        {**RUNNER_KEYS.fields, "runner_labels": labels},
        {
            "runner_name": f"runners are named {ctx.project}-<stack>{suffix} after the "
            f"Pulumi project and stack: use a stack name of at most {room} characters"
        },
    )


def _runner_params(
    layer: HostLayerConfig, runner: RunnerConfig, runner_name: str
) -> GithubRunnerParams:
    """One machine's runner, with its removal and its rendered steps checked too."""
    host, target = layer.host, layer.target
    # Validation makes labels explicit for every host that is not a VM of this stack.
    shape = target.vm.shape if isinstance(target, VmHosts) else ""
    labels = runner.labels or [shape_runner_label(shape)]
    params = GithubRunnerParams.from_pins(
        host_pins(host.versions, host.arch),
        host.arch,
        github_url=runner.url,
        app_id=runner.githubApp.appId,
        installation_id=runner.githubApp.installationId,
        runner_name=runner_name,
        runner_labels=tuple(labels),
        runner_group=runner.group,
        ephemeral=runner.ephemeral,
        job_root=runner.jobRoot,
    )
    runner_steps(params, GithubAppKeyParams())  # both scripts render
    render_script(Step.GITHUB_RUNNER_REMOVE, GithubRunnerRemoveParams.for_runner(params))
    return params


def build_host_layer(
    prepared: PreparedHosts,
    instances: Sequence[OciGpuInstance],
    compatibility: Report | None = None,
) -> HostLayer:
    """`instances`: the capacity layer's VMs, which an `oci-vm` host bootstraps (else none).
    `compatibility`: the host checked with the recipe's GPU software (`prepare`), when
    this stack deploys both; else the host is checked alone."""
    host, target = prepared.config.host, prepared.config.target
    report = compatibility or check(combination(host.versions, cdi=host.cdi))
    for finding in report.warnings:
        pulumi.log.warn(f"gpu-ci:host.versions: {finding}")
    names = [name for name, _ in prepared.names]
    machines: list[GpuHostArgs] = []  # one per name
    waits: list[list[pulumi.Resource]] = []  # per machine: what its first step waits for
    gpus = prepared.gpus
    steps, access = prepared.steps, prepared.access_step
    if isinstance(target, VmHosts):
        for instance in instances:  # one per name: the zip below is strict
            address = instance.public_ip if target.vm.assignPublicIp else instance.private_ip
            args = GpuHostArgs(
                connection=ssh_connection(
                    address=address, user=target.host.user, private_key=target.host.privateKey
                ),
                ssh_address=address,
                identity=instance.instance_id,
                steps=steps,
                access_step=access,
            )
            machines.append(args)
            waits.append([instance])
    elif isinstance(target, SshHost):
        machines.append(_ssh_host_args(target, steps))
        waits.append([])
    else:
        machines.append(_local_host_args(steps))
        waits.append([])
    hosts = [
        GpuHost(name, args, pulumi.ResourceOptions(depends_on=after))
        for name, args, after in zip(names, machines, waits, strict=True)
    ]
    runners = []
    runner = prepared.config.runner
    if runner is not None:
        for name, args, gpu_host, params in zip(
            names, machines, hosts, prepared.runners, strict=True
        ):
            runners.append(_runner(runner, name, args, params, prepared.key, gpu_host))
    return HostLayer(
        host_outputs(host=host, hosts=hosts, runners=runners),
        [
            Machine(gpu_host, args, _api_address(args, host), gpus)
            for args, gpu_host in zip(machines, hosts, strict=True)
        ],
    )


def _api_address(args: GpuHostArgs, host: HostConfig) -> Any:
    return "127.0.0.1" if host.target == "local" else args.ssh_address


def _runner(
    runner: RunnerConfig,
    name: str,
    args: GpuHostArgs,
    params: GithubRunnerParams,
    key: GithubAppKeyParams,
    gpu_host: GpuHost,
) -> GithubRunner:
    return GithubRunner(
        f"{name}-runner",
        GithubRunnerArgs(
            connection=args.connection,
            identity=args.identity,
            runner=params,
            key=key,
            app_private_key=runner.githubApp.privateKey,
        ),
        pulumi.ResourceOptions(depends_on=[gpu_host.last]),
    )


def _ssh_host_args(host: SshHost, steps: list[PlannedStep]) -> GpuHostArgs:
    proxy = (
        ssh_proxy(
            address=host.proxy.address,
            user=host.proxy.user,
            port=host.proxy.port,
            private_key=host.proxy.privateKey,
            host_key=host.proxy.hostKey,
        )
        if host.proxy is not None
        else None
    )
    if host.hostKey is None:
        pulumi.log.warn(
            f"gpu-ci:host.hostKey is not set: the connection to {host.address} accepts any "
            "host key; pin it (cat /etc/ssh/ssh_host_ed25519_key.pub on the host)"
        )
    return GpuHostArgs(
        connection=ssh_connection(
            address=host.address,
            user=host.user,
            port=host.port,
            private_key=host.privateKey,
            host_key=host.hostKey,
            proxy=proxy,
        ),
        ssh_address=host.address,
        ssh_port=host.port,
        identity=f"{host.user}@{host.address}:{host.port}",
        steps=steps,
    )


def _local_host_args(steps: list[PlannedStep]) -> GpuHostArgs:
    return GpuHostArgs(connection=None, identity="local", steps=steps)
