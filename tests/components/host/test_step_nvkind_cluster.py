"""Steps nvkind-cluster and nvkind-cluster-delete: create/adopt/replace, the deploy-time
address, GPU count, and a kubeconfig that only ever leaves through the result line."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from components.cluster import api_server
from components.cluster.errors import ClusterSpecError
from components.cluster.kind_config import render_kind_config
from components.host.params.cluster import (
    API_SERVER_ADDRESS_PLACEHOLDER,
    ClusterReadyParams,
    NvkindClusterDeleteParams,
    NvkindClusterParams,
)
from components.host.params.step import Step
from tests.components.cluster.cluster_helpers import cluster_spec
from tests.oracles.kind_config import bind_api_server_address, parse_kind_config

from .nvkind_steps import (
    A10,
    ADDRESS,
    SECRET,
    assert_secret_kept,
    cluster_params,
    create,
    create_call,
    kubeconfig_of,
    run_step,
    state,
)
from .sandbox import Sandbox


def test_creates_the_cluster(sandbox: Sandbox) -> None:
    sandbox.gpus(A10)
    params = cluster_params(sandbox)
    run = create(sandbox, params)
    assert run.returncode == 0, run.stderr
    assert run.calls == [
        "kind get clusters",
        create_call(sandbox, params),
        "nvkind cluster print-gpus --name gpu-ci",
    ]
    result = run.result()
    assert result.changed is True
    assert result.model_extra is not None
    assert {k: v for k, v in result.model_extra.items() if k != "kubeconfig"} == {
        "action": "created",
        "cluster": "gpu-ci",
        "nodeImage": params.node_image,
        "gpuCount": 1,
        "server": f"https://{ADDRESS}:6443",
    }
    assert len(run.stdout.splitlines()) == 1  # nvkind's own stdout went to stderr
    assert 'Creating cluster "gpu-ci"' in run.stderr
    assert sandbox.kind_clusters() == ["gpu-ci"]
    assert_secret_kept(run)


def test_returned_kubeconfig_points_at_the_address_and_the_kept_one_at_localhost(
    sandbox: Sandbox,
) -> None:
    sandbox.gpus(A10)
    run = create(sandbox, cluster_params(sandbox, apiServerPort=16443))
    assert run.returncode == 0, run.stderr
    returned = yaml.safe_load(kubeconfig_of(run))
    assert returned["clusters"][0]["cluster"]["server"] == f"https://{ADDRESS}:16443"
    assert returned["users"][0]["user"]["client-key-data"] == SECRET
    kept = state(sandbox, "kubeconfig")
    assert yaml.safe_load(kept.read_text())["clusters"][0]["cluster"]["server"] == (
        "https://127.0.0.1:16443"
    )
    assert kept.stat().st_mode & 0o777 == 0o600
    assert run.result().model_extra["server"] == f"https://{ADDRESS}:16443"  # type: ignore[index]


@pytest.mark.parametrize("address", [ADDRESS, "127.0.0.1", "localhost", "gpu.example.com"])
def test_config_handed_to_nvkind_is_the_python_binding(sandbox: Sandbox, address: str) -> None:
    sandbox.gpus(A10)
    params = cluster_params(sandbox, certSANs=("ci.example.org",))
    run = create(sandbox, params, address)
    assert run.returncode == 0, run.stderr
    written = state(sandbox, "kind-config.yaml").read_text()
    assert written == bind_api_server_address(params.kind_config, address)
    assert API_SERVER_ADDRESS_PLACEHOLDER not in written
    patch = yaml.safe_load(parse_kind_config(written).nodes[0].kubeadmConfigPatches[0])  # type: ignore[index]
    sans = patch["apiServer"]["certSANs"]
    assert sans == list(dict.fromkeys(["localhost", "127.0.0.1", address, "ci.example.org"]))


def test_same_config_is_adopted(sandbox: Sandbox) -> None:
    sandbox.gpus(A10)
    params = cluster_params(sandbox)
    first = create(sandbox, params)
    assert first.returncode == 0, first.stderr
    run = create(sandbox, params)
    assert run.returncode == 0, run.stderr
    assert run.calls == ["kind get clusters", "nvkind cluster print-gpus --name gpu-ci"]
    assert run.result().changed is False
    assert run.result().model_extra["action"] == "adopted"  # type: ignore[index]
    assert kubeconfig_of(run) == kubeconfig_of(first)
    assert "adopting it" in run.stderr
    assert_secret_kept(run)


def test_changed_config_deletes_then_creates(sandbox: Sandbox) -> None:
    sandbox.gpus(A10, ("NVIDIA A10", "GPU-second"))
    assert create(sandbox, cluster_params(sandbox, gpu_count=2)).returncode == 0
    params = cluster_params(sandbox, gpu_count=2, gpus="one-per-gpu")
    run = create(sandbox, params)
    assert run.returncode == 0, run.stderr
    assert run.calls == [
        "kind get clusters",
        f"kind delete cluster --name gpu-ci --kubeconfig {state(sandbox)}/kubeconfig",
        create_call(sandbox, params),
        "nvkind cluster print-gpus --name gpu-ci",
    ]
    assert run.result().model_extra["action"] == "replaced"  # type: ignore[index]
    assert run.result().model_extra["gpuCount"] == 2  # type: ignore[index]
    created = (sandbox.state / "kind-clusters/gpu-ci").read_text()
    assert "containerPath: /var/run/nvidia-container-devices/1" in created
    # ...and the next run adopts the new one.
    assert create(sandbox, params).calls == [
        "kind get clusters",
        "nvkind cluster print-gpus --name gpu-ci",
    ]


def test_changed_address_replaces_the_cluster(sandbox: Sandbox) -> None:
    """The address is in the certificate's SANs: a new host address needs a new cluster."""
    sandbox.gpus(A10)
    params = cluster_params(sandbox)
    assert create(sandbox, params).returncode == 0
    run = create(sandbox, params, "198.51.100.9")
    assert run.returncode == 0, run.stderr
    assert run.commands()[:3] == ["kind", "kind", "nvkind"]
    assert run.calls[1].startswith("kind delete cluster --name gpu-ci")
    assert "- 198.51.100.9" in state(sandbox, "kind-config.yaml").read_text()


