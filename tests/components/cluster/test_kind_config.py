"""The kind config for nvkind: golden files for the upstream layouts, the same worker ->
GPU mapping as nvkind's own templates, the typed kind model, and bad-input messages.

Set GPU_CI_UPDATE_GOLDEN=1 to rewrite the golden files after a deliberate change.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from components.cluster.api_server import API_SERVER_ADDRESS_PLACEHOLDER, kubeconfig_server
from components.cluster.cluster_config import NvkindClusterSpec
from components.cluster.errors import ClusterSpecError
from components.cluster.kind_config import kind_cluster, nvkind_layout, render_kind_config
from components.cluster.kind_types import GPU_DEVICE_DIR, GPU_PRESENT_LABEL, KindCluster
from components.cluster.node_images import (
    KIND_RELEASES,
    check_node_image,
    default_node_image,
    kind_release,
)
from components.pins import PINS
from core.errors import GpuCiError
from tests.components.cluster.cluster_helpers import cluster_spec
from tests.oracles.gotemplate import Template
from tests.oracles.kind_config import (
    bind_api_server_address,
    nvkind_equivalent,
    parse_kind_config,
    worker_gpu_devices,
    workers,
)

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "cluster"
V1_35_0 = (
    "kindest/node:v1.35.0@sha256:452d707d4862f52530247495d180205e029056831160e22870e37e3f6c1ac31f"
)

# The upstream layouts: nvkind's default (one worker, all GPUs), its one-worker-per-gpu
# example on a 4-GPU host, and its README's explicit example (GPU 0; GPUs 1-3) on 8 GPUs.
LAYOUTS: dict[str, tuple[dict[str, Any], int]] = {
    "default": ({}, 1),
    "one-worker-per-gpu": ({"gpus": "one-per-gpu"}, 4),
    "explicit-gpus-per-worker": ({"gpus": [[0], [1, 2, 3]]}, 8),
}
EXPECTED_DEVICES = {
    "default": (("all",),),
    "one-worker-per-gpu": (("0",), ("1",), ("2",), ("3",)),
    "explicit-gpus-per-worker": (("0",), ("1", "2", "3")),
}
README_EXPLICIT_VALUES = "workers:\n- devices: 0\n- devices: [1, 2, 3]\n"  # nvkind's README


def upstream_config(upstream: Path, spec: NvkindClusterSpec, gpu_count: int) -> KindCluster:
    """What nvkind's own template renders for the equivalent values."""
    equivalent = nvkind_equivalent(spec, gpu_count)
    template = Template((upstream / "nvkind" / equivalent.template).read_text())
    return parse_kind_config(template.render(equivalent.values, equivalent.numGPUs))


# --- golden files and the typed model --------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
def test_golden(layout: str) -> None:
    values, gpu_count = LAYOUTS[layout]
    rendered = render_kind_config(cluster_spec(**values), gpu_count)
    golden = GOLDEN / f"{layout}.yaml"
    if os.environ.get("GPU_CI_UPDATE_GOLDEN"):
        golden.write_text(rendered)
    assert rendered == golden.read_text()


@pytest.mark.parametrize("layout", LAYOUTS)
def test_golden_parses_as_the_typed_kind_config(layout: str) -> None:
    values, gpu_count = LAYOUTS[layout]
    spec = cluster_spec(**values)
    parsed = parse_kind_config((GOLDEN / f"{layout}.yaml").read_text())
    assert parsed == kind_cluster(spec, gpu_count)
    assert parsed.kind == "Cluster"
    assert parsed.apiVersion == "kind.x-k8s.io/v1alpha4"
    assert parsed.name == "gpu-ci"
    assert [n.role for n in parsed.nodes] == ["control-plane"] + ["worker"] * len(
        EXPECTED_DEVICES[layout]
    )
    assert {n.image for n in parsed.nodes} == {V1_35_0}
    assert worker_gpu_devices(parsed) == EXPECTED_DEVICES[layout]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_same_worker_gpus_as_the_upstream_template(upstream: Path, layout: str) -> None:
    values, gpu_count = LAYOUTS[layout]
    spec = cluster_spec(**values)
    ours = parse_kind_config(render_kind_config(spec, gpu_count))
    theirs = upstream_config(upstream, spec, gpu_count)
    assert worker_gpu_devices(ours) == worker_gpu_devices(theirs) == EXPECTED_DEVICES[layout]
    assert nvkind_layout(spec, gpu_count) == EXPECTED_DEVICES[layout]
    for mine, upstream_worker in zip(workers(ours), workers(theirs), strict=True):
        # Every label upstream sets is ours too; we add gpu.present where upstream does not.
        assert (upstream_worker.labels or {}).items() <= (mine.labels or {}).items()
        gpu_mounts = [m for m in mine.extraMounts or () if m.hostPath == "/dev/null"]
        assert gpu_mounts == list(upstream_worker.extraMounts or ())


