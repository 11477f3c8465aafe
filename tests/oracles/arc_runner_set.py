"""An oracle of the `gha-runner-scale-set` chart: the AutoscalingRunnerSet it renders.

The project deploys the upstream chart with values built in `components.arc.scale_set_values`
rather than a hand-built resource; tests render those values here, as the chart would, and
validate the result against the upstream CRD. Test code only: nothing deployed runs it.
"""

from __future__ import annotations

import copy
from typing import Any

from components.arc.scale_set_values import RUNNER

DIND_IMAGE = "docker:dind"
"""What the 0.14.2 chart runs as the dind sidecar (values.yaml, containerMode dind)."""


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
    if values.get("listenerMetrics"):  # `{{- with .Values.listenerMetrics }}`: as given
        rendered["listenerMetrics"] = copy.deepcopy(values["listenerMetrics"])
    rendered["template"] = {"spec": spec}
    return {
        "apiVersion": "actions.github.com/v1alpha1",
        "kind": "AutoscalingRunnerSet",
        "metadata": {"name": name, "namespace": namespace},
        "spec": rendered,
    }