def test_changed_node_image_replaces_the_cluster(sandbox: Sandbox) -> None:
    sandbox.gpus(A10)
    assert create(sandbox, cluster_params(sandbox)).returncode == 0
    params = cluster_params(sandbox, nodeImage="kindest/node:v1.34.3")
    run = create(sandbox, params)
    assert run.returncode == 0, run.stderr
    assert run.calls[2] == create_call(sandbox, params)
    assert "--image kindest/node:v1.34.3@sha256:08497ee1" in run.calls[2]


def test_cluster_gpu_ci_did_not_create_is_refused(sandbox: Sandbox) -> None:
    sandbox.gpus(A10)
    sandbox.kind_cluster("gpu-ci")
    run = create(sandbox, cluster_params(sandbox))
    assert run.returncode != 0
    assert run.stderr.splitlines()[-1] == (
        "gpu-ci step nvkind-cluster: a kind cluster named gpu-ci exists but gpu-ci did not "
        "create it; delete it (kind delete cluster --name gpu-ci) or choose another cluster name"
    )
    assert run.calls == ["kind get clusters"]
    assert sandbox.kind_clusters() == ["gpu-ci"]


def test_failed_create_names_the_step_and_the_rerun_replaces(sandbox: Sandbox) -> None:
    sandbox.gpus(A10)
    params = cluster_params(sandbox)
    sandbox.put("nvkind-create-fail", "installing container toolkit on node 'gpu-ci-worker'\n")
    run = create(sandbox, params)
    assert run.returncode != 0
    assert "installing container toolkit on node 'gpu-ci-worker'" in run.stderr
    assert run.stderr.splitlines()[-1] == (
        "gpu-ci step nvkind-cluster: nvkind cluster create --name gpu-ci failed (exit 1); "
        "its output is above"
    )
    assert run.stdout == ""
    assert not state(sandbox, "config.sha256").exists()  # never adopted as is
    (sandbox.state / "nvkind-create-fail").unlink()
    rerun = create(sandbox, params)
    assert rerun.returncode == 0, rerun.stderr
    assert rerun.result().model_extra["action"] == "replaced"  # type: ignore[index]
    assert rerun.calls[1].startswith("kind delete cluster --name gpu-ci")