def test_upstream_readme_values_give_the_explicit_layout(upstream: Path) -> None:
    """nvkind's README example values (scalar `devices: 0` included) map like our spec."""
    values = yaml.safe_load(README_EXPLICIT_VALUES)
    template = Template((upstream / "nvkind/explicit-gpus-per-worker.yaml").read_text())
    theirs = parse_kind_config(template.render(values, 8))
    spec = cluster_spec(gpus=[[0], [1, 2, 3]])
    assert worker_gpu_devices(theirs) == nvkind_layout(spec, 8)


@pytest.mark.parametrize(
    ("gpus", "gpu_count"),
    [("all", 1), ("all", 8), ("one-per-gpu", 1), ("one-per-gpu", 8), ([[1], [0], []], 2)],
)
def test_layouts_match_upstream_beyond_the_examples(
    upstream: Path, gpus: Any, gpu_count: int
) -> None:
    spec = cluster_spec(gpus=gpus)
    theirs = upstream_config(upstream, spec, gpu_count)
    assert worker_gpu_devices(theirs) == nvkind_layout(spec, gpu_count)
    ours = parse_kind_config(render_kind_config(spec, gpu_count))
    assert worker_gpu_devices(ours) == nvkind_layout(spec, gpu_count)


def test_equally_distributed_example_is_understood(upstream: Path) -> None:
    """The fourth upstream example renders into our typed model too (4 workers x 2 GPUs)."""
    template = Template((upstream / "nvkind/equally-distributed-gpus.yaml").read_text())
    parsed = parse_kind_config(template.render({"numWorkers": 4}, 8))
    assert worker_gpu_devices(parsed) == (("0", "1"), ("2", "3"), ("4", "5"), ("6", "7"))


# --- what every rendered config carries ------------------------------------------------------

SPECS: list[tuple[dict[str, Any], int]] = [
    *LAYOUTS.values(),
    ({"gpus": [[0], []], "workerLabels": {"gpu-ci.io/pool": "a10"}}, 1),
    (
        {
            "name": "ci.gpu",
            "nodeImage": "kindest/node:v1.33.7",
            "apiServerAddress": "127.0.0.1",
            "apiServerPort": 16443,
            "certSANs": ["ci.example.org", "10.0.1.5"],
            "extraMounts": [
                {"hostPath": "/srv/data", "containerPath": "/data", "readOnly": True},
                {
                    "hostPath": "/var/cache/hf",
                    "containerPath": "/cache",
                    "propagation": "HostToContainer",
                },
            ],
        },
        2,
    ),
]


@pytest.mark.parametrize(("values", "gpu_count"), SPECS)
def test_rendered_config_round_trips(values: dict[str, Any], gpu_count: int) -> None:
    spec = cluster_spec(**values)
    text = render_kind_config(spec, gpu_count)
    assert text == render_kind_config(spec, gpu_count)  # deterministic
    assert "{{" not in text  # nvkind passes it through its template engine unchanged
    assert parse_kind_config(text) == kind_cluster(spec, gpu_count)
    assert KindCluster.model_validate(yaml.safe_load(text)).name == spec.name


@pytest.mark.parametrize(("values", "gpu_count"), SPECS)
def test_gpu_mounts_and_labels(values: dict[str, Any], gpu_count: int) -> None:
    spec = cluster_spec(**values)
    parsed = parse_kind_config(render_kind_config(spec, gpu_count))
    assert parsed.nodes[0].role == "control-plane"
    assert parsed.nodes[0].extraMounts is None and parsed.nodes[0].labels is None
    for worker, devices in zip(workers(parsed), nvkind_layout(spec, gpu_count), strict=True):
        mounts = list(worker.extraMounts or ())
        gpu = [m for m in mounts if m.containerPath.startswith(GPU_DEVICE_DIR)]
        assert [m.model_dump(exclude_none=True) for m in gpu] == [
            {"hostPath": "/dev/null", "containerPath": f"{GPU_DEVICE_DIR}/{d}"} for d in devices
        ]
        assert [m for m in mounts if m not in gpu] == [m.kind() for m in spec.extraMounts]
        labels = dict(worker.labels or {})
        if devices:
            assert labels.pop(GPU_PRESENT_LABEL) == "true"
        else:
            assert GPU_PRESENT_LABEL not in labels
        assert labels == spec.workerLabels


