"""Every rendered script, in each parameter variant, passes shellcheck."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from components.cluster.kind_config import render_kind_config
from components.host.params.bootstrap import (
    AuthorizedKeysParams,
    ContainerToolkitParams,
    DockerParams,
    InotifyParams,
    NvidiaDriverParams,
    ToolkitConfigParams,
    ToolsParams,
    VerifyParams,
)
from components.host.params.cluster import (
    ClusterKubeconfigParams,
    ClusterReadyParams,
    NvkindClusterDeleteParams,
    NvkindClusterParams,
)
from components.host.params.runner import (
    GithubAppKeyParams,
    GithubRunnerParams,
    GithubRunnerRemoveParams,
)
from components.host.params.step import Step, StepParams
from components.host.render import render_script
from tests.components.cluster.cluster_helpers import cluster_spec

SHELLCHECK = Path(sys.executable).with_name("shellcheck")
SCRIPTS = Path(__file__).parents[3] / "components/host/scripts"

GITHUB: dict[str, Any] = {
    "github_url": "https://github.com/acme",
    "app_id": 1,
    "installation_id": 2,
    "runner_name": "gpu-ci",
    "runner_labels": ("oracle-vm-gpu-a10-1", "gpu"),
}

SSH_KEYS = (
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4f a@b",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICAhIiMkJSYnKCkqKywtLi8wMTIzNDU2Nzg5Ojs8PT4/",
)

_SPEC = cluster_spec()
NVKIND = NvkindClusterParams(
    cluster_name=_SPEC.name,
    kind_config=render_kind_config(_SPEC, 1),
    node_image=_SPEC.node_image,
)

VARIANTS: list[tuple[Step, StepParams]] = [
    (Step.NVIDIA_DRIVER, NvidiaDriverParams()),
    (Step.NVIDIA_DRIVER, NvidiaDriverParams(reboot=False)),
    (Step.DOCKER, DockerParams(docker_user="ubuntu")),
    (Step.CONTAINER_TOOLKIT, ContainerToolkitParams()),
    (Step.TOOLKIT_CONFIG, ToolkitConfigParams(cdi_enabled=True)),
    (Step.TOOLKIT_CONFIG, ToolkitConfigParams(cdi_enabled=False)),
    (Step.INOTIFY, InotifyParams()),
    (Step.TOOLS, ToolsParams.from_pins()),
    (Step.TOOLS, ToolsParams.from_pins(arch="arm64")),
    (Step.TOOLS, ToolsParams.from_pins(nvkind_binary=("https://example.com/nvkind", "0" * 64))),
    (Step.VERIFY, VerifyParams(expected_gpus=1)),
    (Step.GITHUB_APP_KEY, GithubAppKeyParams()),
    (Step.GITHUB_RUNNER, GithubRunnerParams.from_pins(**GITHUB)),
    (
        Step.GITHUB_RUNNER,
        GithubRunnerParams.from_pins(arch="arm64", ephemeral=False, job_root=True, **GITHUB),
    ),
    (Step.GITHUB_RUNNER_REMOVE, GithubRunnerRemoveParams()),
    (Step.GITHUB_RUNNER_REMOVE, GithubRunnerRemoveParams(purge=False)),
    (Step.NVKIND_CLUSTER, NVKIND),
    (Step.NVKIND_CLUSTER, NVKIND.model_copy(update={"use_sudo": False, "expected_gpus": 2})),
    (Step.NVKIND_CLUSTER_DELETE, NvkindClusterDeleteParams.for_cluster(NVKIND)),
    (Step.CLUSTER_READY, ClusterReadyParams.for_cluster(NVKIND)),
    (Step.CLUSTER_READY, ClusterReadyParams.for_cluster(NVKIND, use_sudo=False)),
    (Step.CLUSTER_KUBECONFIG, ClusterKubeconfigParams.for_cluster(NVKIND)),
    (Step.CLUSTER_KUBECONFIG, ClusterKubeconfigParams.for_cluster(NVKIND, use_sudo=False)),
    (Step.AUTHORIZED_KEYS, AuthorizedKeysParams(user="ubuntu", keys=SSH_KEYS[:1])),
    (Step.AUTHORIZED_KEYS, AuthorizedKeysParams(user="opc", keys=SSH_KEYS)),
]


@pytest.mark.parametrize(("step", "params"), VARIANTS, ids=lambda v: str(v)[:40])
def test_rendered_script_is_shellcheck_clean(
    step: Step, params: StepParams, tmp_path: Path
) -> None:
    script = tmp_path / f"{step}.sh"
    script.write_text(render_script(step, params))
    proc = subprocess.run(
        [str(SHELLCHECK), "--severity=style", str(script)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout


def test_every_step_has_a_variant() -> None:
    assert {step for step, _ in VARIANTS} >= set(Step) - {Step.CLOUD_INIT}


@pytest.mark.parametrize("name", ["github-runner-loop.sh"])
def test_installed_script_is_shellcheck_clean(name: str) -> None:
    """Scripts installed on the host as they are (not rendered) are checked as files."""
    proc = subprocess.run(
        [str(SHELLCHECK), "--severity=style", str(SCRIPTS / name)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout


def test_shellcheck_catches_a_defect(tmp_path: Path) -> None:
    """The check above can fail: an unquoted expansion is reported."""
    script = tmp_path / "bad.sh"
    script.write_text("#!/usr/bin/env bash\nx=$1\nrm $x\n")
    proc = subprocess.run([str(SHELLCHECK), str(script)], capture_output=True, check=False)
    assert proc.returncode != 0