@pytest.mark.parametrize("address", [None, ""])
def test_api_server_address_unset_fails_before_anything(
    sandbox: Sandbox, address: str | None
) -> None:
    run = create(sandbox, cluster_params(sandbox), address)  # type: ignore[arg-type]
    assert run.returncode != 0
    assert run.stderr.startswith("gpu-ci step nvkind-cluster: API_SERVER_ADDRESS is not set: ")
    assert "API_SERVER_ADDRESS=<address> bash <script>" in run.stderr
    assert run.calls == []


@pytest.mark.parametrize(
    "address", ["0.0.0.0", "1.2.3.256", "01.2.3.4", "10.0.0", "a b", "$(id)", "x;y", "::1"]
)
def test_invalid_api_server_address_fails(sandbox: Sandbox, address: str) -> None:
    run = create(sandbox, cluster_params(sandbox), address)
    assert run.returncode != 0
    assert run.stderr == (
        f"gpu-ci step nvkind-cluster: API_SERVER_ADDRESS '{address}' is not an IPv4 address "
        "or DNS name that clients can reach\n"
    )
    assert run.calls == []
    with pytest.raises(ClusterSpecError):
        api_server.kubeconfig_server(address, 6443)  # the Python side agrees


def test_no_gpu_in_the_nodes_fails_and_is_not_adopted(sandbox: Sandbox) -> None:
    sandbox.gpus()
    params = cluster_params(sandbox)
    run = create(sandbox, params)
    assert run.returncode != 0
    assert run.stderr.splitlines()[-1].startswith(
        "gpu-ci step nvkind-cluster: no GPU is visible in the nodes of cluster gpu-ci "
        "(nvkind cluster print-gpus listed none)"
    )
    assert not state(sandbox, "config.sha256").exists()
    sandbox.gpus(A10)
    assert create(sandbox, params).result().model_extra["action"] == "replaced"  # type: ignore[index]


def test_expected_gpu_count(sandbox: Sandbox) -> None:
    sandbox.gpus(A10)
    run = create(sandbox, cluster_params(sandbox).model_copy(update={"expected_gpus": 2}))
    assert run.returncode != 0
    assert run.stderr.splitlines()[-1] == (
        "gpu-ci step nvkind-cluster: the nodes of cluster gpu-ci see 1 GPU(s), expected 2"
    )


def test_print_gpus_failure_is_named(sandbox: Sandbox) -> None:
    sandbox.gpus(A10)
    sandbox.put("print-gpus-fail", "executing command: exit status 9\ndocker exec failed\n")
    run = create(sandbox, cluster_params(sandbox))
    assert run.returncode != 0
    assert run.stderr.splitlines()[-1] == (
        "gpu-ci step nvkind-cluster: nvkind cluster print-gpus --name gpu-ci failed: "
        "executing command: exit status 9; docker exec failed"
    )


def test_lost_kubeconfig_of_an_adopted_cluster_is_exported(sandbox: Sandbox) -> None:
    sandbox.gpus(A10)
    params = cluster_params(sandbox)
    assert create(sandbox, params).returncode == 0
    state(sandbox, "kubeconfig").unlink()
    run = create(sandbox, params)
    assert run.returncode == 0, run.stderr
    assert run.calls == [
        "kind get clusters",
        f"kind export kubeconfig --name gpu-ci --kubeconfig {state(sandbox)}/kubeconfig",
        "nvkind cluster print-gpus --name gpu-ci",
    ]
    assert run.result().changed is True
    assert run.result().model_extra["action"] == "adopted"  # type: ignore[index]
    assert "127.0.0.1:6443" in state(sandbox, "kubeconfig").read_text()


def test_docker_unavailable_is_named(sandbox: Sandbox) -> None:
    sandbox.put(
        "kind-fail", "ERROR: failed to list clusters: Cannot connect to the Docker daemon\n"
    )
    run = create(sandbox, cluster_params(sandbox))
    assert run.returncode != 0
    assert run.stderr == (
        "gpu-ci step nvkind-cluster: kind get clusters failed (is Docker running?): "
        "ERROR: failed to list clusters: Cannot connect to the Docker daemon\n"
    )


def test_without_sudo_runs_the_same_commands(sandbox: Sandbox) -> None:
    sandbox.gpus(A10)
    params = cluster_params(sandbox).model_copy(update={"use_sudo": False})
    run = create(sandbox, params)
    assert run.returncode == 0, run.stderr
    assert run.commands() == ["kind", "nvkind", "nvkind"]


# --- delete --------------------------------------------------------------------------------


