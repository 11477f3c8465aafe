"""ClusterReference: a cluster another stack of this project created, read through a
StackReference, and a Kubernetes provider for it.

The other stack exports `cluster` (its typed contract) and `kubeconfig` (a secret). This
is the split pulumi-kubernetes needs for real previews of the platform: the cluster
already exists when the platform stack previews.
"""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from components.base import ComponentArgs, InputError, child

REQUIRED_EXPORTS = ("cluster", "kubeconfig")
"""What the referenced stack must export (a stack with `gpu-ci:cluster` does)."""


class ClusterReferenceArgs(ComponentArgs):
    stack: str
    """`STACK` or `ORGANIZATION/PROJECT/STACK`."""
    config_key: str
    """The config key(s) that name `stack`, for errors: `gpu-ci:platform.clusterStack`,
    `gpu-ci:arc.cluster.clusterStack`, or both joined by " and " for a shared reference."""


class ClusterReference(pulumi.ComponentResource):
    contract: pulumi.Output[Any]
    provider: k8s.Provider

    def __init__(
        self, name: str, args: ClusterReferenceArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-ci:cluster:ClusterReference", name, None, opts)
        reference = pulumi.StackReference(f"{name}-stack", stack_name=args.stack, opts=child(self))
        self.contract = _required(reference, args, "cluster")
        self.provider = k8s.Provider(
            f"{name}-k8s",
            kubeconfig=pulumi.Output.secret(_required(reference, args, "kubeconfig")),
            # No delete_unreachable: another stack owns the cluster; unreachable is not gone.
            opts=child(self),
        )
        self.register_outputs({"stack": args.stack, "cluster": self.contract})


def _required(
    reference: pulumi.StackReference, args: ClusterReferenceArgs, name: str
) -> pulumi.Output[Any]:
    """An export of the referenced stack; a missing one fails with the key to fix, where
    `require_output` raises a bare KeyError (a traceback under `pulumi up`)."""

    def present(value: Any) -> Any:
        if value is None:
            raise InputError(
                f"{args.config_key}: stack {args.stack!r} exports no `{name}`; point "
                "clusterStack at a stack that sets gpu-ci:cluster, deployed first"
            )
        return value

    return reference.get_output(name).apply(present)
