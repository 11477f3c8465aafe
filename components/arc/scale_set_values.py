"""Helm values of the `gha-runner-scale-set` chart for one scale set, built in Python.

**How the AutoscalingRunnerSet is validated: chart values, not a hand-built resource.** The
scale sets are deployed with the upstream `gha-runner-scale-set` chart, because the chart
creates more than the AutoscalingRunnerSet: the manager Role and RoleBinding the controller
uses, the no-permission or kubernetes-mode ServiceAccount, Role and RoleBinding of the
runner pods, and the `actions.github.com/cleanup-*` annotations through which the controller
removes them again. Building the custom resource here would mean re-creating all of that and
tracking it across ARC releases. So:

1. every values key set here must exist in the chart's `values.yaml` (which ships no
   schema; keys it documents in comments, like `minRunners` or `controllerServiceAccount`,
   count) — except inside the pod templates (`template`, `listenerTemplate`), which the
   chart copies into the resource and which are checked against the CRD instead;
2. the tests render the chart with Helm itself (`helm template` of the vendored 0.14.2 chart
   with exactly these values) and validate what it makes, the AutoscalingRunnerSet included,
   with kubectl-validate against the upstream CRDs (`tests/components/arc/`, and
   `python -m stacks check-charts` for a user with the chart at hand).

`controllerServiceAccount` is always set: without it the chart looks the controller up with
Helm's `lookup`, which returns nothing when the chart is rendered client-side (previews).

The vm-launcher template follows the launcher of cncf/automation (`ci/cloudrunners/oci`,
gha-cloudrunner): comma-separated `--shape` tried in order, `--region`,
`--availability-domain`, `--subnet-id` and their `--fallback-*` twins, `--compartment-id`,
`--arch` and `--running-environment` (its VM image family), `--preemptible`,
`--boot-volume-size-gb`, and the OCI SDK config file named by `OCI_CONFIG_FILE`. When the VMs
use this stack's network, `--nsg-id` attaches them to its NSG (whose rules admit the
launcher's SSH): a launcher image must accept that flag, or set `placement.subnetId`.
"""

from __future__ import annotations

from typing import Any

import pulumi

from components.arc.pod_config import Resources
from components.arc.pod_spec import GPU, Placement, resources_spec
from components.arc.scale_set_config import GpuPodScaleSet, VmLauncherScaleSet
from components.pins import ARC_PINS

SCALE_SET_CHART = ARC_PINS.scale_set_chart
RUNNER = "runner"
"""ARC injects the JIT config (ACTIONS_RUNNER_INPUT_JITCONFIG) into the container so named."""

OCI_VOLUME = "oci-credentials"
OCI_MOUNT = "/etc/oci"
OCI_CONFIG_KEY = "config"
OCI_KEY_FILE = "oci_api_key.pem"

HOOK_ENV = "ACTIONS_RUNNER_CONTAINER_HOOK_TEMPLATE"
HOOK_VOLUME = "hook-template"
HOOK_DIR = "/home/runner/pod-templates"
HOOK_FILE = "gpu-job.yaml"
JOB_CONTAINER = "$job"
"""In a container-hook template, the container merged into each job's container."""


def oci_config_file(*, user: str, fingerprint: str, tenancy: str, region: str) -> str:
    """The OCI SDK config file the launcher reads (its key file sits next to it)."""
    return (
        "[DEFAULT]\n"
        f"user={user}\n"
        f"fingerprint={fingerprint}\n"
        f"tenancy={tenancy}\n"
        f"region={region}\n"
        f"key_file={OCI_MOUNT}/{OCI_KEY_FILE}\n"
    )


def _flag(name: str, value: Any) -> Any:
    if isinstance(value, str):
        return f"--{name}={value}"
    return pulumi.Output.concat(f"--{name}=", value)


def launcher_args(
    ss: VmLauncherScaleSet, *, compartment_id: str, subnet_id: Any, nsg_id: Any | None
) -> list[Any]:
    """The launcher's command line; `subnet_id`/`nsg_id` may be Outputs (this stack's
    network), `nsg_id` is None for an explicit subnet."""
    args: list[Any] = [
        _flag("arch", ss.vmImage.arch),
        _flag("running-environment", ss.vmImage.runningEnvironment),
        _flag("shape", ",".join(ss.shapes)),
        _flag("compartment-id", compartment_id),
        _flag("region", ss.placement.region),
        _flag("availability-domain", ss.placement.availabilityDomain),
        _flag("subnet-id", subnet_id),
    ]
    if nsg_id is not None:
        args.append(_flag("nsg-id", nsg_id))
    if ss.fallback is not None:
        args += [
            _flag("fallback-region", ss.fallback.region),
            _flag("fallback-availability-domain", ss.fallback.availabilityDomain),
            _flag("fallback-subnet-id", ss.fallback.subnetId),
        ]
    args += [
        _flag("preemptible", "true" if ss.preemptible else "false"),
        _flag("boot-volume-size-gb", str(ss.bootVolumeSizeGbs)),
        *ss.extraArgs,
    ]
    return args