def test_delete_removes_the_cluster_and_its_state(sandbox: Sandbox) -> None:
    sandbox.gpus(A10)
    params = cluster_params(sandbox)
    assert create(sandbox, params).returncode == 0
    run = run_step(
        sandbox, Step.NVKIND_CLUSTER_DELETE, NvkindClusterDeleteParams.for_cluster(params), None
    )
    assert run.returncode == 0, run.stderr
    assert run.calls == [
        "kind get clusters",
        f"kind delete cluster --name gpu-ci --kubeconfig {state(sandbox)}/kubeconfig",
    ]
    assert run.result().changed is True
    assert run.result().model_extra == {"cluster": "gpu-ci", "deleted": True}
    assert sandbox.kind_clusters() == []
    assert not state(sandbox).exists()
    assert_secret_kept(run)


def test_delete_of_a_missing_cluster_is_fine(sandbox: Sandbox) -> None:
    params = sandbox.params(NvkindClusterDeleteParams, cluster_name="gpu-ci")
    run = run_step(sandbox, Step.NVKIND_CLUSTER_DELETE, params, None)
    assert run.returncode == 0, run.stderr
    assert run.calls == ["kind get clusters"]
    assert run.result().changed is False
    assert run.result().model_extra == {"cluster": "gpu-ci", "deleted": False}
    assert "cluster gpu-ci does not exist; nothing to delete" in run.stderr


def test_delete_removes_leftover_state_of_a_vanished_cluster(sandbox: Sandbox) -> None:
    sandbox.gpus(A10)
    params = cluster_params(sandbox)
    assert create(sandbox, params).returncode == 0
    (sandbox.state / "kind-clusters/gpu-ci").unlink()
    run = run_step(
        sandbox, Step.NVKIND_CLUSTER_DELETE, NvkindClusterDeleteParams.for_cluster(params), None
    )
    assert run.returncode == 0, run.stderr
    assert run.result().changed is True
    assert not state(sandbox).exists()


def test_delete_failure_is_named(sandbox: Sandbox) -> None:
    sandbox.kind_cluster("gpu-ci")
    sandbox.put("kind-delete-fail", 'ERROR: failed to delete cluster "gpu-ci"\n')
    params = sandbox.params(NvkindClusterDeleteParams, cluster_name="gpu-ci")
    run = run_step(sandbox, Step.NVKIND_CLUSTER_DELETE, params, None)
    assert run.returncode != 0
    assert run.stderr.splitlines()[-1] == (
        "gpu-ci step nvkind-cluster-delete: kind delete cluster --name gpu-ci failed (exit 1)"
    )


# --- parameters ----------------------------------------------------------------------------


def test_placeholder_is_the_cluster_modules() -> None:
    assert API_SERVER_ADDRESS_PLACEHOLDER == api_server.API_SERVER_ADDRESS_PLACEHOLDER


def test_kubeconfig_path_defaults_under_statedir() -> None:
    params = NvkindClusterDeleteParams(cluster_name="ci", statedir="/srv/nvkind")
    assert params.kubeconfig_path == "/srv/nvkind/ci/kubeconfig"
    ready = ClusterReadyParams.for_cluster(params, expected_gpus=2)
    assert (ready.kubeconfig_path, ready.use_sudo, ready.expected_gpus) == (
        "/srv/nvkind/ci/kubeconfig",
        True,
        2,
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"cluster_name": "other"}, "kind_config does not name cluster 'other'"),
        ({"api_server_port": 7443}, "kind_config does not set apiServerPort 7443"),
        ({"node_image": "kindest/node:v1.34.3"}, "kind_config's nodes do not run"),
        ({"kind_config": "kind: Cluster\n"}, "must name __GPU_CI_API_SERVER_ADDRESS__ once"),
        ({"kind_config": "{{ .x }} __GPU_CI_API_SERVER_ADDRESS__"}, "contains '{{'"),
        ({"node_image": "nginx:latest"}, "node_image"),
    ],
)
def test_params_must_match_the_rendered_config(change: dict[str, Any], message: str) -> None:
    spec = cluster_spec()
    values: dict[str, Any] = {
        "cluster_name": spec.name,
        "kind_config": render_kind_config(spec, 1),
        "node_image": spec.node_image,
    }
    with pytest.raises(ValidationError, match=message.replace("(", r"\(")):
        NvkindClusterParams.model_validate({**values, **change})