@pytest.mark.parametrize(("values", "gpu_count"), SPECS)
def test_api_server_networking_and_cert_sans(values: dict[str, Any], gpu_count: int) -> None:
    spec = cluster_spec(**values)
    text = render_kind_config(spec, gpu_count)
    parsed = parse_kind_config(text)
    assert parsed.networking is not None
    assert parsed.networking.apiServerAddress == spec.apiServerAddress
    assert parsed.networking.apiServerPort == spec.apiServerPort
    patches = parsed.nodes[0].kubeadmConfigPatches
    assert patches is not None and len(patches) == 1
    patch = yaml.safe_load(patches[0])
    assert patch == {
        "kind": "ClusterConfiguration",
        "apiServer": {
            "certSANs": ["localhost", "127.0.0.1", API_SERVER_ADDRESS_PLACEHOLDER, *spec.certSANs]
        },
    }
    assert text.count(API_SERVER_ADDRESS_PLACEHOLDER) == 1
    bound = parse_kind_config(bind_api_server_address(text, "203.0.113.7"))
    sans = yaml.safe_load(bound.nodes[0].kubeadmConfigPatches[0])["apiServer"]["certSANs"]  # type: ignore[index]
    assert sans == ["localhost", "127.0.0.1", "203.0.113.7", *spec.certSANs]
    local = bind_api_server_address(text, "127.0.0.1")
    assert API_SERVER_ADDRESS_PLACEHOLDER not in local
    local_sans = yaml.safe_load(parse_kind_config(local).nodes[0].kubeadmConfigPatches[0])  # type: ignore[index]
    assert local_sans["apiServer"]["certSANs"] == ["localhost", "127.0.0.1", *spec.certSANs]


def test_worker_label_order_does_not_change_the_config() -> None:
    a = cluster_spec(workerLabels={"b.io/x": "1", "a.io/y": "2"})
    b = cluster_spec(workerLabels={"a.io/y": "2", "b.io/x": "1"})
    assert render_kind_config(a, 1) == render_kind_config(b, 1)


def test_kubeconfig_server() -> None:
    assert kubeconfig_server("203.0.113.7", 6443) == "https://203.0.113.7:6443"
    assert kubeconfig_server("gpu.example.com", 16443) == "https://gpu.example.com:16443"


# --- node images ---------------------------------------------------------------------------


def test_default_node_image_is_the_pinned_kinds() -> None:
    assert PINS.kind.version == "0.31.0"
    assert default_node_image() == V1_35_0
    spec = cluster_spec()
    assert spec.nodeImage is None
    assert spec.node_image == V1_35_0
    assert spec.kubernetes_version == "v1.35.0"


def test_release_table_is_consistent() -> None:
    assert PINS.kind.version in KIND_RELEASES
    for version, release in KIND_RELEASES.items():
        assert release.version == version
        assert release.default in release.images
        assert len(set(release.minors)) == len(release.minors)
        for digest in release.images.values():
            assert len(digest) == 64 and int(digest, 16) >= 0


def test_published_tag_is_completed_with_its_digest() -> None:
    spec = cluster_spec(nodeImage="kindest/node:v1.34.3")
    assert spec.node_image == KIND_RELEASES["0.31.0"].image("v1.34.3")
    assert spec.kubernetes_version == "v1.34.3"
    assert check_node_image(V1_35_0) == V1_35_0


def test_unpublished_patch_of_a_supported_minor_is_kept_as_is() -> None:
    assert check_node_image("kindest/node:v1.35.1") == "kindest/node:v1.35.1"


def test_image_for_another_kind_release() -> None:
    spec = cluster_spec(nodeImage="kindest/node:v1.33.1", kindVersion="0.29.0")
    assert spec.node_image.endswith("@sha256:" + kind_release("v0.29.0").images["v1.33.1"])


# --- bad input -------------------------------------------------------------------------------

