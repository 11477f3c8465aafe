"""ClusterReady: the host-side wait for Ready nodes and allocatable GPUs on an nvkind cluster.

GPUs become allocatable only once the platform installed the device plugin (the GPU
operator), so the platform layer owns this wait and runs it after its releases; the
cluster component stays finished when it returns. The step re-runs in place whenever the
cluster or a host step before it changed: its stdin carries the digest chained after the
cluster's create step, and its triggers hold only the machine's identity.

Until December 2026 the step was a child of the cluster (`NvkindCluster.await_gpus`); the
alias keeps that resource, so a deployed stack updates nothing for the move.
"""

from __future__ import annotations

import pulumi
from pydantic import Field

from components.base import ComponentArgs, child, upstream
from components.cluster.nvkind import NvkindCluster
from components.host.chain import RUN_STDIN_SCRIPT, PlannedStep, chained
from components.host.params.cluster import ClusterReadyParams
from components.host.params.step import Step
from components.host.render import render_script
from components.host.step_command import step_command

DEFAULT_TIMEOUT_SECONDS = 600


class ClusterReadyArgs(ComponentArgs):
    cluster: NvkindCluster
    timeout_seconds: int = DEFAULT_TIMEOUT_SECONDS
    expected_gpus: int | None = Field(None, ge=1)
    """The GPUs to wait for (the layout's); default: the host's count, else any."""


class ClusterReady(pulumi.ComponentResource):
    """Waits, on the cluster's host, until every node is Ready and the GPUs are allocatable;
    `opts.depends_on` names what must be installed first (the device plugin's release).

    Give it the cluster's name: its step is `NAME-cluster-ready`, as it was under the
    cluster."""

    step: pulumi.CustomResource

    def __init__(
        self, name: str, args: ClusterReadyArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-ci:cluster:ClusterReady", name, None, opts)
        cluster = args.cluster
        params = ClusterReadyParams.for_cluster(
            cluster.params,
            expected_gpus=args.expected_gpus or cluster.gpu_count or 1,
            timeout_seconds=args.timeout_seconds,
        )
        script = render_script(Step.CLUSTER_READY, params)
        (planned,) = chained(
            [PlannedStep(str(Step.CLUSTER_READY), "host", script, RUN_STDIN_SCRIPT)],
            after=cluster.digest,
        )
        self.step = step_command(
            f"{name}-{planned.name}",
            cluster.connection,
            child(
                self,
                depends_on=[cluster.step, cluster.kubeconfig_step, *upstream(opts)],
                aliases=[pulumi.Alias(parent=cluster)],
            ),
            create=planned.command,
            stdin=planned.stdin,
            triggers=[cluster.identity],
        )
        self.register_outputs({"expectedGpus": params.expected_gpus})
