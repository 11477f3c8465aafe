"""Where the GitHub App key lives on the `arc` capacity, and which pods a job can reach
it from (docs/security.md#threat-model). Helm renders the vendored 0.14.2 chart with the
values the plan records: the chart decides the runner pods' service accounts and roles.

- The key is one Secret per scale set, `<name>-github-app`, in `runnersNamespace`; the
  controller reads it there (the chart's manager Role) and copies it for the listener.
- No runner pod mounts it or takes it into its environment, in any kind or mode.
- kubernetes mode: the chart's runner Role may read Secrets in that namespace, so the
  runner pod's token reaches the key; jobs run in job pods that the container hook
  creates without that service account (actions/runner-container-hooks v0.7.0, the
  hooks of runner 2.328.0: packages/k8s/src/k8s/index.ts sets no serviceAccountName).
- dind mode: a privileged `docker:dind` container serves the job's Docker: a job is root
  on the node (and so reaches every pod's token on it): documented, not refused here.
- vm-launcher: the launcher pod mounts the OCI key only; the job runs on a new VM.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from stacks.offline.engine.records import ProgramRun
from tests.components.arc.arc_helpers import (
    SECRET,
    arc_stack,
    gpu_pod,
    helm_render,
    launcher,
    release,
    run_arc,
)

NAMESPACE = "arc-runners"
KINDS = {"oracle-vm-gpu-a10-1": "vm-launcher", "dind-a10": "dind", "kube-a10": "kubernetes"}


@pytest.fixture(scope="module")
def kinds() -> ProgramRun:
    return run_arc(
        arc_stack(launcher(), gpu_pod("dind-a10", containerMode="dind"), gpu_pod("kube-a10"))
    )


def _pod_spec(kinds: ProgramRun, name: str, upstream: Path) -> dict[str, Any]:
    rendered = helm_render(release(kinds, name), upstream)
    (runner_set,) = rendered.find("AutoscalingRunnerSet")
    spec: dict[str, Any] = runner_set["spec"]["template"]["spec"]
    return spec


def _secret_names(spec: dict[str, Any]) -> set[str]:
    """Every Secret a pod spec mounts or reads into its environment."""
    names = {v["secret"]["secretName"] for v in spec.get("volumes", []) if "secret" in v}
    for container in [*spec.get("containers", []), *spec.get("initContainers", [])]:
        for env in container.get("env", []):
            ref = env.get("valueFrom", {}).get("secretKeyRef")
            if ref:
                names.add(ref["name"])
        names |= {e["secretRef"]["name"] for e in container.get("envFrom", []) if "secretRef" in e}
    return names


def test_the_app_key_is_one_secret_per_scale_set_in_the_runners_namespace(
    kinds: ProgramRun,
) -> None:
    secrets = {
        s.inputs["metadata"]["name"]: s.inputs["metadata"]["namespace"]
        for s in kinds.by_type(SECRET)
        if s.inputs["metadata"]["name"].endswith("-github-app")
    }
    assert secrets == {f"{name}-github-app": NAMESPACE for name in KINDS}
    for name in KINDS:
        assert release(kinds, name).inputs["values"]["githubConfigSecret"] == f"{name}-github-app"


def test_no_runner_pod_mounts_the_app_key(kinds: ProgramRun, upstream: Path) -> None:
    for name, kind in KINDS.items():
        spec = _pod_spec(kinds, name, upstream)
        assert f"{name}-github-app" not in json.dumps(spec)
        expected = {"oracle-vm-gpu-a10-1-oci"} if kind == "vm-launcher" else set()
        assert _secret_names(spec) == expected, name


def test_kubernetes_mode_runner_token_reads_secrets_and_job_pods_do_not_carry_it(
    kinds: ProgramRun, upstream: Path
) -> None:
    rendered = helm_render(release(kinds, "kube-a10"), upstream)
    (role,) = rendered.find("Role", "kube-a10-gha-rs-kube-mode")
    assert role["metadata"]["namespace"] == NAMESPACE
    secrets = [r for r in role["rules"] if "secrets" in r["resources"]]
    assert secrets == [
        {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "list", "create", "delete"]}
    ]
    spec = _pod_spec(kinds, "kube-a10", upstream)
    assert spec["serviceAccountName"] == "kube-a10-gha-rs-kube-mode"
    (runner,) = spec["containers"]
    env = {e["name"]: e.get("value") for e in runner["env"]}
    # Every job must name a container: its steps run in the hook's job pod, not here.
    assert env["ACTIONS_RUNNER_REQUIRE_JOB_CONTAINER"] == "true"


def test_dind_mode_gives_jobs_a_privileged_docker(kinds: ProgramRun, upstream: Path) -> None:
    spec = _pod_spec(kinds, "dind-a10", upstream)
    assert spec["serviceAccountName"] == "dind-a10-gha-rs-no-permission"
    dind = [c for c in spec.get("initContainers", []) + spec["containers"] if c["name"] == "dind"]
    assert [c["securityContext"] for c in dind] == [{"privileged": True}]
