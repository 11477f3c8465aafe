"""Step cluster-kubeconfig: the on-host kubeconfig, pointed at the deploy-time address,
out through the result line only, from a script that only follows the cluster's identity."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
import yaml

from components.cluster.kind_config import render_kind_config
from components.host.params.cluster import ClusterKubeconfigParams, NvkindClusterParams
from components.host.params.step import Step
from components.host.render import render_script
from tests.components.cluster.cluster_helpers import cluster_spec

from .sandbox import Run, Sandbox

ADDRESS = "203.0.113.7"
A10 = ("NVIDIA A10", "GPU-9b2e1f4c-0000-1111-2222-333344445555")
SECRET = "S3CRET-KEY-DATA"
KUBECONFIG = "/var/lib/gpu-ci/nvkind/gpu-ci/kubeconfig"


def on_host_kubeconfig(port: int = 6443, servers: int = 1) -> str:
    """A kubeconfig as nvkind-cluster keeps it: its server on 127.0.0.1."""
    server = f"    server: https://127.0.0.1:{port}\n" * servers
    return (
        "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n"
        "    certificate-authority-data: Q0EtREFUQQ==\n"
        f"{server}"
        "  name: kind-gpu-ci\ncontexts:\n- context:\n    cluster: kind-gpu-ci\n"
        "    user: kind-gpu-ci\n  name: kind-gpu-ci\ncurrent-context: kind-gpu-ci\n"
        f"users:\n- name: kind-gpu-ci\n  user:\n    client-key-data: {SECRET}\n"
    )


def kubeconfig_file(sandbox: Sandbox) -> Path:
    return sandbox.root / KUBECONFIG.lstrip("/")


def put_kubeconfig(sandbox: Sandbox, text: str) -> Path:
    path = kubeconfig_file(sandbox)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o600)
    return path


def params(sandbox: Sandbox, **values: Any) -> ClusterKubeconfigParams:
    return sandbox.params(ClusterKubeconfigParams, cluster_name="gpu-ci", **values)


def run_step(sandbox: Sandbox, step: Step, step_params: Any, address: str | None = ADDRESS) -> Run:
    script = sandbox.base / f"{step}.sh"
    script.write_text(render_script(step, step_params))
    env = {} if address is None else {"API_SERVER_ADDRESS": address}
    return sandbox.run_file(script, env=env)


def fetch(
    sandbox: Sandbox, step_params: ClusterKubeconfigParams, address: str | None = ADDRESS
) -> Run:
    return run_step(sandbox, Step.CLUSTER_KUBECONFIG, step_params, address)


def nvkind_params(sandbox: Sandbox, gpu_count: int = 1, **spec: Any) -> NvkindClusterParams:
    model = cluster_spec(**spec)
    return sandbox.params(
        NvkindClusterParams,
        cluster_name=model.name,
        kind_config=render_kind_config(model, gpu_count),
        node_image=model.node_image,
        api_server_port=model.apiServerPort,
    )


def returned_kubeconfig(run: Run) -> str:
    return base64.b64decode(run.result().model_extra["kubeconfig"]).decode()  # type: ignore[index]


def assert_secret_kept(run: Run) -> None:
    """The kubeconfig (and its base64) is on stdout's result line and nowhere else."""
    encoded = (run.result().model_extra or {}).get("kubeconfig", "") if run.stdout else ""
    for text in (run.stderr, "\n".join(run.calls), *run.stdout.splitlines()[:-1]):
        assert SECRET not in text
        assert not encoded or encoded not in text


def test_prints_only_the_result_line(sandbox: Sandbox) -> None:
    kept = on_host_kubeconfig()
    path = put_kubeconfig(sandbox, kept)
    run = fetch(sandbox, params(sandbox))
    assert run.returncode == 0, run.stderr
    expected = kept.replace("https://127.0.0.1:6443", f"https://{ADDRESS}:6443")
    encoded = base64.b64encode(expected.encode()).decode()
    assert run.stdout == (
        '{"step":"cluster-kubeconfig","changed":false,"cluster":"gpu-ci",'
        f'"server":"https://{ADDRESS}:6443","kubeconfig":"{encoded}"}}\n'
    )
    assert run.stderr == ""
    assert run.calls == []
    returned = yaml.safe_load(returned_kubeconfig(run))
    assert returned["clusters"][0]["cluster"]["server"] == f"https://{ADDRESS}:6443"
    assert returned["users"][0]["user"]["client-key-data"] == SECRET
    # The host is left as it was.
    assert path.read_text() == kept
    assert path.stat().st_mode & 0o777 == 0o600
    assert_secret_kept(run)


def test_returns_what_nvkind_cluster_returned(sandbox: Sandbox) -> None:
    """Switching the provider's source to this step keeps its kubeconfig byte for byte."""
    sandbox.gpus(A10)
    cluster = nvkind_params(sandbox, apiServerPort=16443)
    created = run_step(sandbox, Step.NVKIND_CLUSTER, cluster)
    assert created.returncode == 0, created.stderr
    run = fetch(sandbox, ClusterKubeconfigParams.for_cluster(cluster))
    assert run.returncode == 0, run.stderr
    assert run.result().model_extra == {
        "cluster": "gpu-ci",
        "server": f"https://{ADDRESS}:16443",
        "kubeconfig": created.result().model_extra["kubeconfig"],  # type: ignore[index]
    }
    assert run.calls == []
    assert_secret_kept(run)