BAD: list[tuple[dict[str, Any], str]] = [
    (
        {"nodeImage": "kindest/node:v1.36.1"},
        "nodeImage 'kindest/node:v1.36.1' is Kubernetes 1.36, which the pinned kind v0.31.0 "
        "publishes no node image for; use one of kindest/node:v1.35.0, kindest/node:v1.34.3, "
        "kindest/node:v1.33.7, kindest/node:v1.32.11, kindest/node:v1.31.14 (with its digest), "
        "or pin a kind release that supports it",
    ),
    (
        {"nodeImage": "kindest/node:v1.35.0@sha256:" + "0" * 64},
        "kind v0.31.0 published v1.35.0 as sha256:452d707d",
    ),
    (
        {"nodeImage": "kindest/node:latest"},
        "is not kindest/node:vX.Y.Z[@sha256:<64 hex>]; use e.g.",
    ),
    ({"nodeImage": "docker.io/kindest/node:v1.35.0"}, "is not kindest/node:vX.Y.Z"),
    ({"kindVersion": "0.12.0"}, "kindVersion '0.12.0': no node images are recorded"),
    ({"name": "GPU_CI"}, "name 'GPU_CI' is not a kind cluster name: use up to 49 of [a-z0-9.-]"),
    ({"name": "x" * 50}, "is not a kind cluster name"),
    ({"gpus": "two"}, 'gpus: \'two\' is not "all" (one worker, every GPU), "one-per-gpu"'),
    ({"gpus": []}, "gpus: an empty worker list gives no workers"),
    ({"gpus": [[]]}, "gpus: no worker has a GPU"),
    ({"gpus": [[0, 1], [1]]}, "gpus: GPU 1 is assigned to workers 0 and 1; give each GPU to one"),
    ({"gpus": [[2, 2]]}, "gpus: GPU 2 is assigned twice to worker 0"),
    ({"gpus": [[-1]]}, "(indexes 0-63)"),
    ({"gpus": [["0"]]}, 'is not "all"'),
    ({"workerLabels": {GPU_PRESENT_LABEL: "true"}}, "remove it from workerLabels"),
    ({"workerLabels": {"node-role.kubernetes.io/worker": ""}}, "a kubelet may not set"),
    ({"workerLabels": {"bad key": "x"}}, "is not a Kubernetes label key"),
    ({"workerLabels": {"gpu-ci.io/pool": "a b"}}, "is not a label value"),
    ({"extraMounts": [{"hostPath": "data", "containerPath": "/data"}]}, "must be an absolute"),
    (
        {"extraMounts": [{"hostPath": "/x", "containerPath": f"{GPU_DEVICE_DIR}/all"}]},
        "is where nvkind requests GPUs; assign GPUs with `gpus` instead",
    ),
    ({"extraMounts": [{"hostPath": "/{{ .x }}", "containerPath": "/x"}]}, "absolute path"),
    ({"certSANs": ["not a name"]}, "certSANs: 'not a name' is neither an IP address nor a DNS"),
    ({"apiServerAddress": "10.0.0.1"}, "apiServerAddress: Input should be '0.0.0.0'"),
    ({"apiServerPort": 0}, "apiServerPort: Input should be greater than or equal to 1"),
    ({"gpu": "all"}, "gpu: Extra inputs are not permitted"),
]


@pytest.mark.parametrize(("values", "message"), BAD, ids=[str(v) for v, _ in BAD])
def test_bad_spec_names_the_field_and_the_fix(values: dict[str, Any], message: str) -> None:
    with pytest.raises(ClusterSpecError) as err:
        cluster_spec(**values)
    assert isinstance(err.value, GpuCiError)
    assert message in str(err.value)


@pytest.mark.parametrize(
    ("values", "gpu_count", "message"),
    [
        (
            {},
            0,
            "gpu_count 0: the host has no GPU to give the cluster's workers; check the verify "
            "step (nvidia-smi -L) or the shape's GPU count",
        ),
        (
            {"gpus": [[0], [3]]},
            2,
            "gpus: worker 1 is given GPU 3, but the host has 2 GPU(s) (indexes 0-1); fix the "
            "index lists in `gpus`",
        ),
    ],
)
def test_layout_that_the_host_cannot_carry(
    values: dict[str, Any], gpu_count: int, message: str
) -> None:
    with pytest.raises(ClusterSpecError) as err:
        render_kind_config(cluster_spec(**values), gpu_count)
    assert str(err.value) == message


def test_kind_model_rejects_what_kind_would() -> None:
    good = yaml.safe_load((GOLDEN / "default.yaml").read_text())
    for broken in (
        {**good, "apiVersion": "kind.x-k8s.io/v1alpha3"},
        {**good, "nodes": [{"role": "master"}]},
        {**good, "nodes": [{"role": "worker", "labels": {GPU_PRESENT_LABEL: True}}]},
        {**good, "networking": {"apiServerPort": "6443"}},
        {**good, "nodes": [{"role": "worker", "extraMount": []}]},
    ):
        with pytest.raises(ValueError):
            KindCluster.model_validate(broken)
