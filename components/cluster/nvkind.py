"""NvkindCluster: an nvkind GPU cluster on a bootstrapped host, and its Kubernetes provider.

Two host commands, each changed only by what must change it:
- `nvkind-cluster` creates (or adopts) the cluster. Its `triggers` are the machine and what
  defines the cluster (`cluster_digest`: name, node image, kind config, API port, the kind
  and nvkind pins): a change of those replaces it on purpose (its delete runs first:
  `kind delete cluster`), and the preview says so. Anything else (a host pin bump before
  it in the chain, a new version of its script) reaches it through its stdin: an update,
  which runs the idempotent create/adopt again in place and adopts the unchanged cluster.
- `cluster-kubeconfig` reads the cluster's kubeconfig (with the host's address as server).
  Its triggers are the same `cluster_digest` and the machine, and a new version of its
  script is ignored, so it is replaced exactly when the cluster is, and untouched
  otherwise. An updated pulumi-command resource has unknown outputs at preview (every
  output depends on every input), and pulumi-kubernetes replaces its provider, and
  everything on the cluster, when the kubeconfig is unknown; a kubeconfig taken from a
  step that re-runs on routine changes would show that on every pin bump. Taken from this
  one, the releases are replaced with the cluster and only then. (Its connection is not
  ignored: a new machine must be reached at its new address. Rotating `host.privateKey`
  updates it, so that preview shows the platform replaced; the `up` itself then reads
  the same kubeconfig and replaces nothing.)
The wait for Ready nodes and allocatable GPUs (`components/cluster/ready.py`) belongs to
the platform layer, which installs the device plugin it waits for.

The kubeconfig is a secret: those steps log nothing and mark their stdout secret, and none
gets its previous stdout in its environment (`add_previous_output_in_env=False`). The
host's address reaches them at run time (`API_SERVER_ADDRESS`), since a VM's public IP is
only known after it exists; the API port is opened to `apiSourceCidrs` by the network layer.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shlex
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from pydantic import Field

from components.base import ComponentArgs, InputError, PulumiInput, child, upstream
from components.cluster.cluster_config import NvkindClusterSpec
from components.cluster.kind_config import render_kind_config
from components.host.chain import RUN_STDIN_SCRIPT, PlannedStep, chained
from components.host.params.cluster import (
    ClusterKubeconfigParams,
    NvkindClusterDeleteParams,
    NvkindClusterParams,
)
from components.host.params.step import Step
from components.host.render import render_script
from components.host.result import StepResultError, parse_result
from components.host.step_command import step_command


class NvkindClusterArgs(ComponentArgs):
    spec: NvkindClusterSpec
    params: NvkindClusterParams
    """`cluster_params(spec, gpu_count)`, built (and checked) before anything registers."""
    gpu_count: int | None = Field(None, ge=1)
    """GPUs on the host; None when unknown (nvkind then accepts any non-zero count)."""
    connection: Any | None = None
    """`remote.ConnectionArgs` of the host; None: the machine running `pulumi up`."""
    api_address: PulumiInput
    """Where the deployer reaches the API server (the VM's IP, or 127.0.0.1 locally)."""
    identity: PulumiInput
    after_digest: str
    """The host's last bootstrap digest: a re-bootstrapped host re-checks its cluster."""
    tool_pins: dict[str, str] = Field(default_factory=dict)
    """The kind and nvkind versions the cluster is made with: a bump replaces it."""


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


def cluster_digest(params: NvkindClusterParams, tool_pins: dict[str, str]) -> str:
    """What defines the cluster: a change of any of it means a new cluster."""
    text = json.dumps(
        {
            "name": params.cluster_name,
            "nodeImage": params.node_image,
            "kindConfig": params.kind_config,
            "apiServerPort": params.api_server_port,
            "tools": tool_pins,
        },
        sort_keys=True,
    )
    return hashlib.sha256(text.encode()).hexdigest()


def _kubeconfig(stdout: str) -> str:
    step = str(Step.CLUSTER_KUBECONFIG)
    try:
        result = parse_result(stdout, step)
    except StepResultError as err:
        raise InputError(f"host step {step}: {err}") from None
    encoded = (result.model_extra or {}).get("kubeconfig")
    if not isinstance(encoded, str):
        raise InputError(f"host step {step}: its result line has no kubeconfig")
    return base64.b64decode(encoded).decode()


class NvkindCluster(pulumi.ComponentResource):
    """A kind cluster with GPU workers; `provider` deploys onto it.

    `opts.depends_on` names what the create step waits for (the host's last step)."""

    kubeconfig: pulumi.Output[str]
    provider: k8s.Provider
    step: pulumi.CustomResource
    kubeconfig_step: pulumi.CustomResource
    params: NvkindClusterParams
    digest: str
    """The create step's chained digest: what the readiness wait re-runs after."""
    connection: Any | None
    identity: PulumiInput
    gpu_count: int | None

    def __init__(
        self, name: str, args: NvkindClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-ci:cluster:NvkindCluster", name, None, opts)
        params = args.params
        script = render_script(Step.NVKIND_CLUSTER, params)
        (planned,) = chained(
            [
                PlannedStep(
                    str(Step.NVKIND_CLUSTER),
                    "host",
                    script,
                    RUN_STDIN_SCRIPT,
                    {"nodeImage": params.node_image, **args.tool_pins},
                )
            ],
            after=args.after_digest,
        )
        self.params = params
        self.digest = planned.digest
        self.connection = args.connection
        self.identity = args.identity
        self.gpu_count = args.gpu_count
        defines = cluster_digest(params, args.tool_pins)
        delete = render_script(
            Step.NVKIND_CLUSTER_DELETE, NvkindClusterDeleteParams.for_cluster(params)
        )
        create = pulumi.Output.from_input(args.api_address).apply(
            lambda address: f"export API_SERVER_ADDRESS={shlex.quote(address)}; " + RUN_STDIN_SCRIPT
        )
        self.step = step_command(
            f"{name}-{planned.name}",
            args.connection,
            child(
                self,
                depends_on=upstream(opts),
                delete_before_replace=True,
                additional_secret_outputs=["stdout", "stderr"],
            ),
            create=create,
            update=create,
            stdin=planned.stdin,
            delete=f"bash -c {shlex.quote(delete)}",
            triggers=[defines, args.identity],
            quiet=True,
        )
        read = render_script(Step.CLUSTER_KUBECONFIG, ClusterKubeconfigParams.for_cluster(params))
        self.kubeconfig_step = step_command(
            f"{name}-{Step.CLUSTER_KUBECONFIG}",
            args.connection,
            child(
                self,
                depends_on=[self.step],
                additional_secret_outputs=["stdout", "stderr"],
                # A new version of the reader (lib.sh is in every script) must not update
                # it: an updated command's stdout is unknown at preview, which
                # pulumi-kubernetes reads as a new cluster. It runs again, with the script
                # of its time, when the cluster or the machine is replaced.
                ignore_changes=["stdin"],
            ),
            create=create,
            stdin=read,
            triggers=[defines, args.identity],
            quiet=True,
        )
        self.kubeconfig = pulumi.Output.secret(
            self.kubeconfig_step.stdout.apply(_kubeconfig)  # type: ignore[attr-defined]
        )
        self.provider = k8s.Provider(
            f"{name}-k8s",
            kubeconfig=self.kubeconfig,
            # This stack's own cluster is disposable: when it cannot be reached (its VM is
            # gone), what was on it is gone too, and a refresh may drop it from state.
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