def launcher_template(
    ss: VmLauncherScaleSet, *, args: list[Any], oci_secret: str, placement: Placement
) -> dict[str, Any]:
    """The runner pod spec of a vm-launcher scale set: no GPU, OCI credentials mounted."""
    container: dict[str, Any] = {
        "name": RUNNER,
        "image": ss.launcherImage,
        "args": args,
        "env": [{"name": "OCI_CONFIG_FILE", "value": f"{OCI_MOUNT}/{OCI_CONFIG_KEY}"}],
        "volumeMounts": [{"name": OCI_VOLUME, "mountPath": OCI_MOUNT, "readOnly": True}],
    }
    if ss.resources is not None:
        container["resources"] = resources_spec(ss.resources)
    return {
        "containers": [container],
        "restartPolicy": "Never",
        "volumes": [{"name": OCI_VOLUME, "secret": {"secretName": oci_secret}}],
        **placement.pod_fields(),
    }


def _gpu_resources(resources: Resources | None, gpus: int) -> dict[str, Any]:
    out = resources_spec(resources) if resources is not None else {}
    out["limits"] = {**out.get("limits", {}), GPU: gpus}
    return out


def hook_template(ss: GpuPodScaleSet, placement: Placement) -> dict[str, Any]:
    """The container-hook pod template of kubernetes mode: each job pod gets the GPU limit,
    the runtime class, tolerations and node selector (job pods inherit none of them)."""
    spec: dict[str, Any] = {
        "containers": [{"name": JOB_CONTAINER, "resources": {"limits": {GPU: ss.gpus}}}],
        **placement.pod_fields(),
    }
    if ss.runtimeClassName is not None:
        spec["runtimeClassName"] = ss.runtimeClassName
    return {"spec": spec}


def gpu_pod_template(
    ss: GpuPodScaleSet, *, placement: Placement, hook_config_map: str | None
) -> dict[str, Any]:
    """The runner pod spec of a gpu-pod scale set.

    dind: the runner container holds the GPU and steps run in it. kubernetes: the runner
    pod shares a ReadWriteOnce work volume with its job pods, so it runs on the GPU pool too
    (same selector and tolerations) but without a GPU; the job pod gets it through the hook
    template mounted from `hook_config_map`.
    """
    container: dict[str, Any] = {
        "name": RUNNER,
        "image": ss.runnerImage,
        "command": ["/home/runner/run.sh"],
    }
    spec: dict[str, Any] = {"containers": [container], **placement.pod_fields()}
    if ss.containerMode == "dind":
        container["resources"] = _gpu_resources(ss.resources, ss.gpus)
        if ss.runtimeClassName is not None:
            spec["runtimeClassName"] = ss.runtimeClassName
        return spec
    assert hook_config_map is not None
    container["env"] = [{"name": HOOK_ENV, "value": f"{HOOK_DIR}/{HOOK_FILE}"}]
    container["volumeMounts"] = [{"name": HOOK_VOLUME, "mountPath": HOOK_DIR, "readOnly": True}]
    if ss.resources is not None:
        container["resources"] = resources_spec(ss.resources)
    spec["volumes"] = [{"name": HOOK_VOLUME, "configMap": {"name": hook_config_map}}]
    return spec


def container_mode(ss: GpuPodScaleSet) -> dict[str, Any]:
    if ss.containerMode == "dind":
        return {"type": "dind"}
    claim: dict[str, Any] = {
        "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": ss.workVolume.size}},
    }
    if ss.workVolume.storageClassName is not None:
        claim["storageClassName"] = ss.workVolume.storageClassName
    return {"type": "kubernetes", "kubernetesModeWorkVolumeClaim": claim}


def scale_set_values(
    ss: VmLauncherScaleSet | GpuPodScaleSet,
    *,
    github_secret: str,
    controller_sa: dict[str, str],
    template_spec: dict[str, Any],
    listener: Placement,
    listener_metrics: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The gha-runner-scale-set values of one scale set; `listener_metrics`: the metrics its
    listener exports (the chart's `listenerMetrics`), served where the controller's
    `metrics.listenerAddr` says."""
    values: dict[str, Any] = {
        "githubConfigUrl": ss.githubConfigUrl,
        "githubConfigSecret": github_secret,
        "runnerScaleSetName": ss.name,
        "runnerGroup": ss.runnerGroup,
        "minRunners": ss.minRunners,
        "maxRunners": ss.maxRunners,
        "controllerServiceAccount": dict(controller_sa),
        "template": {"spec": template_spec},
    }
    if ss.labels:
        values["scaleSetLabels"] = list(ss.labels)
    listener_fields = listener.pod_fields()
    if listener_fields:
        # The controller merges a container named `listener` into the listener it builds.
        values["listenerTemplate"] = {
            "spec": {"containers": [{"name": "listener"}], **listener_fields}
        }
    if isinstance(ss, GpuPodScaleSet):
        values["containerMode"] = container_mode(ss)
    if listener_metrics is not None:
        values["listenerMetrics"] = listener_metrics
    return values
