"""ArcRunnerScaleSet: one gha-runner-scale-set release and what its pods read.

Children, in order:
- `<name>-github-app`: the GitHub App Secret (`github_app_id`, `github_app_installation_id`,
  `github_app_private_key`, each a Pulumi secret) unless the stack names an existing one;
- `<name>-oci` (vm-launcher): the OCI SDK config and API key the launcher mounts, from the
  stack's secret config;
- `<name>-hook-template` (gpu-pod, kubernetes mode): the container-hook pod template that
  gives each job pod the GPU limit, runtime class, tolerations and node selector;
- the release, after all of the above, with `controllerServiceAccount` set explicitly.

The component itself is registered after the controller (and the node pool its pods need),
so a destroy deletes the scale set, then its secrets, then the controller.
"""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from pydantic import Field

from components.arc.pod_spec import Placement
from components.arc.scale_set_config import GpuPodScaleSet, VmLauncherScaleSet
from components.arc.scale_set_values import (
    HOOK_FILE,
    OCI_CONFIG_KEY,
    OCI_KEY_FILE,
    SCALE_SET_CHART,
    gpu_pod_template,
    hook_template,
    launcher_args,
    launcher_template,
    oci_config_file,
    scale_set_values,
)
from components.base import MANAGED_LABELS, ComponentArgs, PulumiInput, child, upstream
from components.host.config.runner import GithubAppConfig
from components.observability.metrics import listener_metrics_values
from core import yaml_text


class LaunchNetwork(ComponentArgs):
    """Where launched VMs attach when the scale set gives no subnet: this stack's network."""

    subnet_id: PulumiInput
    nsg_id: PulumiInput


class ArcRunnerScaleSetArgs(ComponentArgs):
    namespace: str
    scale_set: VmLauncherScaleSet | GpuPodScaleSet
    chart_version: str
    controller_service_account: dict[str, str]
    github_app: GithubAppConfig | None = None
    existing_secret: str | None = None
    placement: Placement = Field(default_factory=Placement)
    """Runner pods (and, in kubernetes mode, job pods)."""
    listener: Placement = Field(default_factory=Placement)
    compartment_id: str | None = None
    """vm-launcher: the VMs' compartment when the scale set names none."""
    network: LaunchNetwork | None = None
    listener_metrics: bool = False
    """Enable every listener metric (components/observability/metrics.py); the controller
    must serve them (`metrics` in its values)."""
    timeout_s: int = Field(default=600, ge=60, le=3600)


def _secret_data(values: dict[str, str]) -> dict[str, pulumi.Output[str]]:
    return {k: pulumi.Output.secret(v) for k, v in values.items()}


class ArcRunnerScaleSet(pulumi.ComponentResource):
    """One scale set on the cluster of `opts.provider` (its children inherit it); its
    secrets and release wait for what `opts.depends_on` names (the controller, a pool)."""

    secrets: list[k8s.core.v1.Secret]
    hook_config_map: k8s.core.v1.ConfigMap | None
    release: k8s.helm.v3.Release
    values: dict[str, Any]
    github_secret: str

    def __init__(
        self, name: str, args: ArcRunnerScaleSetArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-ci:arc:ArcRunnerScaleSet", name, None, opts)
        ss = args.scale_set
        self._namespace = args.namespace
        self._after = upstream(opts)
        self.secrets = []
        self.hook_config_map = None
        if args.existing_secret is not None:
            self.github_secret = args.existing_secret
        else:
            assert args.github_app is not None  # guaranteed by config validation
            self.github_secret = f"{ss.name}-github-app"
            app = args.github_app
            self._secret(
                f"{name}-github-app",
                self.github_secret,
                {
                    "github_app_id": str(app.appId),
                    "github_app_installation_id": str(app.installationId),
                    "github_app_private_key": app.privateKey.get_secret_value(),
                },
            )
        if isinstance(ss, VmLauncherScaleSet):
            template = self._launcher(name, ss, args)
        else:
            template = self._gpu_pod(name, ss, args)
        self.values = scale_set_values(
            ss,
            github_secret=self.github_secret,
            controller_sa=args.controller_service_account,
            template_spec=template,
            listener=args.listener,
            listener_metrics=listener_metrics_values() if args.listener_metrics else None,
        )
        before: list[pulumi.Resource] = [*self.secrets]
        if self.hook_config_map is not None:
            before.append(self.hook_config_map)
        self.release = k8s.helm.v3.Release(
            name,
            name=ss.name,
            chart=SCALE_SET_CHART,
            version=args.chart_version,
            namespace=args.namespace,
            values=self.values,
            timeout=args.timeout_s,
            max_history=10,
            opts=child(self, depends_on=[*self._after, *before]),
        )
        self.register_outputs(
            {
                "name": ss.name,
                "kind": ss.kind,
                "githubConfigSecret": self.github_secret,
                "status": self.release.status,
            }
        )

    def _secret(self, name: str, secret_name: str, data: dict[str, str]) -> None:
        self.secrets.append(
            k8s.core.v1.Secret(
                name,
                metadata={
                    "name": secret_name,
                    "namespace": self._namespace,
                    "labels": dict(MANAGED_LABELS),
                },
                type="Opaque",
                string_data=_secret_data(data),
                opts=child(self, depends_on=self._after),
            )
        )

    def _launcher(
        self, name: str, ss: VmLauncherScaleSet, args: ArcRunnerScaleSetArgs
    ) -> dict[str, Any]:
        creds = ss.ociCredentials
        oci_secret = f"{ss.name}-oci"
        self._secret(
            f"{name}-oci",
            oci_secret,
            {
                OCI_CONFIG_KEY: oci_config_file(
                    user=creds.user.get_secret_value(),
                    fingerprint=creds.fingerprint.get_secret_value(),
                    tenancy=creds.tenancy.get_secret_value(),
                    region=creds.region.get_secret_value(),
                ),
                OCI_KEY_FILE: creds.privateKey.get_secret_value(),
            },
        )
        compartment = ss.compartmentId or args.compartment_id
        assert compartment is not None  # guaranteed by config validation
        if ss.placement.subnetId is not None:
            subnet_id, nsg_id = ss.placement.subnetId, None
        else:
            assert args.network is not None  # the layer passes this stack's network
            subnet_id, nsg_id = args.network.subnet_id, args.network.nsg_id
        command = launcher_args(ss, compartment_id=compartment, subnet_id=subnet_id, nsg_id=nsg_id)
        return launcher_template(ss, args=command, oci_secret=oci_secret, placement=args.placement)

    def _gpu_pod(
        self, name: str, ss: GpuPodScaleSet, args: ArcRunnerScaleSetArgs
    ) -> dict[str, Any]:
        config_map = None
        if ss.containerMode == "kubernetes":
            config_map = f"{ss.name}-hook-template"
            self.hook_config_map = k8s.core.v1.ConfigMap(
                f"{name}-hook-template",
                metadata={
                    "name": config_map,
                    "namespace": self._namespace,
                    "labels": dict(MANAGED_LABELS),
                },
                data={
                    HOOK_FILE: yaml_text.dump(hook_template(ss, args.placement), sort_keys=False)
                },
                opts=child(self, depends_on=self._after),
            )
        return gpu_pod_template(ss, placement=args.placement, hook_config_map=config_map)
