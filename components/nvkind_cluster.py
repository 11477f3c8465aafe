"""NvkindCluster: an nvkind GPU cluster on a bootstrapped host, and its Kubernetes provider.

The `nvkind-cluster` step creates (or adopts, or replaces) the cluster and returns its
kubeconfig in its result line, so that command's stdout is a secret and it logs nothing.
The host's address reaches the step at run time (`API_SERVER_ADDRESS`), since a VM's
public IP is only known after it exists; the API port is opened to `apiSourceCidrs` by the
network layer. `await_gpus` adds the host-side readiness wait, to be registered after the
platform has installed the device plugin.

The step's `update` is its `create`: when an upstream host step re-runs (its trigger is in
this one's chain), the idempotent create/adopt runs again in place and adopts the
unchanged cluster, rather than the replacement (delete, then a new cluster with a new CA)
that a trigger change would otherwise mean.
"""

from __future__ import annotations

import base64
import shlex
from typing import Any

import pulumi
import pulumi_command as command
import pulumi_kubernetes as k8s
from pydantic import Field

from components.base import ComponentArgs, InputError, PulumiInput, child
from components.cluster.kind_config import NvkindClusterSpec, render_kind_config
from components.host.chain import RUN_STDIN_SCRIPT, PlannedStep, chained
from components.host.params import (
    ClusterReadyParams,
    NvkindClusterDeleteParams,
    NvkindClusterParams,
    Step,
)
from components.host.render import render_script
from components.host.result import StepResultError, parse_result


class NvkindClusterArgs(ComponentArgs):
    spec: NvkindClusterSpec
    gpu_count: int | None = Field(None, ge=1)
    """GPUs on the host; None when unknown (nvkind then accepts any non-zero count)."""
    connection: Any | None = None
    """`remote.ConnectionArgs` of the host; None: the machine running `pulumi up`."""
    api_address: PulumiInput
    """Where the deployer reaches the API server (the VM's IP, or 127.0.0.1 locally)."""
    identity: PulumiInput
    after_trigger: str
    """The host's last bootstrap trigger: a re-bootstrapped host re-checks its cluster."""
    depends_on: list[pulumi.Resource] = Field(default_factory=list)


def layout_gpu_count(spec: NvkindClusterSpec, gpu_count: int | None) -> int:
    """The host GPU count the layout is rendered for: known, or enough for explicit lists.

    `all` needs no count and explicit index lists name their own; `one-per-gpu` on a host
    of unknown size is refused by config validation.
    """
    if gpu_count is not None:
        return gpu_count
    if isinstance(spec.gpus, str):
        return 1
    return max([i for worker in spec.gpus for i in worker], default=0) + 1


def cluster_params(spec: NvkindClusterSpec, gpu_count: int | None) -> NvkindClusterParams:
    return NvkindClusterParams(
        cluster_name=spec.name,
        kind_config=render_kind_config(spec, layout_gpu_count(spec, gpu_count)),
        node_image=spec.node_image,
        api_server_port=spec.apiServerPort,
        expected_gpus=gpu_count or 0,
    )


def _kubeconfig(stdout: str) -> str:
    try:
        result = parse_result(stdout, str(Step.NVKIND_CLUSTER))
    except StepResultError as err:
        raise InputError(f"host step nvkind-cluster: {err}") from None
    encoded = (result.model_extra or {}).get("kubeconfig")
    if not isinstance(encoded, str):
        raise InputError("host step nvkind-cluster: its result line has no kubeconfig")
    return base64.b64decode(encoded).decode()


def _run(
    connection: Any | None,
    name: str,
    opts: pulumi.ResourceOptions,
    *,
    quiet: bool,
    **args: Any,
) -> Any:
    """A command on the host; `quiet` ones (printing secrets) log nothing."""
    if connection is None:
        logging = command.local.Logging.NONE if quiet else None
        return command.local.Command(name, logging=logging, opts=opts, **args)
    remote_logging = command.remote.Logging.NONE if quiet else None
    return command.remote.Command(
        name, connection=connection, logging=remote_logging, opts=opts, **args
    )


class NvkindCluster(pulumi.ComponentResource):
    """A kind cluster with GPU workers; `provider` deploys onto it."""

    kubeconfig: pulumi.Output[str]
    provider: k8s.Provider
    step: pulumi.CustomResource

    def __init__(
        self, name: str, args: NvkindClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-ci:cluster:NvkindCluster", name, None, opts)
        self._args = args
        self._resource_name = name
        params = cluster_params(args.spec, args.gpu_count)
        script = render_script(Step.NVKIND_CLUSTER, params)
        (planned,) = chained(
            [
                PlannedStep(
                    str(Step.NVKIND_CLUSTER),
                    "host",
                    script,
                    RUN_STDIN_SCRIPT,
                    {"nodeImage": params.node_image},
                )
            ],
            after=args.after_trigger,
        )
        self._params = params
        delete = render_script(
            Step.NVKIND_CLUSTER_DELETE, NvkindClusterDeleteParams.for_cluster(params)
        )
        create = pulumi.Output.from_input(args.api_address).apply(
            lambda address: f"export API_SERVER_ADDRESS={shlex.quote(address)}; " + RUN_STDIN_SCRIPT
        )
        self.step = _run(
            args.connection,
            f"{name}-{planned.name}",
            child(
                self,
                depends_on=args.depends_on,
                delete_before_replace=True,
                additional_secret_outputs=["stdout", "stderr"],
            ),
            create=create,
            update=create,
            stdin=planned.script,
            delete=f"bash -c {shlex.quote(delete)}",
            triggers=[planned.trigger, args.identity],
            quiet=True,
        )
        self._trigger = planned.trigger
        self.kubeconfig = pulumi.Output.secret(
            self.step.stdout.apply(_kubeconfig)  # type: ignore[attr-defined]
        )
        self.provider = k8s.Provider(
            f"{name}-k8s",
            kubeconfig=self.kubeconfig,
            delete_unreachable=True,
            opts=child(self),
        )
        self.register_outputs(
            {
                "clusterName": args.spec.name,
                "nodeImage": args.spec.node_image,
                "gpuCount": args.gpu_count,
                "kubeconfig": self.kubeconfig,
            }
        )

    def await_gpus(self, after: list[pulumi.Resource], timeout_seconds: int = 600) -> Any:
        """The host-side wait for Ready nodes and allocatable GPUs, after `after`."""
        params = ClusterReadyParams.for_cluster(
            self._params,
            expected_gpus=self._args.gpu_count or 1,
            timeout_seconds=timeout_seconds,
        )
        script = render_script(Step.CLUSTER_READY, params)
        (planned,) = chained(
            [PlannedStep(str(Step.CLUSTER_READY), "host", script, RUN_STDIN_SCRIPT)],
            after=self._trigger,
        )
        return _run(
            self._args.connection,
            f"{self._resource_name}-{planned.name}",
            child(self, depends_on=[self.step, *after]),
            quiet=False,
            create=planned.command,
            stdin=planned.script,
            triggers=[planned.trigger, self._args.identity],
        )
