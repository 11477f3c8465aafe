"""Graph assembly of the host layer: one GpuHost per machine, then its runner.

`oci-vm` bootstraps every VM of the capacity layer (each host depends on its VM); `ssh`
and `local` bootstrap one machine. Compatibility warnings (combinations the model has no
data about) are logged here; known-bad combinations already failed config validation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi

from components.github_runner import GithubRunner, GithubRunnerArgs
from components.gpu_host import GpuHost, GpuHostArgs
from components.host.chain import authorized_keys_step, bootstrap_steps, host_pins
from components.host.compat import check
from components.host.connection import ssh_connection, ssh_proxy
from components.host.params import GithubAppKeyParams, GithubRunnerParams, shape_runner_label
from stacks.config import StackConfig
from stacks.config.host import HostConfig, LocalHost, OciVmHost, SshHost, combination
from stacks.config.runner import RunnerConfig
from stacks.graph import StackContext
from stacks.outputs import host_outputs
from stacks.shapes import GPU_SHAPES


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
    outputs: Any
    machines: list[Machine]


def build_host_layer(cfg: StackConfig, ctx: StackContext, capacity: Any) -> HostLayer:
    host = cfg.host
    assert host is not None
    _warn_unknown_combination(host)
    machines: list[tuple[str, GpuHostArgs, str]] = []  # (name, args, runner name)
    gpus: int | None = None if isinstance(host, OciVmHost) else host.gpus
    if isinstance(host, OciVmHost):
        assert cfg.vm is not None and capacity is not None  # guaranteed by validation
        shape = GPU_SHAPES.get(cfg.vm.shape)
        gpus = shape.gpuCount if shape else None
        steps = bootstrap_steps(host, expected_gpus=gpus or 0)
        access = authorized_keys_step(host.user, list(cfg.vm.sshAuthorizedKeys))
        for index, instance in enumerate(capacity.instances):
            address = instance.public_ip if cfg.vm.assignPublicIp else instance.private_ip
            args = GpuHostArgs(
                connection=ssh_connection(
                    address=address, user=host.user, private_key=host.privateKey
                ),
                ssh_address=address,
                identity=instance.instance_id,
                steps=steps,
                access_step=access,
                depends_on=[instance],
            )
            machines.append((f"host-{index}", args, f"{ctx.project}-{ctx.stack}-gpu-{index}"))
    elif isinstance(host, SshHost):
        machines.append(("host", _ssh_host_args(host), f"{ctx.project}-{ctx.stack}-host"))
    else:
        machines.append(("host", _local_host_args(host), ""))
    hosts = [GpuHost(name, args) for name, args, _ in machines]
    runners = []
    if cfg.runner is not None:
        # Validation makes labels explicit for every host that is not a VM of this stack.
        labels = cfg.runner.labels or [shape_runner_label(cfg.vm.shape if cfg.vm else "")]
        for (name, args, runner_name), gpu_host in zip(machines, hosts, strict=True):
            runners.append(_runner(cfg.runner, host, name, args, runner_name, labels, gpu_host))
    return HostLayer(
        host_outputs(host=host, hosts=hosts, runners=runners),
        [
            Machine(gpu_host, args, _api_address(args, host), gpus)
            for (_, args, _), gpu_host in zip(machines, hosts, strict=True)
        ],
    )


def _api_address(args: GpuHostArgs, host: HostConfig) -> Any:
    return "127.0.0.1" if host.target == "local" else args.ssh_address


def _runner(
    runner: RunnerConfig,
    host: HostConfig,
    name: str,
    args: GpuHostArgs,
    runner_name: str,
    labels: list[str],
    gpu_host: GpuHost,
) -> GithubRunner:
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
    )
    return GithubRunner(
        f"{name}-runner",
        GithubRunnerArgs(
            connection=args.connection,
            identity=args.identity,
            runner=params,
            key=GithubAppKeyParams(),
            app_private_key=runner.githubApp.privateKey,
            depends_on=[gpu_host.last],
        ),
    )


def _ssh_host_args(host: SshHost) -> GpuHostArgs:
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
        steps=bootstrap_steps(host, expected_gpus=host.gpus or 0),
    )


def _local_host_args(host: LocalHost) -> GpuHostArgs:
    return GpuHostArgs(
        connection=None, identity="local", steps=bootstrap_steps(host, expected_gpus=host.gpus or 0)
    )


def _warn_unknown_combination(host: HostConfig) -> None:
    for finding in check(combination(host.versions, cdi=host.cdi)).warnings:
        pulumi.log.warn(f"gpu-ci:host.versions: {finding}")
