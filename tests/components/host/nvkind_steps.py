"""The nvkind-cluster step run in the sandbox: its parameters, a run, what it leaves."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from components.cluster.kind_config import render_kind_config
from components.host.params.cluster import NvkindClusterParams
from components.host.params.step import Step
from components.host.render import render_script
from tests.components.cluster.cluster_helpers import cluster_spec

from .sandbox import Run, Sandbox

ADDRESS = "203.0.113.7"
A10 = ("NVIDIA A10", "GPU-9b2e1f4c-0000-1111-2222-333344445555")
SECRET = "S3CRET-KEY-DATA"  # the stub's client key in every kubeconfig it writes
STATE = "var/lib/gpu-ci/nvkind/gpu-ci"


def cluster_params(sandbox: Sandbox, gpu_count: int = 1, **spec: Any) -> NvkindClusterParams:
    model = cluster_spec(**spec)
    return sandbox.params(
        NvkindClusterParams,
        cluster_name=model.name,
        kind_config=render_kind_config(model, gpu_count),
        node_image=model.node_image,
        api_server_port=model.apiServerPort,
    )


def run_step(sandbox: Sandbox, step: Step, params: Any, address: str | None = ADDRESS) -> Run:
    script = sandbox.base / f"{step}.sh"
    script.write_text(render_script(step, params))
    env = {} if address is None else {"API_SERVER_ADDRESS": address}
    return sandbox.run_file(script, env=env)


def create(sandbox: Sandbox, params: NvkindClusterParams, address: str = ADDRESS) -> Run:
    return run_step(sandbox, Step.NVKIND_CLUSTER, params, address)


def state(sandbox: Sandbox, name: str = "") -> Path:
    return sandbox.root / STATE / name if name else sandbox.root / STATE


def create_call(sandbox: Sandbox, params: NvkindClusterParams) -> str:
    return (
        f"nvkind cluster create --name gpu-ci --config-template {state(sandbox)}/kind-config.yaml "
        f"--image {params.node_image} --kubeconfig {state(sandbox)}/kubeconfig"
    )


def kubeconfig_of(run: Run) -> str:
    return base64.b64decode(run.result().model_extra["kubeconfig"]).decode()  # type: ignore[index]


def assert_secret_kept(run: Run) -> None:
    """The kubeconfig (and its base64) is on stdout's result line and nowhere else."""
    encoded = run.result().model_extra.get("kubeconfig", "")  # type: ignore[union-attr]
    for text in (run.stderr, "\n".join(run.calls), *run.stdout.splitlines()[:-1]):
        assert SECRET not in text
        assert not encoded or encoded not in text