@pytest.mark.parametrize("address", ["127.0.0.1", "localhost", "gpu.example.com"])
def test_server_is_the_given_address(sandbox: Sandbox, address: str) -> None:
    put_kubeconfig(sandbox, on_host_kubeconfig(port=7443))
    run = fetch(sandbox, params(sandbox, api_server_port=7443), address)
    assert run.returncode == 0, run.stderr
    assert run.result().model_extra["server"] == f"https://{address}:7443"  # type: ignore[index]
    assert f"    server: https://{address}:7443\n" in returned_kubeconfig(run)


def test_without_sudo_reads_the_file_directly(sandbox: Sandbox) -> None:
    put_kubeconfig(sandbox, on_host_kubeconfig())
    run = fetch(sandbox, params(sandbox, use_sudo=False))
    assert run.returncode == 0, run.stderr
    assert run.result().changed is False
    assert run.calls == []


@pytest.mark.parametrize("address", [None, ""])
def test_api_server_address_unset_fails(sandbox: Sandbox, address: str | None) -> None:
    put_kubeconfig(sandbox, on_host_kubeconfig())
    run = fetch(sandbox, params(sandbox), address)
    assert run.returncode != 0
    assert run.stderr == (
        "gpu-ci step cluster-kubeconfig: API_SERVER_ADDRESS is not set: run the step as "
        "API_SERVER_ADDRESS=<address> bash <script>, with the host's public IP (127.0.0.1 "
        "locally)\n"
    )
    assert run.stdout == ""


@pytest.mark.parametrize("address", ["0.0.0.0", "1.2.3.256", "01.2.3.4", "a b", "$(id)", "::1"])
def test_invalid_api_server_address_fails(sandbox: Sandbox, address: str) -> None:
    put_kubeconfig(sandbox, on_host_kubeconfig())
    run = fetch(sandbox, params(sandbox), address)
    assert run.returncode != 0
    assert run.stderr == (
        f"gpu-ci step cluster-kubeconfig: API_SERVER_ADDRESS '{address}' is not an IPv4 "
        "address or DNS name that clients can reach\n"
    )
    assert run.stdout == ""


@pytest.mark.parametrize("content", [None, ""], ids=["missing", "empty"])
def test_missing_kubeconfig_names_the_step_that_writes_it(
    sandbox: Sandbox, content: str | None
) -> None:
    if content is not None:
        put_kubeconfig(sandbox, content)
    run = fetch(sandbox, params(sandbox))
    assert run.returncode != 0
    assert run.stderr == (
        f"gpu-ci step cluster-kubeconfig: no kubeconfig at {KUBECONFIG}: the nvkind-cluster "
        "step has not run on this host (cluster gpu-ci)\n"
    )
    assert run.stdout == ""


@pytest.mark.parametrize("servers", [0, 2])
def test_kubeconfig_without_exactly_one_server_fails_without_showing_it(
    sandbox: Sandbox, servers: int
) -> None:
    put_kubeconfig(sandbox, on_host_kubeconfig(servers=servers))
    run = fetch(sandbox, params(sandbox))
    assert run.returncode != 0
    assert run.stderr == (
        f"gpu-ci step cluster-kubeconfig: the kubeconfig {KUBECONFIG} does not have exactly "
        "one cluster server\n"
    )
    assert run.stdout == ""
    assert SECRET not in run.stderr


def test_for_cluster_takes_the_clusters_identity() -> None:
    spec = cluster_spec(apiServerPort=16443)
    cluster = NvkindClusterParams(
        cluster_name=spec.name,
        kind_config=render_kind_config(spec, 1),
        node_image=spec.node_image,
        api_server_port=spec.apiServerPort,
        statedir="/srv/nvkind",
        use_sudo=False,
        root="/mnt/target",
        retry_attempts=3,
    )
    got = ClusterKubeconfigParams.for_cluster(cluster)
    assert got.model_dump() == {
        "retry_attempts": 3,
        "retry_base_seconds": 2,
        "root": "/mnt/target",
        "cluster_name": "gpu-ci",
        "statedir": "/srv/nvkind",
        "kubeconfig_path": "/srv/nvkind/gpu-ci/kubeconfig",
        "use_sudo": False,
        "api_server_port": 16443,
    }
    assert ClusterKubeconfigParams.for_cluster(cluster, use_sudo=True).use_sudo is True


def test_script_does_not_follow_the_cluster_config() -> None:
    """A new node image or GPU layout re-runs nvkind-cluster, not this step."""

    def script(gpu_count: int, **spec: Any) -> str:
        model = cluster_spec(**spec)
        cluster = NvkindClusterParams(
            cluster_name=model.name,
            kind_config=render_kind_config(model, gpu_count),
            node_image=model.node_image,
            expected_gpus=gpu_count,
        )
        return render_script(Step.CLUSTER_KUBECONFIG, ClusterKubeconfigParams.for_cluster(cluster))

    base = script(1)
    assert script(2, gpus="one-per-gpu") == base
    assert script(1, nodeImage="kindest/node:v1.34.3") == base
    assert script(1, name="other") != base
