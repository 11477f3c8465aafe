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

from components.base import ComponentArgs, child


class ClusterReferenceArgs(ComponentArgs):
    stack: str
    """`STACK` or `ORGANIZATION/PROJECT/STACK`."""


class ClusterReference(pulumi.ComponentResource):
    contract: pulumi.Output[Any]
    provider: k8s.Provider

    def __init__(
        self, name: str, args: ClusterReferenceArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-ci:cluster:ClusterReference", name, None, opts)
        reference = pulumi.StackReference(f"{name}-stack", stack_name=args.stack, opts=child(self))
        self.contract = reference.require_output("cluster")
        self.provider = k8s.Provider(
            f"{name}-k8s",
            kubeconfig=pulumi.Output.secret(reference.require_output("kubeconfig")),
            delete_unreachable=True,
            opts=child(self),
        )
        self.register_outputs({"stack": args.stack, "cluster": self.contract})
