"""KubeconfigCluster: an existing cluster reached with a kubeconfig kept in secret config."""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
from pydantic import SecretStr

from components.base import ComponentArgs, child


class KubeconfigClusterArgs(ComponentArgs):
    kubeconfig: SecretStr


class KubeconfigCluster(pulumi.ComponentResource):
    provider: k8s.Provider

    def __init__(
        self, name: str, args: KubeconfigClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-ci:arc:KubeconfigCluster", name, None, opts)
        self.provider = k8s.Provider(
            f"{name}-k8s",
            kubeconfig=pulumi.Output.secret(args.kubeconfig.get_secret_value()),
            # No delete_unreachable: not our cluster; unreachable is not gone, so keep its state.
            opts=child(self),
        )
        self.register_outputs({})
