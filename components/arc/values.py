"""Helm values for the two ARC charts, built in Python, and what the scale-set chart renders.

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
2. `render_runner_set` reproduces, in Python, the AutoscalingRunnerSet the chart renders
   from these values (the chart's `autoscalingrunnerset.yaml` for the fields set here, and
   the container-mode pod specs `values.yaml` documents), and the tests validate that
   against the upstream CRD `actions.github.com_autoscalingrunnersets.yaml`.

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

import copy
from dataclasses import dataclass, field
from typing import Any

import pulumi

from components.arc.arc_config import (
    ARC_CHARTS,
    ControllerConfig,
    GpuPodScaleSet,
    Resources,
    VmLauncherScaleSet,
)

CONTROLLER_CHART = f"{ARC_CHARTS}/gha-runner-scale-set-controller"
SCALE_SET_CHART = f"{ARC_CHARTS}/gha-runner-scale-set"
GPU = "nvidia.com/gpu"
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

METRICS = {
    "controllerManagerAddr": ":8080",
    "listenerAddr": ":8080",
    "listenerEndpoint": "/metrics",
}
DIND_IMAGE = "docker:dind"
"""What the 0.14.2 chart runs as the dind sidecar (values.yaml, containerMode dind)."""


@dataclass(frozen=True)
class Placement:
    """Where pods go: a node selector and tolerations (empty: anywhere)."""

    node_selector: dict[str, str] = field(default_factory=dict)
    tolerations: list[dict[str, Any]] = field(default_factory=list)

    def pod_fields(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.node_selector:
            out["nodeSelector"] = dict(self.node_selector)
        if self.tolerations:
            out["tolerations"] = [dict(t) for t in self.tolerations]
        return out


def controller_service_account(cfg: ControllerConfig) -> dict[str, str]:
    """The controller's ServiceAccount, named explicitly in both charts' values."""
    return {"namespace": cfg.namespace, "name": f"{cfg.releaseName}-gha-rs-controller"}


def controller_values(cfg: ControllerConfig, placement: Placement) -> dict[str, Any]:
    values: dict[str, Any] = {
        "serviceAccount": {"create": True, "name": controller_service_account(cfg)["name"]},
        "resources": cfg.resources.to_k8s(),
        "flags": {"runnerMaxConcurrentReconciles": cfg.runnerMaxConcurrentReconciles},
        **placement.pod_fields(),
    }
    if cfg.metrics:
        values["metrics"] = dict(METRICS)
    return values


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
        container["resources"] = ss.resources.to_k8s()
    return {
        "containers": [container],
        "restartPolicy": "Never",
        "volumes": [{"name": OCI_VOLUME, "secret": {"secretName": oci_secret}}],
        **placement.pod_fields(),
    }


def _gpu_resources(resources: Resources | None, gpus: int) -> dict[str, Any]:
    out = resources.to_k8s() if resources is not None else {}
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
        container["resources"] = ss.resources.to_k8s()
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
) -> dict[str, Any]:
    """The gha-runner-scale-set values of one scale set."""
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
    return values


# -- what the chart renders ------------------------------------------------------------------


def _merge_env(ours: list[dict[str, Any]], added: list[dict[str, Any]]) -> list[dict[str, Any]]:
    names = {e["name"] for e in ours}
    return [*ours, *(e for e in added if e["name"] not in names)]


def _merge_mounts(ours: list[dict[str, Any]], added: list[dict[str, Any]]) -> list[dict[str, Any]]:
    names = {m["name"] for m in ours}
    return [*ours, *(m for m in added if m["name"] not in names)]


def _runner_container(
    container: dict[str, Any], env: list[dict[str, Any]], mounts: list[dict[str, Any]]
) -> dict[str, Any]:
    out = {k: v for k, v in container.items() if k not in ("env", "volumeMounts")}
    out["env"] = _merge_env(list(container.get("env", [])), env)
    out["volumeMounts"] = _merge_mounts(list(container.get("volumeMounts", [])), mounts)
    return out


_WORK_MOUNT = {"name": "work", "mountPath": "/home/runner/_work"}


def _dind(spec: dict[str, Any], ours: dict[str, Any], runner: dict[str, Any]) -> None:
    spec["initContainers"] = [
        {
            "name": "init-dind-externals",
            "image": runner.get("image"),
            "command": ["cp"],
            "args": ["-r", "/home/runner/externals/.", "/home/runner/tmpDir/"],
            "volumeMounts": [{"name": "dind-externals", "mountPath": "/home/runner/tmpDir"}],
        },
        {
            "name": "dind",
            "image": DIND_IMAGE,
            "args": [
                "dockerd",
                "--host=unix:///var/run/docker.sock",
                "--group=$(DOCKER_GROUP_GID)",
            ],
            "env": [{"name": "DOCKER_GROUP_GID", "value": "123"}],
            "securityContext": {"privileged": True},
            "restartPolicy": "Always",
            "startupProbe": {
                "exec": {"command": ["docker", "info"]},
                "initialDelaySeconds": 0,
                "failureThreshold": 24,
                "periodSeconds": 5,
            },
            "volumeMounts": [
                _WORK_MOUNT,
                {"name": "dind-sock", "mountPath": "/var/run"},
                {"name": "dind-externals", "mountPath": "/home/runner/externals"},
            ],
        },
        *ours.get("initContainers", []),
    ]
    spec["containers"] = [
        _runner_container(
            runner,
            [
                {"name": "DOCKER_HOST", "value": "unix:///var/run/docker.sock"},
                {"name": "RUNNER_WAIT_FOR_DOCKER_IN_SECONDS", "value": "120"},
            ],
            [_WORK_MOUNT, {"name": "dind-sock", "mountPath": "/var/run"}],
        ),
        *(c for c in ours["containers"] if c["name"] not in (RUNNER, "dind")),
    ]
    volumes = list(ours.get("volumes", []))
    work = [v for v in volumes if v["name"] == "work"] or [{"name": "work", "emptyDir": {}}]
    spec["volumes"] = [
        {"name": "dind-sock", "emptyDir": {}},
        {"name": "dind-externals", "emptyDir": {}},
        *work,
        *(v for v in volumes if v["name"] != "work"),
    ]


def _kubernetes(
    spec: dict[str, Any], ours: dict[str, Any], runner: dict[str, Any], mode: dict[str, Any]
) -> None:
    spec["containers"] = [
        _runner_container(
            runner,
            [
                {"name": "ACTIONS_RUNNER_CONTAINER_HOOKS", "value": "/home/runner/k8s/index.js"},
                {
                    "name": "ACTIONS_RUNNER_POD_NAME",
                    "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}},
                },
                {"name": "ACTIONS_RUNNER_REQUIRE_JOB_CONTAINER", "value": "true"},
            ],
            [_WORK_MOUNT],
        ),
        *(c for c in ours["containers"] if c["name"] != RUNNER),
    ]
    if "initContainers" in ours:
        spec["initContainers"] = list(ours["initContainers"])
    volumes = list(ours.get("volumes", []))
    claim = {"spec": copy.deepcopy(mode["kubernetesModeWorkVolumeClaim"])}
    work = [v for v in volumes if v["name"] == "work"] or [
        {"name": "work", "ephemeral": {"volumeClaimTemplate": claim}}
    ]
    spec["volumes"] = [*work, *(v for v in volumes if v["name"] != "work")]


def render_runner_set(values: dict[str, Any], *, release: str, namespace: str) -> dict[str, Any]:
    """The AutoscalingRunnerSet the gha-runner-scale-set chart renders from `values`
    (Kubernetes >= 1.29, so the dind sidecar is a restartable init container)."""
    name = values.get("runnerScaleSetName") or release
    full = f"{name}-gha-rs"
    mode: dict[str, Any] = values.get("containerMode") or {}
    kind = mode.get("type")
    ours: dict[str, Any] = copy.deepcopy(values["template"]["spec"])
    spec: dict[str, Any] = {
        k: v
        for k, v in ours.items()
        if k not in ("containers", "volumes", "initContainers", "serviceAccountName")
    }
    spec.setdefault("restartPolicy", "Never")
    account = "kube-mode" if kind == "kubernetes" else "no-permission"
    spec["serviceAccountName"] = ours.get("serviceAccountName") or f"{full}-{account}"
    runner = next((c for c in ours["containers"] if c["name"] == RUNNER), None)
    if kind == "dind" and runner is not None:
        _dind(spec, ours, runner)
    elif kind == "kubernetes" and runner is not None:
        _kubernetes(spec, ours, runner, mode)
    else:
        spec["containers"] = ours["containers"]
        for key in ("initContainers", "volumes"):
            if key in ours:
                spec[key] = ours[key]
    rendered: dict[str, Any] = {
        "githubConfigUrl": str(values["githubConfigUrl"]).rstrip("/"),
        "githubConfigSecret": values["githubConfigSecret"],
    }
    for key in ("runnerGroup", "runnerScaleSetName"):
        if values.get(key):
            rendered[key] = values[key]
    if values.get("scaleSetLabels"):
        rendered["runnerScaleSetLabels"] = list(values["scaleSetLabels"])
    for key in ("maxRunners", "minRunners"):
        if isinstance(values.get(key), int):
            rendered[key] = values[key]
    if values.get("listenerTemplate"):
        rendered["listenerTemplate"] = copy.deepcopy(values["listenerTemplate"])
    rendered["template"] = {"spec": spec}
    return {
        "apiVersion": "actions.github.com/v1alpha1",
        "kind": "AutoscalingRunnerSet",
        "metadata": {"name": name, "namespace": namespace},
        "spec": rendered,
    }
